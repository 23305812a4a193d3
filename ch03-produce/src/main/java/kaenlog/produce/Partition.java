package kaenlog.produce;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import kaenlog.batch.CorruptBatchException;
import kaenlog.log.AppendInfo;
import kaenlog.log.BatchTooLargeException;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.OffsetOutOfRangeException;
import kaenlog.workbook.Todo;

/**
 * One partition on a broker: its log behind a lock (connections run on their own threads), the
 * fetches parked until data arrives, and the acks=all produces waiting for their replicas.
 *
 * <p>Time is a parameter: a parked fetch waits until {@code nowMs + maxWaitMs}, and only
 * {@link #tick(long)} decides that moment has come. Tests and demos pass the time they want;
 * {@code klog serve} ticks it forward.
 */
public final class Partition implements Closeable {
    private final String name;
    private final Log log;
    private final ReentrantLock lock = new ReentrantLock();
    private ReplicaGate gate;
    private final List<Parked> parkedFetches = new ArrayList<>();
    private final List<Pending> pendingProduces = new ArrayList<>();

    /** A fetch waiting for data, or for its deadline. */
    private record Parked(FetchRequest request, long deadlineMs, CompletableFuture<FetchResponse> answer) {
    }

    /** An acks=all produce waiting for enough replicas, or for its timeout. */
    private record Pending(ProduceResponse response, long requiredOffset, long deadlineMs,
                           CompletableFuture<ProduceResponse> answer) {
    }

    /** Work to do after the lock is released: completing a future runs whoever waits on it. */
    private record Completion<T>(CompletableFuture<T> future, T value) {
        void run() {
            future.complete(value);
        }
    }

    private Partition(String name, Log log) {
        this.name = name;
        this.log = log;
        // One replica: enough replicas have an offset as soon as the (eager) high watermark passed it.
        this.gate = requiredOffset -> log.highWatermark() >= requiredOffset;
    }

    public static Partition open(String name, Path dir, LogConfig config) throws IOException {
        return new Partition(name, Log.open(dir, config));
    }

    public String name() {
        return name;
    }

    /** Something to do with the log while holding the partition's lock. */
    public interface LogAction<T> {
        T apply(Log log) throws IOException;
    }

    /**
     * Runs {@code action} on the log under the lock, then answers the parked fetches and pending
     * produces that its changes (an append, a new high watermark) have satisfied.
     */
    public <T> T locked(LogAction<T> action) throws IOException {
        List<Completion<?>> done;
        T result;
        lock.lock();
        try {
            result = action.apply(log);
            done = wake();
        } finally {
            lock.unlock();
        }
        done.forEach(Completion::run);
        return result;
    }

    /** Chapter 8 replaces the one-replica gate with one that asks the ISR. */
    public void setReplicaGate(ReplicaGate gate) {
        lock.lock();
        try {
            this.gate = gate;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Appends a producer's batch; the leader assigns the offsets. The returned future completes when
     * the producer is to be answered: at once for acks=0 (whose answer the broker never sends) and
     * acks=1, and for acks=all once the replica gate says enough replicas have the batch (or its
     * timeout passes). "acks changes when you are answered, never what is written."
     */
    public CompletableFuture<ProduceResponse> produce(ProduceRequest request, long nowMs) throws IOException {
        return locked(log -> {
            throw new Todo("ch03 task 7: acks decide when you are answered, never what is written (ProduceTest)");
        });
    }

    /**
     * Reads for a consumer or a follower. With data (or an error, or maxWaitMs 0) the future is
     * complete at once; with nothing to return yet the fetch is parked: it completes when an
     * append or a new high watermark gives it data, or, empty, at its deadline (see {@link #tick}).
     */
    public CompletableFuture<FetchResponse> fetch(FetchRequest request, long nowMs) throws IOException {
        return locked(log -> {
            throw new Todo("ch03 task 8: answer now, or park until data or the deadline (FetchParkingTest)");
        });
    }

    /** Time has reached {@code nowMs}: parked fetches past their deadline are answered empty, late produces time out. */
    public void tick(long nowMs) throws IOException {
        List<Completion<?>> done = new ArrayList<>();
        lock.lock();
        try {
            expireParkedFetches(nowMs, done);
            for (Iterator<Pending> it = pendingProduces.iterator(); it.hasNext(); ) {
                Pending pending = it.next();
                if (pending.deadlineMs() <= nowMs) {
                    it.remove();
                    done.add(new Completion<>(pending.answer(), ProduceResponse.error(name, ErrorCode.REQUEST_TIMED_OUT)));
                }
            }
        } finally {
            lock.unlock();
        }
        done.forEach(Completion::run);
    }

    /** Moves the high watermark (chapter 8's leader and follower) and wakes whoever waited for it. */
    public void updateHighWatermark(long hw) throws IOException {
        locked(log -> {
            log.updateHighWatermark(hw);
            return null;
        });
    }

    /** Called with the lock held after every change: who can be answered now? */
    private List<Completion<?>> wake() throws IOException {
        List<Completion<?>> done = new ArrayList<>();
        answerParkedFetchesWithData(done);
        for (Iterator<Pending> it = pendingProduces.iterator(); it.hasNext(); ) {
            Pending pending = it.next();
            if (gate.checkEnoughReplicasReached(pending.requiredOffset())) {
                it.remove();
                done.add(new Completion<>(pending.answer(), pending.response()));
            }
        }
        return done;
    }

    /** Parked fetches whose deadline has come are answered with what there is (usually nothing). */
    private void expireParkedFetches(long nowMs, List<Completion<?>> done) throws IOException {
        if (parkedFetches.isEmpty()) {
            return;
        }
        throw new Todo("ch03 task 8: expire parked fetches at their deadline (FetchParkingTest)");
    }

    /** Parked fetches that would now read something are answered with it. */
    private void answerParkedFetchesWithData(List<Completion<?>> done) throws IOException {
        if (parkedFetches.isEmpty()) {
            return;
        }
        throw new Todo("ch03 task 8: a parked fetch completes when data arrives (FetchParkingTest)");
    }

    /**
     * One read with the request's isolation; an offset out of range is an error answer that still
     * carries the high watermark and the log start offset.
     */
    private FetchResponse read(Log log, FetchRequest request) throws IOException {
        try {
            ByteBuffer records = log.read(request.fetchOffset(), request.maxBytes(), request.isolation());
            return new FetchResponse(name, ErrorCode.NONE, log.highWatermark(), log.logStartOffset(), records);
        } catch (OffsetOutOfRangeException e) {
            // The bounds go with the error, so a consumer can start again where the log now starts.
            return new FetchResponse(name, ErrorCode.OFFSET_OUT_OF_RANGE, log.highWatermark(), log.logStartOffset(),
                    ByteBuffer.allocate(0));
        }
    }

    public int parkedFetchCount() {
        lock.lock();
        try {
            return parkedFetches.size();
        } finally {
            lock.unlock();
        }
    }

    /** Closes the log; whoever still waits for a parked fetch or a pending produce is told so. */
    @Override
    public void close() throws IOException {
        List<CompletableFuture<?>> waiting = new ArrayList<>();
        lock.lock();
        try {
            parkedFetches.forEach(p -> waiting.add(p.answer()));
            pendingProduces.forEach(p -> waiting.add(p.answer()));
            parkedFetches.clear();
            pendingProduces.clear();
            log.close();
        } finally {
            lock.unlock();
        }
        waiting.forEach(f -> f.completeExceptionally(new IOException("partition " + name + " closed")));
    }
}
