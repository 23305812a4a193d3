package kaenlog.broker;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.log.AbortedTransaction;
import kaenlog.log.AppendInfo;
import kaenlog.log.BatchTooLargeException;
import kaenlog.log.CorruptRecordException;
import kaenlog.log.FetchIsolation;
import kaenlog.log.FileSlice;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.LostDataException;
import kaenlog.log.OffsetOutOfRangeException;
import kaenlog.log.ReadOnlyLogException;
import kaenlog.log.StorageException;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

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
    /** Null when the partition could not be opened: it is offline from the start. */
    private final Log log;
    /** The broker's log: what opening recovered, and the one line that says the partition went offline. */
    private final Consumer<String> events;
    private volatile boolean offline;
    /** Guarded by the lock: set by {@link #close}; the ticker may still hold the partition, and ignores it. */
    private boolean closed;
    /** Why the partition could not be opened, when it could not. */
    private StorageException openFailure;
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

    private Partition(String name, Log log, Consumer<String> events) {
        this.name = name;
        this.log = log;
        this.events = events;
        this.offline = log == null;
        // One replica: enough replicas have an offset as soon as the (eager) high watermark passed it.
        this.gate = requiredOffset -> log.highWatermark() >= requiredOffset;
    }

    public static Partition open(String name, Path dir, LogConfig config) throws IOException {
        return open(name, dir, config, line -> { });
    }

    /** Opens the partition's log and tells {@code events} (the broker's log) what opening recovered or removed. */
    public static Partition open(String name, Path dir, LogConfig config, Consumer<String> events) throws IOException {
        return open(name, dir, config, false, events);
    }

    /** As {@link #open(String, Path, LogConfig, Consumer)}; {@code acceptDataLoss}: see {@link Log#open(Path, LogConfig, boolean)}. */
    public static Partition open(String name, Path dir, LogConfig config, boolean acceptDataLoss,
                                 Consumer<String> events) throws IOException {
        Log log = Log.open(dir, config, acceptDataLoss);
        log.openEvents().forEach(line -> events.accept("partition " + name + ": " + line));
        return new Partition(name, log, events);
    }

    /**
     * As {@link #open(String, Path, LogConfig, Consumer)}, but a partition that cannot be opened
     * (its files unreadable, damaged where they may hold acknowledged records) is returned offline:
     * one line in the broker's log says why, and every request for it is answered STORAGE_ERROR.
     * The broker keeps it so, without retrying, until it restarts (Kafka: an offline log directory).
     */
    public static Partition openOrOffline(String name, Path dir, LogConfig config, Consumer<String> events) {
        return openOrOffline(name, dir, config, false, events);
    }

    /**
     * As {@link #openOrOffline(String, Path, LogConfig, Consumer)}. Files that hold fewer offsets than
     * the partition wrote ({@link LostDataException}) take it offline too, with one line naming the
     * missing offsets and how to accept the loss; with {@code acceptDataLoss} it opens past them.
     */
    public static Partition openOrOffline(String name, Path dir, LogConfig config, boolean acceptDataLoss,
                                          Consumer<String> events) {
        try {
            return open(name, dir, config, acceptDataLoss, events);
        } catch (IOException | RuntimeException e) {
            events.accept("partition " + name + " is offline: " + (e instanceof LostDataException
                    ? e.getMessage() + "; writes are refused and every request for it is answered STORAGE_ERROR;"
                    + " to accept the loss: klog serve --accept-data-loss " + name
                    : "it cannot be opened: " + e.getClass().getSimpleName() + ": " + e.getMessage()));
            Partition offline = new Partition(name, null, events);
            offline.openFailure = new StorageException(dir, e instanceof IOException io ? io : new IOException(e));
            return offline;
        }
    }

    /** True once a storage error took the partition offline (or it never opened). */
    public boolean isOffline() {
        return offline;
    }

    /**
     * The error code for a storage failure thrown by the log (for a handler of a later chapter that
     * appends through {@link #locked}): READ_ONLY_STORAGE for a refused write to a read-only log,
     * else STORAGE_ERROR, the partition offline and the broker told once.
     */
    public ErrorCode storageError(IOException e) {
        if (e instanceof ReadOnlyLogException) {
            return ErrorCode.READ_ONLY_STORAGE;
        }
        return wentOffline(e instanceof StorageException storage ? storage : new StorageException(Path.of(name), e));
    }

    /**
     * A write failed: the log is offline already (fail-stop, in {@link Log}); the broker's log
     * gets one line naming the partition, the file and the cause; the answer is STORAGE_ERROR.
     */
    private ErrorCode wentOffline(StorageException e) {
        boolean first;
        synchronized (this) {
            first = !offline;
            offline = true;
        }
        if (first) {
            events.accept("partition " + name + " is offline (fail-stop): " + e.getMessage()
                    + "; every request for it is answered STORAGE_ERROR until the broker restarts");
        }
        return ErrorCode.STORAGE_ERROR;
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
        if (log == null) {
            throw new StorageException(openFailure.file(), openFailure);
        }
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

    /**
     * Puts a later chapter's step in front of every leader append of this partition's log (chapter 7:
     * its producer state and the idempotent append; see {@link Log.AppendHook}). An offline partition
     * has no log and keeps none.
     */
    public void setAppendHook(Log.AppendHook hook) {
        if (log == null) {
            return;
        }
        lock.lock();
        try {
            log.setAppendHook(hook);
        } finally {
            lock.unlock();
        }
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
        return produce(request, BatchHeader.NO_PARTITION_LEADER_EPOCH, nowMs);
    }

    /**
     * {@link #produce(ProduceRequest, long)} by the leader of {@code leaderEpoch}: the log stamps the
     * batch with it as it appends (-1: none, a broker alone). A cluster's leader passes its epoch
     * (chapter 10), so that a follower that copies the batch learns where each epoch starts.
     */
    public CompletableFuture<ProduceResponse> produce(ProduceRequest request, int leaderEpoch, long nowMs)
            throws IOException {
        if (offline) {
            return CompletableFuture.completedFuture(ProduceResponse.error(name, ErrorCode.STORAGE_ERROR));
        }
        try {
            return produceLocked(request, leaderEpoch, nowMs);
        } catch (ReadOnlyLogException | StorageException failed) {
            return CompletableFuture.completedFuture(ProduceResponse.error(name, storageError(failed)));
        } catch (ProduceRefusedException refused) {
            return CompletableFuture.completedFuture(ProduceResponse.error(name, refused.error()));
        }
    }

    private CompletableFuture<ProduceResponse> produceLocked(ProduceRequest request, int leaderEpoch, long nowMs)
            throws IOException {
        return locked(log -> {
            // BEGIN-SOLUTION ch03 task 7: acks decide when you are answered, never what is written (ProduceTest)
            CompletableFuture<ProduceResponse> answer = new CompletableFuture<>();
            AppendInfo appended;
            try {
                appended = log.append(request.records(), leaderEpoch);
            } catch (CorruptBatchException e) {
                return CompletableFuture.completedFuture(ProduceResponse.error(name, ErrorCode.CORRUPT_BATCH));
            } catch (BatchTooLargeException tooLarge) {
                return CompletableFuture.completedFuture(ProduceResponse.error(name, ErrorCode.BATCH_TOO_LARGE));
            }
            ProduceResponse response = new ProduceResponse(name, ErrorCode.NONE, appended.firstOffset(),
                    appended.lastOffset());
            if (request.acks() != ProduceRequest.ACKS_ALL) {
                answer.complete(response);
            } else {
                pendingProduces.add(new Pending(response, appended.lastOffset() + 1,
                        nowMs + request.timeoutMs(), answer));
            }
            return answer;
            // END-SOLUTION
        });
    }

    /**
     * Reads for a consumer or a follower. With data (or an error, or maxWaitMs 0) the future is
     * complete at once; with nothing to return yet the fetch is parked: it completes when an
     * append or a new high watermark gives it data, or, empty, at its deadline (see {@link #tick}).
     */
    public CompletableFuture<FetchResponse> fetch(FetchRequest request, long nowMs) throws IOException {
        if (offline) {
            return CompletableFuture.completedFuture(FetchResponse.error(name, ErrorCode.STORAGE_ERROR));
        }
        try {
            return fetchLocked(request, nowMs);
        } catch (StorageException failed) {
            return CompletableFuture.completedFuture(FetchResponse.error(name, wentOffline(failed)));
        }
    }

    private CompletableFuture<FetchResponse> fetchLocked(FetchRequest request, long nowMs) throws IOException {
        return locked(log -> {
            // BEGIN-SOLUTION ch03 task 8: answer now, or park until data or the deadline (FetchParkingTest)
            FetchResponse now = read(log, request);
            if (now.error() != ErrorCode.NONE || now.records().hasRemaining() || request.maxWaitMs() == 0) {
                return CompletableFuture.completedFuture(now);
            }
            CompletableFuture<FetchResponse> answer = new CompletableFuture<>();
            parkedFetches.add(new Parked(request, nowMs + request.maxWaitMs(), answer));
            return answer;
            // END-SOLUTION
        });
    }

    /**
     * Time has reached {@code nowMs}: parked fetches past their deadline are answered empty, late
     * produces time out. A closed partition has nothing left to time out.
     */
    public void tick(long nowMs) throws IOException {
        if (log == null) {
            return;
        }
        List<Completion<?>> done = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (!offline) {
                try {
                    log.maybeFlush(nowMs); // flush.ms
                } catch (StorageException failed) {
                    wentOffline(failed);
                }
            }
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
        forceRolledSegments();
        finishDeletions();
    }

    /**
     * The {@code fsync} of the segments a roll closed, done here on the ticker's thread WITHOUT the
     * partition's lock (Kafka's "flush-log" task): forcing a closed segment of 128 MiB under the lock
     * held every produce and fetch of the partition for 65 ms or more at each roll. The recovery
     * point's file is written without the lock too; only the point in memory moves under it, once
     * both are done (see {@link Log.PendingFlush}).
     */
    private void forceRolledSegments() {
        Optional<Log.PendingFlush> pending = pendingUnderLock(Log::pendingFlush);
        if (pending.isEmpty()) {
            return;
        }
        IOException failure = null;
        try {
            pending.get().force();
            log.checkpointFlushed(pending.get());
        } catch (IOException e) {
            if (Thread.currentThread().isInterrupted()) {
                return; // the broker stops its ticker with an interrupt: nothing failed, the log's close flushes
            }
            failure = e;
        }
        IOException failed = failure;
        reportUnderLock(log -> {
            log.completeFlush(pending.get(), failed);
            return null;
        });
    }

    /** Work the log left for later, taken under the lock; none for a closed or offline partition. */
    private <P> Optional<P> pendingUnderLock(Function<Log, Optional<P>> pending) {
        lock.lock();
        try {
            return closed || offline ? Optional.empty() : pending.apply(log);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Tells the log, under the lock, how work done without it went (a closed partition is told
     * nothing); a storage failure it reports takes the partition offline (fail-stop).
     */
    private void reportUnderLock(LogAction<Void> report) {
        lock.lock();
        try {
            if (!closed) {
                report.apply(log);
            }
        } catch (StorageException failed) {
            wentOffline(failed);
        } catch (IOException e) {
            wentOffline(new StorageException(log.dir(), e));
        } finally {
            lock.unlock();
        }
    }

    /**
     * What retention (or a new log start offset: a follower following its leader's, a DeleteRecords)
     * left undone under the partition's lock, done here WITHOUT it (Kafka's "delete-file" task and its
     * log start checkpoint): the log start offset's checkpoint forced, then the files renamed
     * {@code .deleted} unlinked (see {@link Log.PendingDeletion}). Under the lock, the checkpoint's
     * {@code fsync} and the unlink of a 128 MiB segment held every produce and fetch of the
     * partition for 69 ms, and a follower's fetcher for 135-143 ms. The ticker calls it after every
     * tick, retention right after it deleted; a failure takes the partition offline (fail-stop).
     */
    public void finishDeletions() {
        if (log == null) {
            return;
        }
        Optional<Log.PendingDeletion> pending = pendingUnderLock(Log::pendingDeletion);
        if (pending.isEmpty()) {
            return;
        }
        try {
            log.finishDeletion(pending.get());
        } catch (IOException e) {
            if (Thread.currentThread().isInterrupted()) {
                return; // the broker stops its ticker with an interrupt: the log's close writes the checkpoint
            }
            reportUnderLock(log -> {
                log.deletionFailed(e);
                return null;
            });
        }
    }

    /**
     * Asks the replica gate again about every waiting acks=all produce (chapter 10: the ISR changed,
     * or this broker stopped leading, without anything written to the log).
     */
    public void wakeWaiting() throws IOException {
        locked(log -> null);
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
            Optional<ErrorCode> answer = gate.answer(pending.requiredOffset());
            if (answer.isPresent()) {
                it.remove();
                done.add(new Completion<>(pending.answer(), answer.get() == ErrorCode.NONE ? pending.response()
                        : ProduceResponse.error(name, answer.get())));
            }
        }
        return done;
    }

    /** Parked fetches whose deadline has come are answered with what there is (usually nothing). */
    private void expireParkedFetches(long nowMs, List<Completion<?>> done) throws IOException {
        if (parkedFetches.isEmpty()) {
            return;
        }
        // BEGIN-SOLUTION ch03 task 8: expire parked fetches at their deadline (FetchParkingTest)
        for (Iterator<Parked> it = parkedFetches.iterator(); it.hasNext(); ) {
            Parked parked = it.next();
            if (parked.deadlineMs() <= nowMs) {
                it.remove();
                done.add(new Completion<>(parked.answer(), read(log, parked.request())));
            }
        }
        // END-SOLUTION
    }

    /** Parked fetches that would now read something are answered with it. */
    private void answerParkedFetchesWithData(List<Completion<?>> done) throws IOException {
        if (parkedFetches.isEmpty()) {
            return;
        }
        // BEGIN-SOLUTION ch03 task 8: a parked fetch completes when data arrives (FetchParkingTest)
        for (Iterator<Parked> it = parkedFetches.iterator(); it.hasNext(); ) {
            Parked parked = it.next();
            FetchResponse now = read(log, parked.request());
            if (now.error() != ErrorCode.NONE || now.records().hasRemaining()) {
                it.remove();
                done.add(new Completion<>(parked.answer(), now));
            }
        }
        // END-SOLUTION
    }

    /**
     * One read with the request's isolation; an offset out of range is an error answer that still
     * carries the high watermark and the log start offset. A stored batch that fails its checks is
     * answered CORRUPT_BATCH with that batch's bytes: the reader learns which offsets are damaged
     * (and may skip them) instead of being served them as good.
     */
    private FetchResponse read(Log log, FetchRequest request) throws IOException {
        try {
            ByteBuffer records = log.read(request.fetchOffset(), request.maxBytes(), request.isolation());
            return new FetchResponse(name, ErrorCode.NONE, log.highWatermark(), log.logStartOffset(), records);
        } catch (OffsetOutOfRangeException e) {
            // The bounds go with the error, so a consumer can start again where the log now starts.
            return new FetchResponse(name, ErrorCode.OFFSET_OUT_OF_RANGE, log.highWatermark(), log.logStartOffset(),
                    ByteBuffer.allocate(0));
        } catch (CorruptRecordException e) {
            return new FetchResponse(name, ErrorCode.CORRUPT_BATCH, log.highWatermark(), log.logStartOffset(), e.batch());
        } catch (StorageException e) {
            return FetchResponse.error(name, wentOffline(e)); // a parked fetch re-read after the failure, too
        }
    }

    /**
     * Given code, the zero-copy twin of {@link #fetch}: the same read, answered at once (never
     * parked), with the records as file ranges a connection sends with transferTo
     * ({@link FileSlice}); {@code minOneMessage} as Kafka's (only the first partition of a fetch
     * with data may exceed its limits, by one batch). The broker's fetch, on both ports
     * ({@link FetchHandler#readOrPark}), tries this first and parks through {@link #fetch} only when
     * it finds nothing.
     */
    public FetchSlice slice(FetchRequest request, boolean minOneMessage) throws IOException {
        if (offline || log == null) {
            return FetchSlice.error(name, ErrorCode.STORAGE_ERROR);
        }
        lock.lock();
        try {
            FileSlice records = FileSlice.read(log, request.fetchOffset(), request.maxBytes(), request.isolation(),
                    minOneMessage);
            // Chapter 11: a read_committed fetch gets the aborted transactions of what it read (Kafka's
            // LocalLog.read with includeAbortedTxns), the range ending after its last batch.
            List<AbortedTransaction> aborted = null;
            try {
                if (request.isolation() == FetchIsolation.TXN_COMMITTED) {
                    aborted = records.nextOffset() < 0 ? List.of()
                            : log.abortedTransactions(request.fetchOffset(), records.nextOffset());
                }
            } catch (IOException | RuntimeException e) {
                records.close();
                throw e;
            }
            return new FetchSlice(name, ErrorCode.NONE, log.highWatermark(), log.logStartOffset(), records, null,
                    log.lastStableOffset(), aborted);
        } catch (OffsetOutOfRangeException e) {
            return new FetchSlice(name, ErrorCode.OFFSET_OUT_OF_RANGE, log.highWatermark(), log.logStartOffset(),
                    FileSlice.EMPTY, null);
        } catch (CorruptRecordException e) {
            return new FetchSlice(name, ErrorCode.CORRUPT_BATCH, log.highWatermark(), log.logStartOffset(),
                    FileSlice.EMPTY, e.batch());
        } catch (StorageException e) {
            return FetchSlice.error(name, wentOffline(e));
        } finally {
            lock.unlock();
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
            closed = true;
            parkedFetches.forEach(p -> waiting.add(p.answer()));
            pendingProduces.forEach(p -> waiting.add(p.answer()));
            parkedFetches.clear();
            pendingProduces.clear();
            if (log != null) {
                log.close();
            }
        } finally {
            lock.unlock();
        }
        waiting.forEach(f -> f.completeExceptionally(new IOException("partition " + name + " closed")));
    }
}
