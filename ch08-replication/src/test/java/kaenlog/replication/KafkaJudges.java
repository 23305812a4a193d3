package kaenlog.replication;

import static kaenlog.testkit.KafkaFixtures.schedulerThatRunsNothing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.metadata.MetadataCache;
import org.apache.kafka.server.replica.Replica;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogOffsetMetadata;

/**
 * Kafka 4.1.1's own classes, called in isolation, as the judges of this chapter's properties:
 * {@code LeaderEpochFileCache} (kafka-storage) for the epoch lookup, and a follower's
 * {@code Replica} (kafka-server) for what a fetch records and when a follower is caught up. Each is
 * Kafka's code as it runs in a broker; only what it writes to disk or asks the metadata about is
 * stubbed, and nothing it answers depends on that.
 */
final class KafkaJudges {
    static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    private KafkaJudges() {
    }

    /**
     * An empty {@code LeaderEpochFileCache}, as a leader's log holds it. Its checkpoint file lives in
     * {@code dir} (Kafka creates it on open) but is never written or read: the cache keeps every entry
     * in memory, and the checkpoint only copies them to disk.
     */
    static LeaderEpochFileCache epochCache(Path dir) {
        try {
            return new LeaderEpochFileCache(ORDERS_0, new InMemoryCheckpoint(dir.resolve("leader-epoch-checkpoint")
                    .toFile()), schedulerThatRunsNothing(Scheduler.class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kafka's cache after the same {@code assign} calls as kaen-log's: its entries, as kaen-log's type. */
    static List<LeaderEpochCache.EpochEntry> entries(LeaderEpochFileCache cache) {
        return cache.epochEntries().stream().map(e -> new LeaderEpochCache.EpochEntry(e.epoch, e.startOffset)).toList();
    }

    /** Kafka's answer as the pair it puts on the wire, {@code (-1, -1)} for none. */
    static EpochEndOffset.Wire endOffsetFor(LeaderEpochFileCache cache, int epoch, long leo) {
        Map.Entry<Integer, Long> answer = cache.endOffsetFor(epoch, leo);
        return new EpochEndOffset.Wire(answer.getKey(), answer.getValue());
    }

    /**
     * The leader's record of one follower, Kafka's {@code org.apache.kafka.server.replica.Replica}:
     * {@code updateFetchStateOrThrow} on every fetch, {@code resetReplicaState} when a leader takes
     * over, {@code stateSnapshot().isCaughtUp} when the ISR is shrunk.
     */
    static Replica follower(int brokerId) {
        return new Replica(brokerId, ORDERS_0, noBrokerEpochs());
    }

    /**
     * One fetch, as Kafka's leader records it: the fetch offset is the follower's LEO. kaen-log counts
     * every fetch as reaching the leader's log end (it judges a follower by its last fetch only, a
     * documented difference), so Kafka is told the leader's log end was the fetch offset itself; then
     * Kafka's rule for the caught-up time is {@code max(lastCaughtUpTimeMs, fetch time)}.
     */
    static void fetch(Replica follower, long fetchOffset, long nowMs) {
        follower.updateFetchStateOrThrow(new LogOffsetMetadata(fetchOffset), 0L, nowMs, fetchOffset, -1L);
    }

    /**
     * Kafka's {@code isCaughtUp} on the time clause alone: kaen-log judges by time only (Kafka also
     * keeps a follower whose LEO equals the leader's, a documented difference), so Kafka is asked
     * about a leader log end that the follower has not reached.
     */
    static boolean caughtUpByTime(Replica follower, long nowMs) {
        long leo = follower.stateSnapshot().logEndOffset();
        return follower.stateSnapshot().isCaughtUp(leo + 1, nowMs, IsrState.REPLICA_LAG_TIME_MAX_MS);
    }

    /** The follower's LEO as Kafka's leader knows it: empty while it is {@code UNKNOWN_OFFSET} (-1). */
    static Optional<Long> knownLeo(Replica follower) {
        long leo = follower.stateSnapshot().logEndOffset();
        return leo < 0 ? Optional.empty() : Optional.of(leo);
    }

    /** A metadata cache that knows no broker epoch: the fetches here carry none (-1), so none is fenced. */
    private static MetadataCache noBrokerEpochs() {
        return (MetadataCache) Proxy.newProxyInstance(KafkaJudges.class.getClassLoader(),
                new Class<?>[] {MetadataCache.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getAliveBrokerEpoch")) {
                        return Optional.empty();
                    }
                    throw new UnsupportedOperationException("not asked by Replica: " + method.getName());
                });
    }

    /** The checkpoint of a cache that stays in memory: created (Kafka's constructor does), never written. */
    private static final class InMemoryCheckpoint extends LeaderEpochCheckpointFile {
        InMemoryCheckpoint(File file) throws IOException {
            super(file, new LogDirFailureChannel(1));
        }

        @Override
        public void write(Collection<EpochEntry> epochs) {
        }

        @Override
        public void writeIfDirExists(Collection<EpochEntry> epochs) {
        }

        @Override
        public List<EpochEntry> read() {
            return List.of();
        }
    }
}
