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
