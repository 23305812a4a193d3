package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.RecordBatch;
import kaenlog.idem.Idempotence;
import kaenlog.idem.IdempotentAppend;
import kaenlog.idem.ProducerState;
import kaenlog.log.BatchTooLargeException;
import kaenlog.log.Log;
import kaenlog.log.ReadOnlyLogException;
import kaenlog.log.StorageException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Chapter 7's produce, replacing chapter 3's by priority: every batch goes through
 * {@link Idempotence#appendIdempotent}, under the partition's lock, so the verdict and the write are
 * one step. APPEND and DUPLICATE are both answered with error NONE and the batch's offsets (for a
 * duplicate, the first write's); OUT_OF_ORDER_SEQUENCE_NUMBER is an error and nothing is written.
 * A batch without a producer id is appended as chapter 3 would.
 *
 * <p>Refused before anything is written: what chapter 3 refuses ({@link ClientRules}: not a
 * partition name, the broker's own partitions, control and transactional batches), and a producer id
 * this broker never handed out (UNKNOWN_PRODUCER_ID): an id is only real once INIT_PRODUCER_ID has
 * written it down.
 *
 * <p>Each partition's producer state lives here, in memory, rebuilt from the active segment the
 * first time a produce reaches the partition after the broker (re)opened it.
 *
 * <p>Not like chapter 3: acks=all is answered as soon as the high watermark has passed the batch,
 * which with one replica is at once; chapter 3's {@code Partition} does not let another append path
 * wait on its {@code ReplicaGate}, so a partition whose HW lags answers REQUEST_TIMED_OUT here.
 */
public final class IdempotentProduceHandler implements RequestHandler {
    /** Above chapter 3's 0: this handler answers PRODUCE when chapter 7 is on the classpath. */
    public static final int PRIORITY = 7;

    private final Map<Log, ProducerState> states = Collections.synchronizedMap(new WeakHashMap<>());

    @Override
    public short apiKey() {
        return ApiKeys.PRODUCE;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /** Chapter 7's code answering chapter 3's key. */
    @Override
    public int chapter() {
        return 7;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        ProduceRequest request = ProduceRequest.decode(body);
        ErrorCode refused = refusal(request, broker);
        ProduceResponse response;
        if (refused != ErrorCode.NONE) {
            response = ProduceResponse.error(request.partition(), refused);
        } else {
            Partition partition = broker.partition(request.partition());
            try {
                response = partition.locked(log -> produce(log, request));
            } catch (StorageException | ReadOnlyLogException failed) { // chapter 3's fail-stop and read-only logs
                response = ProduceResponse.error(request.partition(), partition.storageError(failed));
            }
        }
        if (request.acks() == ProduceRequest.ACKS_NONE) {
            if (response.error() != ErrorCode.NONE) {
                throw new CloseConnectionException("an acks=0 produce to " + request.partition() + " failed with "
                        + response.error() + ": closing the connection is the only way to tell the producer");
            }
            return Optional.empty();
        }
        return Optional.of(response.encode());
    }

    /** Why the request is refused before the partition is touched, or NONE. */
    private static ErrorCode refusal(ProduceRequest request, BrokerContext broker) throws IOException {
        ErrorCode refused = ClientRules.produceRefusal(request.partition(), request.records());
        if (refused != ErrorCode.NONE) {
            return refused;
        }
        List<ByteBuffer> batches;
        try {
            batches = RecordBatch.sliceAll(request.records());
        } catch (CorruptBatchException notBatches) {
            return ErrorCode.NONE; // the append answers CORRUPT_BATCH
        }
        for (ByteBuffer batch : batches) {
            if (batch.remaining() < BatchHeader.PRODUCER_ID_OFFSET + 8) {
                return ErrorCode.NONE;
            }
            long producerId = batch.getLong(batch.position() + BatchHeader.PRODUCER_ID_OFFSET);
            try {
                if (producerId != BatchHeader.NO_PRODUCER_ID && !InitProducerIdHandler.wasIssued(broker, producerId)) {
                    return ErrorCode.UNKNOWN_PRODUCER_ID;
                }
            } catch (CorruptProducerIdException e) {
                return ErrorCode.CORRUPT_PRODUCER_ID_RECORD;
            }
        }
        return ErrorCode.NONE;
    }

    /** Judge and write, under the partition's lock. */
    private ProduceResponse produce(Log log, ProduceRequest request) throws IOException {
        ProducerState state = states.get(log);
        if (state == null) {
            state = Idempotence.rebuildProducerState(log);
            states.put(log, state);
        }
        IdempotentAppend result;
        try {
            result = Idempotence.appendIdempotent(log, state, request.records());
        } catch (CorruptBatchException e) {
            return ProduceResponse.error(request.partition(), ErrorCode.CORRUPT_BATCH);
        } catch (BatchTooLargeException tooLarge) {
            return ProduceResponse.error(request.partition(), ErrorCode.BATCH_TOO_LARGE);
        }
        if (!result.succeeded()) {
            return ProduceResponse.error(request.partition(), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
        }
        if (request.acks() == ProduceRequest.ACKS_ALL && log.highWatermark() <= result.lastOffset()) {
            return ProduceResponse.error(request.partition(), ErrorCode.REQUEST_TIMED_OUT);
        }
        return new ProduceResponse(request.partition(), ErrorCode.NONE, result.baseOffset(), result.lastOffset());
    }
}
