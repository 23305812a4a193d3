package kaenlog.cluster;

import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;
import kaenlog.replication.Cluster;
import kaenlog.replication.EpochEndOffset;
import kaenlog.replication.Replica;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.OffsetsForLeaderEpoch;

/**
 * A follower's fetcher for one partition and one leader epoch (Kafka's {@code ReplicaFetcherThread},
 * which serves many partitions of one leader; here one partition each). It first reconciles the
 * follower's log with the leader's by epoch (task 7 (EpochTruncationTest): KIP-279, never by the
 * high watermark), then fetches in a loop, each response applied with chapter 8's follower rule: the
 * leader's bytes appended as they are, the high watermark taken from the response. A newer state
 * (another leader, a newer epoch) closes this fetcher and starts another.
 */
public final class ReplicaFetcher implements Runnable, Closeable {
    /** What a follower needs of its leader: chapter 3's fetch and the OffsetsForLeaderEpoch question. */
    public interface LeaderEndpoint extends Closeable {
        FetchResponse fetch(FetchRequest request) throws IOException;

        OffsetsForLeaderEpoch.Response offsetsForLeaderEpoch(OffsetsForLeaderEpoch.Request request) throws IOException;
    }

    /** Connects to the leader (again, after a failure); a broker's fetchers connect over TCP. */
    @FunctionalInterface
    public interface Connector {
        LeaderEndpoint connect() throws IOException;
    }

    /** What one fetch led to, and so what the fetcher does next. */
    public enum Outcome {
        /** The response was applied (with or without records): fetch again at once. */
        FETCHED,
        /** A transient refusal (the leader has not learnt this epoch yet): fetch again after a pause. */
        RETRY,
        /** The follower's log no longer fits the leader's (an offset out of range): truncate by epoch again. */
        TRUNCATE,
        /** This follower's view is stale (fenced, or the leader no longer leads): wait for a newer state. */
        STOP
    }

    private final Replica replica;
    private final String partition;
    private final int leaderEpoch;
    private final Connector connector;
    private final FetcherConfig config;
    private final Failures failures;
    private volatile LeaderEndpoint leader;
    private volatile boolean closed;
    private Thread thread;

    /** How a fetcher fetches: Kafka's replica.fetch.* configs. */
    public record FetcherConfig(int maxBytes, int maxWaitMs, long backoffMs) {
    }

    /** Where a fetcher reports what failed in its thread (the broker's log; a test keeps the first). */
    @FunctionalInterface
    public interface Failures {
        void failed(String partition, Throwable failure);
    }

    public ReplicaFetcher(Replica replica, String partition, int leaderEpoch, Connector connector,
                          FetcherConfig config, Failures failures) {
        this.replica = replica;
        this.partition = partition;
        this.leaderEpoch = leaderEpoch;
        this.connector = connector;
        this.config = config;
        this.failures = failures;
    }

    /**
     * One fetch: ask the leader from this replica's log end offset (what it holds next), naming the
     * leader epoch it follows; apply a good response with chapter 8's rule; and say what comes next
     * for an error. FENCED_LEADER_EPOCH and NOT_LEADER_OR_FOLLOWER mean this follower's state is
     * stale: fetching again with it is pointless, a newer state will come. UNKNOWN_LEADER_EPOCH means
     * the leader is the one behind: retry. OFFSET_OUT_OF_RANGE means the logs diverged since the
     * truncation: truncate by epoch again. Any other error: retry after a pause.
     */
    public Outcome fetchOnce(LeaderEndpoint leader) throws IOException {
        // BEGIN-SOLUTION ch10 task 11: fetch from my LEO with my epoch; apply, or decide what an error means (ReplicaFetcherTest)
        FetchRequest request = new FetchRequest(replica.id(), partition, replica.leo(), config.maxBytes(),
                config.maxWaitMs(), leaderEpoch);
        FetchResponse response = leader.fetch(request);
        return switch (response.error()) {
            case NONE -> {
                Cluster.applyFetchResponse(replica, response);
                yield Outcome.FETCHED;
            }
            case FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER -> Outcome.STOP;
            case OFFSET_OUT_OF_RANGE -> Outcome.TRUNCATE;
            default -> Outcome.RETRY;
        };
        // END-SOLUTION
    }

    /**
     * The truncation of task 7 (EpochTruncationTest), asking this leader over the wire: each question names the epoch asked
     * about and the leader epoch this follower follows (checked as a fetch's is).
     */
    public EpochTruncation.Result truncate(LeaderEndpoint leader) throws IOException {
        return EpochTruncation.truncate(replica, epoch -> {
            OffsetsForLeaderEpoch.Response answer = leader.offsetsForLeaderEpoch(
                    new OffsetsForLeaderEpoch.Request(replica.id(), partition, leaderEpoch, epoch));
            if (answer.error() != ErrorCode.NONE) {
                throw new LeaderRefusedException(partition, answer.error());
            }
            return EpochEndOffset.fromWire(answer.leaderEpoch(), answer.endOffset());
        });
    }

