package kaenlog.idem;

import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One partition's producer state: producer id to that producer's window. Kept in memory only;
 * kaen-log has no snapshot file (Kafka writes {@code .snapshot} files) and rebuilds it at open.
 *
 * <p>A TreeMap, so every listing is in producer-id order and the demo's output is deterministic.
 */
public final class ProducerState {

    private final TreeMap<Long, ProducerStateEntry> entries = new TreeMap<>();

    /** The entry of {@code producerId}, created with {@code producerEpoch} if the producer is new. */
    public ProducerStateEntry entry(long producerId, short producerEpoch) {
        return entries.computeIfAbsent(producerId, id -> new ProducerStateEntry(producerEpoch));
    }

    /**
     * Chapter 11's seam: {@code producerId} starts {@code producerEpoch} with an empty window, its old
     * epoch's batches forgotten, as Kafka's {@code ProducerStateEntry} drops its batches when the epoch
     * changes. Chapter 7 never calls it: its producers keep their epoch.
     */
    public ProducerStateEntry restart(long producerId, short producerEpoch) {
        ProducerStateEntry fresh = new ProducerStateEntry(producerEpoch);
        entries.put(producerId, fresh);
        return fresh;
    }

    public Optional<ProducerStateEntry> get(long producerId) {
        return Optional.ofNullable(entries.get(producerId));
    }

    /** Every known producer id, ascending. */
    public List<Long> producerIds() {
        return List.copyOf(entries.keySet());
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }
}
