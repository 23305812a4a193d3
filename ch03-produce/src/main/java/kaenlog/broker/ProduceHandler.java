package kaenlog.broker;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Chapter 3's produce: the partition's leader appends the batch and assigns its offsets; the answer
 * comes when acks says so. acks=0 gets no answer at all, so a failed acks=0 produce closes the
 * connection instead (as Kafka does): it is the only signal such a producer can notice.
 *
 * <p>Before anything is opened or written, {@link ClientRules} refuses what a client may not
 * produce: a name that is not a partition name, the broker's own partitions, control and
 * transactional batches; then the broker's {@link Leadership} what it does not lead (chapter 10);
 * then a batch over {@code message.max.bytes} ({@link MessageSizeLimit}). Only a produce creates a
 * partition, and only on a broker alone.
 *
 * <p>A later chapter extends this path instead of copying it: a {@link Validation} of its own runs
 * after chapter 3's refusals (chapter 7: a producer id this broker never handed out), and a step in
 * front of the log's append ({@link BrokerExtension#appendHook}) judges what is written.
 */
public final class ProduceHandler implements RequestHandler {
    /** A check a later chapter adds before anything is opened or written. */
    @FunctionalInterface
    public interface Validation {
        /** Why the produce is refused, or NONE to let it go on. */
        ErrorCode refusal(ProduceRequest request, BrokerContext broker) throws IOException;
    }

    private final Validation validation;

    public ProduceHandler() {
        this((request, broker) -> ErrorCode.NONE);
    }

    /** Chapter 3's produce with one more check after chapter 3's own. */
    public ProduceHandler(Validation validation) {
        this.validation = validation;
    }

    @Override
    public short apiKey() {
        return ApiKeys.PRODUCE;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        ProduceRequest request = ProduceRequest.decode(body);
        ErrorCode refused = refusal(request, broker);
        CompletableFuture<ProduceResponse> answer = refused != ErrorCode.NONE
                ? CompletableFuture.completedFuture(ProduceResponse.error(request.partition(), refused))
                : broker.leadership().produce(request, () -> produce(request, broker));
        if (request.acks() == ProduceRequest.ACKS_NONE) {
            ProduceResponse response = answer.getNow(null);
            if (response != null && response.error() != ErrorCode.NONE) {
                throw new CloseConnectionException("an acks=0 produce to " + request.partition() + " failed with "
                        + response.error() + ": closing the connection is the only way to tell the producer");
            }
            return Optional.empty();
        }
        return Optional.of(broker.await(answer).encode());
    }

    /**
     * Appends through the partition, created when new (under max.partitions); a new partition whose
     * first produce fails is removed again, so a failed produce leaves no directory behind.
     */
    private static CompletableFuture<ProduceResponse> produce(ProduceRequest request, BrokerContext broker)
            throws IOException {
        boolean isNew = broker.existingPartition(request.partition()).isEmpty();
        if (isNew && !broker.leadership().producesCreatePartitions()) {
            return CompletableFuture.completedFuture(ProduceResponse.error(request.partition(),
                    ErrorCode.NOT_LEADER_OR_FOLLOWER));
        }
        Partition partition;
        try {
            partition = broker.partition(request.partition());
        } catch (PartitionLimitException full) {
            broker.refusedCreation(full.getMessage());
            return CompletableFuture.completedFuture(ProduceResponse.error(request.partition(), ErrorCode.UNKNOWN_PARTITION));
        }
        CompletableFuture<ProduceResponse> answer = partition.produce(request, broker.nowMs());
        ProduceResponse now = answer.getNow(null);
        if (isNew && now != null && now.error() != ErrorCode.NONE) {
            broker.removeIfEmpty(request.partition());
        }
        return answer;
    }

    private ErrorCode refusal(ProduceRequest request, BrokerContext broker) throws IOException {
        ErrorCode refused = ClientRules.produceRefusal(request.partition(), request.records());
        if (refused == ErrorCode.NONE) {
            refused = broker.leadership().produceRefusal(request);
        }
        if (refused == ErrorCode.NONE) {
            refused = MessageSizeLimit.refusal(request, broker.configs());
        }
        return refused != ErrorCode.NONE ? refused : validation.refusal(request, broker);
    }
}