    /**
     * After a fetch is applied, the follower moves its log start to the leader's, as Kafka's
     * {@code ReplicaFetcherThread.processPartitionData} does after the high watermark
     * ({@code maybeIncrementLogStartOffset(leaderLogStartOffset, LeaderOffsetIncremented)}): a
     * DeleteRecords answered by the leader reaches every replica in its fetch answers. Never past this
     * replica's own high watermark: Kafka's log refuses that (its {@code maybeIncrementLogStartOffset}
     * throws in the fetcher); here a follower behind waits, and gets there on a later round.
     */
    private void followLeaderLogStart(long leaderLogStart) throws IOException {
        replica.partition().locked(log -> {
            long to = Math.min(leaderLogStart, log.highWatermark());
            return to > log.logStartOffset() ? log.advanceLogStartOffset(to) : log.logStartOffset();
        });
    }

    /** The leader's endpoint, keeping the log start offset of its last answer without an error. */
    private static final class LogStartRecording implements LeaderEndpoint {
        private final LeaderEndpoint leader;
        private long leaderLogStart = -1;

        LogStartRecording(LeaderEndpoint leader) {
            this.leader = leader;
        }

        @Override
        public FetchResponse fetch(FetchRequest request) throws IOException {
            FetchResponse response = leader.fetch(request);
            if (response.error() == ErrorCode.NONE) {
                leaderLogStart = response.logStartOffset();
            }
            return response;
        }

        @Override
        public OffsetsForLeaderEpoch.Response offsetsForLeaderEpoch(OffsetsForLeaderEpoch.Request request)
                throws IOException {
            return leader.offsetsForLeaderEpoch(request);
        }

        @Override
        public void close() throws IOException {
            leader.close();
        }
    }

    /** The leader refused a question: this fetcher waits, then asks again (or a newer state ends it). */
    public static final class LeaderRefusedException extends IOException {
        private final transient ErrorCode error;

        LeaderRefusedException(String partition, ErrorCode error) {
            super("the leader of " + partition + " answered " + error);
            this.error = error;
        }

        public ErrorCode error() {
            return error;
        }
    }

    /** Starts the fetcher's thread. */
    public void start(String threadName) {
        thread = new Thread(this, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Truncates, then fetches until closed. A failure (the leader unreachable, a refusal, a bug) is
     * reported, the connection dropped, and after {@code backoffMs} it starts again from the
     * truncation: a follower never appends after a failure it has not reconciled.
     */
    @Override
    public void run() {
        boolean truncated = false;
        while (!closed) {
            try {
                if (leader == null) {
                    leader = new LogStartRecording(connector.connect());
                    if (closed) {
                        dropConnection(); // closed while connecting: close() did not see this connection
                        return;
                    }
                }
                if (!truncated) {
                    truncate(leader);
                    truncated = true;
                }
                Outcome outcome = fetchOnce(leader);
                if (outcome == Outcome.FETCHED) {
                    followLeaderLogStart(((LogStartRecording) leader).leaderLogStart);
                }
                if (outcome == Outcome.TRUNCATE) {
                    truncated = false;
                } else if (outcome != Outcome.FETCHED) {
                    pause();
                }
            } catch (IOException | RuntimeException failure) {
                if (closed) {
                    return;
                }
                failures.failed(partition, failure);
                dropConnection();
                truncated = false;
                pause();
            }
        }
    }

    /** Waits {@code backoffMs}, or less when closed: never by an interrupt, which would close the log's files under an append. */
    private synchronized void pause() {
        if (closed) {
            return;
        }
        try {
            wait(config.backoffMs());
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    private void dropConnection() {
        LeaderEndpoint dropped = leader;
        leader = null;
        if (dropped != null) {
            try {
                dropped.close();
            } catch (IOException ignored) {
                // already broken
            }
        }
    }

    /** Stops the fetcher and waits until its thread has stopped: no append of it comes after this returns. */
    @Override
    public void close() {
        closed = true;
        LeaderEndpoint open = leader;
        if (open != null) {
            try {
                open.close(); // a fetch parked on the leader returns now
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        synchronized (this) {
            notifyAll(); // out of a pause
        }
        if (thread != null && thread != Thread.currentThread()) {
            // Not interrupted: an interrupt in the middle of an append closes the segment's FileChannel
            // (ClosedByInterruptException) and takes the partition offline. Closing the connection
            // ends a parked fetch; the append in progress, if any, finishes first.
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    public Optional<Thread> thread() {
        return Optional.ofNullable(thread);
    }
}
