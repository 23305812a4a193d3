package kaenlog.idem;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The transactions open on one partition, the part of Kafka's {@code ProducerStateManager} that
 * chapter 7's producer state did not need: each producer's open transaction and the offset of its
 * first batch here ({@code ProducerStateEntry.currentTxnFirstOffset}), the open ones oldest first
 * ({@code ongoingTxns}), and the ended ones whose marker is not yet below the high watermark
 * ({@code unreplicatedTxns}). From them comes the <b>last stable offset</b>: a read_committed
 * consumer reads below it, so it never sees a transaction whose outcome it cannot know yet.
 *
 * <p>Kept in memory, rebuilt from the log when it is opened (kaen-log has no {@code .snapshot} file).
 * TreeMaps, so that every answer is in offset order and deterministic.
 */
public final class OngoingTransactions {
    /** Producer id to the first offset of its open transaction. */
    private final Map<Long, Long> openByProducer = new TreeMap<>();
    /** First offset to producer id, one entry per open transaction: the oldest is the first key. */
    private final TreeMap<Long, Long> ongoing = new TreeMap<>();
    /** First offset to marker offset: transactions ended by a marker not yet below the high watermark. */
    private final TreeMap<Long, Long> unreplicated = new TreeMap<>();

    /**
     * A transactional data batch of {@code producerId} was written from {@code firstOffset}: it opens
     * the producer's transaction on this partition, unless one is open already (a transaction's later
     * batches change nothing: it began at its first). Kafka's {@code ProducerAppendInfo.appendDataBatch}.
     */
    public void appendData(long producerId, long firstOffset) {
        // BEGIN-SOLUTION ch11 task 8: a transactional batch opens its producer's transaction (OngoingTransactionsTest)
        if (!openByProducer.containsKey(producerId)) {
            openByProducer.put(producerId, firstOffset);
            ongoing.put(firstOffset, producerId);
        }
        // END-SOLUTION
    }

    /**
     * A COMMIT or ABORT marker of {@code producerId} was written at {@code markerOffset}: it ends the
     * producer's open transaction, which is returned with the last stable offset of that moment (the
     * first offset of the oldest transaction of <b>another</b> producer still open, else the offset after
     * the marker); empty when the producer had none open (Kafka's {@code appendEndTxnMarker}: a marker
     * with nothing to end completes nothing). The ended transaction stays unstable until the high
     * watermark passes its marker ({@link #lastStableOffset}).
     */
    public Optional<CompletedTxn> appendMarker(long producerId, long markerOffset, boolean aborted) {
        // BEGIN-SOLUTION ch11 task 8: a marker ends the producer's transaction (OngoingTransactionsTest)
        Long firstOffset = openByProducer.remove(producerId);
        if (firstOffset == null) {
            return Optional.empty();
        }
        long lastStable = markerOffset + 1;
        for (Map.Entry<Long, Long> open : ongoing.entrySet()) {
            if (open.getValue() != producerId) {
                lastStable = open.getKey();
                break;
            }
        }
        ongoing.remove(firstOffset);
        unreplicated.put(firstOffset, markerOffset);
        return Optional.of(new CompletedTxn(producerId, firstOffset, markerOffset, aborted, lastStable));
        // END-SOLUTION
    }

    /**
     * The last stable offset: the first offset of the oldest transaction still unstable (open, or ended
     * by a marker the high watermark has not passed yet), never below the log start offset, and never
     * above the high watermark; the high watermark when none is (Kafka's {@code UnifiedLog.lastStableOffset}
     * over {@code ProducerStateManager.firstUnstableOffset}). Ended transactions whose marker is below
     * the high watermark are forgotten here ({@code onHighWatermarkUpdated}).
     */
    public long lastStableOffset(long logStartOffset, long highWatermark) {
        // BEGIN-SOLUTION ch11 task 8: the last stable offset, never above the high watermark (OngoingTransactionsTest)
        unreplicated.values().removeIf(markerOffset -> markerOffset < highWatermark);
        long firstUnstable = Long.MAX_VALUE;
        if (!ongoing.isEmpty()) {
            firstUnstable = ongoing.firstKey();
        }
        if (!unreplicated.isEmpty()) {
            firstUnstable = Math.min(firstUnstable, unreplicated.firstKey());
        }
        return Math.min(Math.max(firstUnstable, logStartOffset), highWatermark);
        // END-SOLUTION
    }

    /** The first offset of {@code producerId}'s open transaction on this partition, if one is open. */
    public OptionalLong openTransactionOf(long producerId) {
        Long first = openByProducer.get(producerId);
        return first == null ? OptionalLong.empty() : OptionalLong.of(first);
    }

    /** No transaction open and none waiting for the high watermark: the last stable offset is the high watermark. */
    public boolean isEmpty() {
        return ongoing.isEmpty() && unreplicated.isEmpty();
    }
}
