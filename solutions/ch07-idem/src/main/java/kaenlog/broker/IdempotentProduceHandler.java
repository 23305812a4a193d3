package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.RecordBatch;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;

/**
 * Chapter 7's produce, answering PRODUCE in place of chapter 3's by priority (on both ports: chapter
 * 9's Kafka port produces through {@link Broker#produceHandler}), and chapter 3's path with one
 * check more: a producer id this broker never handed out is refused (UNKNOWN_PRODUCER_ID)
 * before anything is written, since an id is only real once INIT_PRODUCER_ID has written it down.
 * Everything else is chapter 3's: its refusals ({@link ClientRules}), the partition's append, acks
 * and the {@link ReplicaGate}. What makes the append idempotent is the log's own step,
 * {@link IdempotentAppendHook}: a duplicate is answered with error NONE and its first write's
 * offsets, a gap with OUT_OF_ORDER_SEQUENCE_NUMBER.
 */
public final class IdempotentProduceHandler extends ProduceHandler {
    /** Above chapter 3's 0: this handler answers PRODUCE when chapter 7 is on the classpath. */
    public static final int PRIORITY = 7;

    public IdempotentProduceHandler() {
        super(IdempotentProduceHandler::unissuedProducerId);
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

    /** UNKNOWN_PRODUCER_ID for a batch whose producer id this broker never issued, else NONE. */
    private static ErrorCode unissuedProducerId(ProduceRequest request, BrokerContext broker) throws IOException {
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
}
