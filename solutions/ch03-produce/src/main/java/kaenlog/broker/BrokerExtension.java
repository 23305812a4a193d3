package kaenlog.broker;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.cli.Services;
import kaenlog.log.Log;

/**
 * What a chapter adds to the running broker besides request handlers: the configs it understands,
 * the internal partitions it needs with their configs, and work the broker runs on a schedule.
 * Found like {@link RequestHandler}s, with {@code ServiceLoader}
 * ({@code META-INF/services/kaenlog.broker.BrokerExtension}), so chapter 3's broker never names a
 * later chapter's class: chapter 6 brings retention, the cleaner and the group offsets partition.
 */
public interface BrokerExtension {
    /** The configs this chapter reads, with Kafka's names and defaults. */
    default List<ConfigKey> configKeys() {
        return List.of();
    }

    /**
     * Partitions the broker keeps for itself (their names start with {@code __}), each with the
     * configs it is created with, e.g. {@code __consumer_offsets-0} with {@code cleanup.policy=compact}.
     */
    default Map<String, Map<String, String>> internalPartitions() {
        return Map.of();
    }

    /** Work the broker runs on a schedule of its own time, e.g. chapter 6's retention check. */
    default List<BackgroundTask> backgroundTasks() {
        return List.of();
    }

    /**
     * A step in front of every leader append to {@code partition}'s log, with the state it keeps for
     * that log, made anew each time the broker opens the partition (chapter 7: the producer state and
     * the idempotent append). At most one extension on the classpath gives one.
     */
    default Optional<Log.AppendHook> appendHook(String partition) {
        return Optional.empty();
    }

    /**
     * A later chapter's step around the one {@link #appendHook} gave {@code partition} (chapter 11:
     * transactions on top of chapter 7's producer state), or empty to leave it as it is. At most one
     * extension on the classpath wraps a partition's hook.
     */
    default Optional<Log.AppendHook> wrapAppendHook(String partition, Log.AppendHook inner) {
        return Optional.empty();
    }

    /**
     * Files this chapter keeps in the data directory itself, beside the partitions' directories
     * (chapter 10: {@code replication-offset-checkpoint}), so the broker does not report them as
     * strays. Their {@code .tmp} twins (a checkpoint being replaced) are the chapter's too.
     */
    default java.util.Set<String> dataDirFiles() {
        return java.util.Set.of();
    }

    /**
     * Whether clients may produce transactional batches (attributes bit 0x10) once this chapter is on
     * the classpath: chapter 11 builds transactions (a coordinator that ends them with markers), and
     * until a chapter does, {@link ClientRules} refuses them.
     */
    default boolean takesTransactionalBatches() {
        return false;
    }

    /**
     * Called once the broker is built, before it opens its partitions and answers anyone: what an
     * extension must know of the broker it serves before the first request (chapter 6's coordinator:
     * whether it is a cluster member, which coordinates no group until it has joined).
     */
    default void opened(BrokerContext broker) {
    }

    /** Every extension on the classpath, in a stable order (by class name). */
    static List<BrokerExtension> load() {
        return Services.load(BrokerExtension.class);
    }
}
