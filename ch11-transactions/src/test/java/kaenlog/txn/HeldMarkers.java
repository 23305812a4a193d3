package kaenlog.txn;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * Markers held as a network would hold them: each send waits until the test delivers it (written)
 * or lets it fail; with {@code autoDeliver} every marker is written at once, as on one broker.
 */
final class HeldMarkers implements MarkerChannel {
    record Sent(TxnMarker marker, Results results) {
    }

    final List<TxnMarker> sent = new ArrayList<>();
    private final List<Sent> held = new ArrayList<>();
    boolean autoDeliver;
    /** Partitions whose markers fail until removed from here. */
    final Set<TopicPartition> failing = new HashSet<>();

    @Override
    public void send(TxnMarker marker, long nowMs, Results results) {
        sent.add(marker);
        if (autoDeliver) {
            deliver(new Sent(marker, results));
        } else {
            held.add(new Sent(marker, results));
        }
    }

    /** Every held marker reaches its partitions. */
    void deliverAll() {
        List<Sent> now = new ArrayList<>(held);
        held.clear();
        now.forEach(this::deliver);
    }

    int heldCount() {
        return held.size();
    }

    /** Forgets the held markers (the coordinator that sent them died). */
    void dropAll() {
        held.clear();
    }

    private void deliver(Sent s) {
        for (TopicPartition partition : s.marker().partitions()) {
            if (failing.contains(partition)) {
                s.results().failed(s.marker(), partition, "the test's partition refuses markers");
            } else {
                s.results().written(s.marker(), partition);
            }
        }
    }
}
