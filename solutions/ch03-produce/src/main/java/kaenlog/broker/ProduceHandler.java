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
 * transactional batches; then the broker's {@link Leadership} what it does not lead (chapter 10),
 * which runs the rest under its guard: a batch over {@code message.max.bytes}
 * ({@link MessageSizeLimit}), a later chapter's check, the append. Only a produce on this
 * port creates a partition, and only on a broker alone.
 *
 * <p>Both ports produce through here: this port decodes a body into a {@link ProduceRequest} and
 * calls {@link #answer(ProduceRequest, BrokerContext)}; chapter 9's Kafka port looks its partition up
 * and calls {@link #answer(ProduceRequest, Partition, BrokerContext)}, one request object per Kafka
 * partition, no bytes in between. A later chapter extends this path instead of copying it: it
 * registers a subclass with a {@link Validation} of its own, run after chapter 3's refusals (chapter
 * 7: a producer id this broker never handed out), and a step in front of the log's append
 * ({@link BrokerExtension#appendHook}) judges what is written.
 */
public class ProduceHandler implements RequestHandler {
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
    protected ProduceHandler(Validation validation) {
        this.validation = validation;
    }

    @Override
    public short apiKey() {
        return ApiKeys.PRODUCE;
    }

    @Override
    public final Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        return answer(ProduceRequest.decode(body), broker).map(ProduceResponse::encode);
    }

    /**
     * A produce to the partition the request names, created when new (this port's rule); empty for
     * acks=0, which is never answered.
     */
    public final Optional<ProduceResponse> answer(ProduceRequest request, BrokerContext broker) throws IOException {
        return answer(request, broker, leaderEpoch -> findOrCreate(request, leaderEpoch, broker));
    }

    /**
     * A produce to {@code partition}, already found by the caller (chapter 9's Kafka port, which
     * creates no partition); empty for acks=0.
     */
    public final Optional<ProduceResponse> answer(ProduceRequest request, Partition partition, BrokerContext broker)
            throws IOException {
        return answer(request, broker, leaderEpoch -> partition.produce(request, leaderEpoch, broker.nowMs()));
    }

    private Optional<ProduceResponse> answer(ProduceRequest request, BrokerContext broker, Leadership.Append append)
            throws IOException {
        ErrorCode refused = ClientRules.produceRefusal(request.partition(), request.records());
        CompletableFuture<ProduceResponse> answer = refused != ErrorCode.NONE
                ? CompletableFuture.completedFuture(ProduceResponse.error(request.partition(), refused))
                : broker.leadership().produce(request, checkedThen(request, broker, append));
        if (request.acks() == ProduceRequest.ACKS_NONE) {
            ProduceResponse response = answer.getNow(null);
            if (response != null && response.error() != ErrorCode.NONE) {
                throw new CloseConnectionException("an acks=0 produce to " + request.partition() + " failed with "
                        + response.error() + ": closing the connection is the only way to tell the producer");
            }
            return Optional.empty();
        }
        return Optional.of(broker.await(answer));
    }

    /**
     * Appends through the partition: one lookup when it exists; a new one is created (under
     * max.partitions) and, when its first produce fails, removed again, so a failed produce leaves
     * no directory behind.
     */
    private static CompletableFuture<ProduceResponse> findOrCreate(ProduceRequest request, int leaderEpoch,
                                                                   BrokerContext broker) throws IOException {
        Optional<Partition> existing = broker.existingPartition(request.partition());
        if (existing.isPresent()) {
            return existing.get().produce(request, leaderEpoch, broker.nowMs());
        }
        if (broker.leadership().creationRefusal().isPresent()) {
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
        CompletableFuture<ProduceResponse> answer = partition.produce(request, leaderEpoch, broker.nowMs());
        ProduceResponse now = answer.getNow(null);
        if (now != null && now.error() != ErrorCode.NONE) {
            broker.removeIfEmpty(request.partition());
        }
        return answer;
    }

    /**
     * {@code append}, run by the leadership once it let the produce in, after the checks that come
     * after the leadership's (Kafka's order: the leader and min.insync.replicas, then the batch):
     * the batch's size, then a later chapter's check.
     */
    private Leadership.Append checkedThen(ProduceRequest request, BrokerContext broker, Leadership.Append append) {
        return leaderEpoch -> {
            ErrorCode refused = MessageSizeLimit.refusal(request, broker.configs());
            if (refused == ErrorCode.NONE) {
                refused = validation.refusal(request, broker);
            }
            return refused != ErrorCode.NONE
                    ? CompletableFuture.completedFuture(ProduceResponse.error(request.partition(), refused))
                    : append.run(leaderEpoch);
        };
    }
}
