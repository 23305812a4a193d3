package kaenlog.txn;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import kaenlog.log.BatchTooLargeException;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * Kafka's transaction coordinator (KIP-98): for each transactional id, the one producer allowed to
 * use it and the transaction it has open, kept in the {@code __transaction_state} partitions this
 * coordinator coordinates.
 *
 * <p>Every change is a transition written to the id's partition <b>before</b> it is applied and
 * answered: what a producer was told survives this coordinator, because the next one reads it back.
 * A transaction ends in two phases. EndTxn writes PrepareCommit (or PrepareAbort) and is answered;
 * from then on the outcome is decided. Then a marker goes to every partition of the transaction, and
 * once all are written, CompleteCommit (CompleteAbort). A coordinator that takes over a partition
 * whose log ends in a Prepare state sends the markers again.
 *
 * <p>Its collaborators are interfaces, so that one coordinator serves one broker and a cluster: where
 * producer ids come from ({@link ProducerIdSource}), where markers go ({@link MarkerChannel}), where each
 * {@code __transaction_state} partition's log is ({@link StateLog}, given when the coordinator takes the
 * partition over: {@link #load}; {@link #unload} when it stops). Time is a parameter ({@code nowMs}):
 * {@link #tick} aborts the transactions open past their timeout. Thread-safe: one lock for all.
 */
public final class TransactionCoordinator {
    private final TxnConfig config;
    private final ProducerIdSource ids;
    private final MarkerChannel markers;
    private final Function<String, TopicPartition> offsetsPartitionOf;
    /** The __transaction_state partitions this coordinator coordinates, by number. */
    private final Map<Integer, StatePartition> partitions = new TreeMap<>();
    /** The UTF-8 bytes of every transactional id held, over the partitions coordinated (bounded by the config). */
    private long heldIdBytes;

    /** One coordinated {@code __transaction_state} partition: its log, its epoch, its ids, the markers they owe. */
    private static final class StatePartition {
        final int partition;
        final int coordinatorEpoch;
        final StateLog log;
        final SortedMap<String, TransactionMetadata> ids = new TreeMap<>();
        final SortedMap<String, Owed> owed = new TreeMap<>();

        StatePartition(int partition, int coordinatorEpoch, StateLog log) {
            this.partition = partition;
            this.coordinatorEpoch = coordinatorEpoch;
            this.log = log;
        }
    }

    /** A transaction between its Prepare state and its Complete state: the markers still to write, the state to write then. */
    private record Owed(TxnMarker marker, TxnTransit complete, SortedSet<TopicPartition> remaining,
                        SortedSet<TopicPartition> failed) {
    }

    /**
     * @param offsetsPartitionOf the {@code __consumer_offsets} partition of a consumer group (Kafka's
     *                           {@code abs(groupId.hashCode()) % 50}, {@link #kafkaOffsetsPartition}; on one
     *                           broker, chapter 6's single offsets partition)
     */
    public TransactionCoordinator(TxnConfig config, ProducerIdSource ids, MarkerChannel markers,
                                  Function<String, TopicPartition> offsetsPartitionOf) {
        this.config = config;
        this.ids = ids;
        this.markers = markers;
        this.offsetsPartitionOf = offsetsPartitionOf;
    }

    /** The {@code __transaction_state} partition of a transactional id: {@code abs(hashCode) % partitions}. */
    public int partitionFor(String transactionalId) {
        return abs(transactionalId.hashCode()) % config.stateLogPartitions();
    }

    /** Kafka's group partitioning: {@code __consumer_offsets-(abs(groupId.hashCode()) % 50)}. */
    public static TopicPartition kafkaOffsetsPartition(String groupId) {
        return new TopicPartition("__consumer_offsets", abs(groupId.hashCode()) % 50);
    }

    /** Kafka's Utils.abs: Math.abs, except that Integer.MIN_VALUE (whose Math.abs is negative) is 0. */
    static int abs(int n) {
        return n == Integer.MIN_VALUE ? 0 : Math.abs(n);
    }

    // ---- taking a __transaction_state partition over, and giving it up ----

    /**
     * Takes {@code __transaction_state-partition} over (Kafka's onElection): replays its log, then
     * finishes what it finds prepared. Until this returns, requests for its ids are answered
     * NOT_COORDINATOR. A log that does not replay leaves the partition uncoordinated.
     *
     * @return the transactional ids whose log ended in PrepareCommit or PrepareAbort: the transactions
     *         whose markers this load sends again (for the broker's log line)
     */
    public synchronized List<String> load(int partition, int coordinatorEpoch, StateLog log, long nowMs)
            throws IOException {
        SortedMap<String, TxnTransit> states = TransactionLog.replay(log);
        StatePartition loaded = new StatePartition(partition, coordinatorEpoch, log);
        states.forEach((id, state) -> loaded.ids.put(id, new TransactionMetadata(id, state)));
        StatePartition replaced = partitions.put(partition, loaded);
        heldIdBytes += idBytes(loaded) - (replaced == null ? 0 : idBytes(replaced));
        return completePrepared(loaded, nowMs);
    }

    /** Gives {@code __transaction_state-partition} up (Kafka's onResignation): its ids are another coordinator's now. */
    public synchronized void unload(int partition) {
        StatePartition gone = partitions.remove(partition);
        if (gone != null) {
            heldIdBytes -= idBytes(gone);
        }
    }

    public synchronized boolean coordinates(int partition) {
        return partitions.containsKey(partition);
    }

    // ---- the requests ----

    /** InitProducerId: see {@link TransactionMetadata#prepareInitProducerId}. */
    public synchronized InitProducerIdResult initProducerId(InitProducerIdRequest request, long nowMs) {
        String id = request.transactionalId();
        if (id == null) {
            try {
                return InitProducerIdResult.of(ids.next(), (short) 0);
            } catch (IOException e) {
                return InitProducerIdResult.failed(TxnError.COORDINATOR_LOAD_IN_PROGRESS);
            }
        }
        TxnError invalid = checkId(id);
        if (invalid != TxnError.NONE) {
            return InitProducerIdResult.failed(invalid);
        }
        if (!TransactionMetadata.isValidTimeout(request.transactionTimeoutMs(), config.maxTimeoutMs())) {
            return InitProducerIdResult.failed(TxnError.INVALID_TRANSACTION_TIMEOUT);
        }
        StatePartition p = partitions.get(partitionFor(id));
        if (p == null) {
            return InitProducerIdResult.failed(TxnError.NOT_COORDINATOR);
        }
        try {
            TransactionMetadata md = p.ids.get(id);
            if (md == null && !roomForANewId(id)) {
                // every id held is a client's to come back with: a new one waits (retriable) until there is room
                return InitProducerIdResult.failed(TxnError.COORDINATOR_NOT_AVAILABLE);
            }
            if (md == null) { // a new id: in memory at once, in the log with its first epoch (Kafka does the same)
                md = TransactionMetadata.fresh(id, ids.next(), request.transactionTimeoutMs(), nowMs);
                p.ids.put(id, md);
                heldIdBytes += idBytes(id);
            }
            Decision decision = md.prepareInitProducerId(request.transactionTimeoutMs(), request.expected(), ids, nowMs);
            if (decision instanceof Decision.Write write) {
                TxnError written = writeThenApply(p, md, write.next(), nowMs);
                return written == TxnError.NONE ? InitProducerIdResult.of(write.next().producerId(),
                        write.next().producerEpoch()) : InitProducerIdResult.failed(written);
            }
            if (decision instanceof Decision.Fence fence) {
                TxnError aborted = abortFenced(p, md, fence.fenced(), nowMs);
                return InitProducerIdResult.failed(aborted == TxnError.NONE ? TxnError.CONCURRENT_TRANSACTIONS : aborted);
            }
            return InitProducerIdResult.failed(((Decision.Answer) decision).error());
        } catch (IOException noId) {
            // Kafka's producer id manager answers a missing block of ids so: retriable.
            return InitProducerIdResult.failed(TxnError.COORDINATOR_LOAD_IN_PROGRESS);
        } catch (IllegalStateException unexpected) {
            // Kafka throws here too (an expected epoch beside a used-up one), and its request handler answers so.
            return InitProducerIdResult.failed(TxnError.UNKNOWN_SERVER_ERROR);
        }
    }

    /**
     * Whether one more id fits: the ids held, over every partition coordinated, stay within the
     * config's count and bytes (a flood of new transactional ids, each up to 32,767 bytes, would
     * otherwise hold the heap).
     */
    private boolean roomForANewId(String id) {
        return heldIds() < config.maxIds() && heldIdBytes + idBytes(id) <= config.maxIdBytes();
    }

    private static long idBytes(String id) {
        return id.getBytes(StandardCharsets.UTF_8).length;
    }

    private static long idBytes(StatePartition p) {
        return p.ids.keySet().stream().mapToLong(TransactionCoordinator::idBytes).sum();
    }

    /** How many transactional ids this coordinator holds, over every partition it coordinates. */
    public synchronized int heldIds() {
        return partitions.values().stream().mapToInt(p -> p.ids.size()).sum();
    }

    /** AddPartitionsToTxn: see {@link TransactionMetadata#prepareAddPartitions}. */
    public synchronized TxnError addPartitions(AddPartitionsRequest request, long nowMs) {
        Found found = find(request.transactionalId());
        if (found.error() != TxnError.NONE) {
            return found.error();
        }
        for (TopicPartition partition : request.partitions()) {
            if (PartitionNames.problem(partition.topic(), partition.partition()) != null) {
                return TxnError.INVALID_REQUEST;
            }
        }
        TransactionMetadata md = found.metadata();
        try {
            Decision decision = md.prepareAddPartitions(request.producerId(), request.producerEpoch(),
                    request.partitions(), nowMs);
            if (decision instanceof Decision.Write write) {
                return writeThenApply(found.partition(), md, write.next(), nowMs);
            }
            return ((Decision.Answer) decision).error();
        } catch (IllegalStateException unexpected) {
            return TxnError.UNKNOWN_SERVER_ERROR; // a transition Kafka refuses too (an id whose first epoch was never written)
        }
    }

    /** AddOffsetsToTxn: the group's {@code __consumer_offsets} partition joins the transaction (Kafka's KafkaApis does this). */
    public TxnError addOffsets(AddOffsetsRequest request, long nowMs) {
        if (request.groupId() == null) {
            return TxnError.INVALID_REQUEST;
        }
        return addPartitions(new AddPartitionsRequest(request.transactionalId(), request.producerId(),
                request.producerEpoch(), Set.of(offsetsPartitionOf.apply(request.groupId()))), nowMs);
    }

    /** EndTxn: see {@link TransactionMetadata#prepareEndTxn}. Answered once the Prepare state is written. */
    public synchronized TxnError endTxn(EndTxnRequest request, long nowMs) {
        Found found = find(request.transactionalId());
        if (found.error() != TxnError.NONE) {
            return found.error();
        }
        try {
            return endTransaction(found.partition(), found.metadata(), request.producerId(), request.producerEpoch(),
                    request.result(), true, nowMs);
        } catch (IllegalStateException unexpected) {
            return TxnError.UNKNOWN_SERVER_ERROR;
        }
    }

    /** The coordinator's own work at {@code nowMs}: {@link #retryMarkers} and {@link #abortTimedOutTransactions}. */
    public synchronized void tick(long nowMs) {
        retryMarkers(nowMs);
        abortTimedOutTransactions(nowMs);
    }

    /**
     * Sends again each marker that failed, and writes again each Complete state whose write failed
     * (Kafka's marker channel retries its queue the same way, for as long as it coordinates).
     */
    public synchronized void retryMarkers(long nowMs) {
        for (StatePartition p : List.copyOf(partitions.values())) {
            retryOwed(p, nowMs);
        }
    }

    /**
     * Aborts every transaction open past its timeout (Kafka runs this every
     * transaction.abort.timed.out.transaction.cleanup.interval.ms, 10 seconds).
     */
    public synchronized void abortTimedOutTransactions(long nowMs) {
        for (StatePartition p : List.copyOf(partitions.values())) {
            abortTimedOut(p, nowMs);
        }
    }

    /** The state of a transactional id this coordinator coordinates. */
    public synchronized Optional<TxnTransit> transaction(String transactionalId) {
        return metadata(transactionalId).map(TransactionMetadata::current);
    }

    /** The state a transition in flight leads to (a Complete state while markers are owed). */
    public synchronized Optional<TransactionState> pendingState(String transactionalId) {
        return metadata(transactionalId).flatMap(TransactionMetadata::pendingState);
    }

    private Optional<TransactionMetadata> metadata(String transactionalId) {
        StatePartition p = partitions.get(partitionFor(transactionalId));
        return p == null ? Optional.empty() : Optional.ofNullable(p.ids.get(transactionalId));
    }

    /** A request's transactional id, its partition and its state; or the error that answers the request. */
    private record Found(StatePartition partition, TransactionMetadata metadata, TxnError error) {
        static Found refused(TxnError error) {
            return new Found(null, null, error);
        }
    }

    /** The state of an id a producer already has: INVALID_PRODUCER_ID_MAPPING for an id never initialised. */
    private Found find(String transactionalId) {
        TxnError invalid = checkId(transactionalId);
        if (invalid != TxnError.NONE) {
            return Found.refused(invalid);
        }
        StatePartition p = partitions.get(partitionFor(transactionalId));
        if (p == null) {
            return Found.refused(TxnError.NOT_COORDINATOR);
        }
        TransactionMetadata md = p.ids.get(transactionalId);
        return md == null ? Found.refused(TxnError.INVALID_PRODUCER_ID_MAPPING) : new Found(p, md, TxnError.NONE);
    }

    /** A transactional id is a non-empty string an int16 length can hold. */
    private static TxnError checkId(String transactionalId) {
        if (transactionalId == null || transactionalId.isEmpty()
                || transactionalId.getBytes(StandardCharsets.UTF_8).length > TransactionLog.MAX_STRING_BYTES) {
            return TxnError.INVALID_REQUEST;
        }
        return TxnError.NONE;
    }

    // ---- writing transitions ----

    private TxnError writeThenApply(StatePartition p, TransactionMetadata md, TxnTransit next, long nowMs) {
        md.prepareTransitionTo(next);
        return write(p, md, next, nowMs);
    }

    /**
     * Writes the transition in flight to the id's {@code __transaction_state} partition, then applies
     * it. A write that fails changes nothing: NOT_COORDINATOR for a log that cannot be written (Kafka's
     * answer to a storage error there), UNKNOWN_SERVER_ERROR for a record too large for it.
     */
    private TxnError write(StatePartition p, TransactionMetadata md, TxnTransit next, long nowMs) {
        // BEGIN-SOLUTION ch11 task 3: write the transition, then apply it (TransactionLogTest)
        try {
            p.log.append(TransactionLog.record(md.transactionalId(), next, nowMs));
        } catch (IOException e) {
            md.abandonTransition();
            return TxnError.NOT_COORDINATOR;
        } catch (BatchTooLargeException e) {
            md.abandonTransition();
            return TxnError.UNKNOWN_SERVER_ERROR;
        }
        md.completeTransitionTo(next);
        return TxnError.NONE;
        // END-SOLUTION
    }

    // ---- ending a transaction ----

    /**
     * Ends {@code md}'s transaction: its Prepare state written (phase one, after which the answer is
     * NONE), then the markers (phase two). The coordinator's own abort of a fenced producer comes
     * here with {@code fromClient} false and the bumped epoch.
     */
    private TxnError endTransaction(StatePartition p, TransactionMetadata md, long producerId, short producerEpoch,
                                    TransactionResult result, boolean fromClient, long nowMs) {
        boolean fence = md.pendingState().orElse(null) == TransactionState.PREPARE_EPOCH_FENCE;
        Decision decision = md.prepareEndTxn(producerId, producerEpoch, result, fromClient, nowMs);
        if (!(decision instanceof Decision.Write write)) {
            if (fence) {
                md.abandonTransition();
            }
            return ((Decision.Answer) decision).error();
        }
        if (fence) {
            md.acceptFence(write.next().producerEpoch());
        }
        TxnError written = writeThenApply(p, md, write.next(), nowMs);
        if (written != TxnError.NONE) {
            if (fence) {
                md.failedEpochFence();
            }
            return written;
        }
        sendMarkers(p, md, nowMs);
        return TxnError.NONE;
    }

    /**
     * Fences the producer holding {@code md}'s id and aborts its open transaction at the bumped epoch
     * (InitProducerId during a transaction, and the timeout): the old producer's next request carries
     * an epoch below the id's and is refused PRODUCER_FENCED.
     */
    private TxnError abortFenced(StatePartition p, TransactionMetadata md, TxnTransit fenced, long nowMs) {
        md.prepareTransitionTo(fenced);
        return endTransaction(p, md, fenced.producerId(), fenced.producerEpoch(), TransactionResult.ABORT, false, nowMs);
    }

    /**
     * Phase two: the transaction's Complete state becomes the transition in flight, a marker goes to
     * each of its partitions, and once every partition has its marker the Complete state is written
     * ({@link #markerWritten}). A transaction without partitions is complete at once.
     */
    private void sendMarkers(StatePartition p, TransactionMetadata md, long nowMs) {
        // BEGIN-SOLUTION ch11 task 5: phase two: a marker to every partition, then Complete (EndTxnTest)
        TxnTransit complete = md.prepareComplete(nowMs);
        md.prepareTransitionTo(complete);
        TransactionResult result = md.state() == TransactionState.PREPARE_COMMIT
                ? TransactionResult.COMMIT : TransactionResult.ABORT;
        TxnMarker marker = new TxnMarker(md.transactionalId(), md.current().producerId(), md.current().producerEpoch(),
                p.coordinatorEpoch, result, md.partitions());
        Owed owed = new Owed(marker, complete, new TreeSet<>(marker.partitions()), new TreeSet<>(TxnTransit.ORDER));
        p.owed.put(md.transactionalId(), owed);
        if (owed.remaining().isEmpty()) {
            writeComplete(p, md, owed, nowMs);
            return;
        }
        markers.send(marker, nowMs, results(nowMs));
        // END-SOLUTION
    }

    /**
     * A Prepare state in a log this coordinator has just loaded was a promise of the coordinator before:
     * its markers are sent again (a partition that had one gets a second: ending a transaction twice
     * the same way changes nothing) and the transaction completed.
     */
    private List<String> completePrepared(StatePartition p, long nowMs) {
        List<String> prepared = new ArrayList<>();
        for (TransactionMetadata md : List.copyOf(p.ids.values())) {
            if (md.state() == TransactionState.PREPARE_COMMIT || md.state() == TransactionState.PREPARE_ABORT) {
                prepared.add(md.transactionalId() + " (" + md.state().stateName() + ")");
                sendMarkers(p, md, nowMs);
            }
        }
        return prepared;
    }

    /** Where the marker channel reports: calls that come late (the partition unloaded, the transaction moved on) are ignored. */
    private MarkerChannel.Results results(long nowMs) {
        return new MarkerChannel.Results() {
            @Override
            public void written(TxnMarker marker, TopicPartition partition) {
                markerWritten(marker, partition, nowMs);
            }

            @Override
            public void failed(TxnMarker marker, TopicPartition partition, String why) {
                markerFailed(marker, partition);
            }
        };
    }

    private synchronized void markerWritten(TxnMarker marker, TopicPartition partition, long nowMs) {
        StatePartition p = partitions.get(partitionFor(marker.transactionalId()));
        Owed owed = p == null ? null : p.owed.get(marker.transactionalId());
        if (owed == null || !owed.marker().sameEnd(marker)) {
            return;
        }
        owed.failed().remove(partition);
        if (owed.remaining().remove(partition) && owed.remaining().isEmpty()) {
            writeComplete(p, p.ids.get(marker.transactionalId()), owed, nowMs);
        }
    }

    private synchronized void markerFailed(TxnMarker marker, TopicPartition partition) {
        StatePartition p = partitions.get(partitionFor(marker.transactionalId()));
        Owed owed = p == null ? null : p.owed.get(marker.transactionalId());
        if (owed != null && owed.marker().sameEnd(marker) && owed.remaining().contains(partition)) {
            owed.failed().add(partition);
        }
    }

    /**
     * Every marker is written: the Complete state is. Should that write fail, the Complete state stays
     * the transition in flight (the id keeps answering CONCURRENT_TRANSACTIONS) and is tried again at
     * the next tick.
     */
    private void writeComplete(StatePartition p, TransactionMetadata md, Owed owed, long nowMs) {
        if (write(p, md, owed.complete(), nowMs) == TxnError.NONE) {
            p.owed.remove(md.transactionalId());
        } else {
            md.prepareTransitionTo(owed.complete());
        }
    }

    /** At a tick: each owed Complete state written again, each failed marker sent again. */
    private void retryOwed(StatePartition p, long nowMs) {
        for (Owed owed : List.copyOf(p.owed.values())) {
            TransactionMetadata md = p.ids.get(owed.marker().transactionalId());
            if (owed.remaining().isEmpty()) {
                writeComplete(p, md, owed, nowMs);
            } else if (!owed.failed().isEmpty()) {
                List<TopicPartition> again = new ArrayList<>(owed.failed());
                owed.failed().clear();
                markers.send(owed.marker().only(again), nowMs, results(nowMs));
            }
        }
    }

    // ---- the timeout ----

    /**
     * Aborts every transaction of {@code p} open for longer than its timeout (Kafka's
     * abortTimedOutTransactions): Ongoing, no transition
     * in flight, and its start + its timeout before now. The abort fences the producer as
     * InitProducerId does (the epoch bumped), so a producer that wakes up late cannot add to or
     * commit a transaction that is no longer there.
     */
    private void abortTimedOut(StatePartition p, long nowMs) {
        // BEGIN-SOLUTION ch11 task 7: abort what stayed open past its timeout, fencing its producer (TransactionTimeoutTest)
        for (TransactionMetadata md : List.copyOf(p.ids.values())) {
            TxnTransit t = md.current();
            if (md.pendingState().isEmpty() && t.state() == TransactionState.ONGOING
                    && t.txnStartTimestamp() + t.txnTimeoutMs() < nowMs) {
                abortFenced(p, md, md.prepareFenceProducerEpoch(), nowMs);
            }
        }
        // END-SOLUTION
    }
}
