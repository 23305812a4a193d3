package kaenlog.compaction;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.workbook.Todo;

/**
 * The cleaner's first pass: key -> the offset of its latest record in the part of the log being
 * cleaned. The second pass keeps a record only when its offset is that latest one.
 *
 * <p>Kafka's {@code SkimpyOffsetMap} stores a 16-byte MD5 hash of each key in a fixed buffer
 * ({@code log.cleaner.dedupe.buffer.size}), accepting a tiny collision risk to bound memory;
 * kaen-log keeps the whole key (exact, and simpler to read), so memory grows with the keys.
 * Like Kafka's {@code OffsetMap}, {@link #get} answers -1 for a key it has not seen, and the map
 * remembers the last offset it covered ({@link #latestOffset}): records past it were not mapped
 * and must be kept as they are.
 */
public final class OffsetMap {
    /** {@link #get} for a key the map has not seen, as in Kafka. */
    public static final long NOT_FOUND = -1;

    private final Map<ByteBuffer, Long> latest = new HashMap<>();
    private long latestOffset = -1;

    /**
     * The map of {@code batches}, read oldest first: every keyed record's offset overwrites the
     * key's entry (offsets only grow, so the last write is the latest record), and the map's
     * latest offset is the last batch's last offset. A record without a key is not mapped
     * (Kafka's {@code buildOffsetMapForSegment} maps only {@code record.hasKey()}).
     */
    public static OffsetMap of(List<RecordBatch> batches) {
        throw new Todo("ch06 task 3: key -> offset of its latest record (OffsetMapTest)");
    }

    /** Records that {@code key}'s latest record is at {@code offset}. */
    public void put(byte[] key, long offset) {
        latest.put(ByteBuffer.wrap(key.clone()), offset);
    }

    /**
     * Adds what {@code later} maps, a map of the segments after the ones this map covers: its
     * offsets are later, so each of its keys' entries wins (the cleaner maps one segment at a time).
     */
    public void putAll(OffsetMap later) {
        latest.putAll(later.latest);
        updateLatestOffset(later.latestOffset);
    }

    /** Sets the last covered offset (Kafka's {@code updateLatestOffset}); kaen-log never lets it go back. */
    public void updateLatestOffset(long offset) {
        latestOffset = Math.max(latestOffset, offset);
    }

    /** The offset of {@code key}'s latest record, or {@link #NOT_FOUND}. */
    public long get(byte[] key) {
        return latest.getOrDefault(ByteBuffer.wrap(key), NOT_FOUND);
    }

    /** The last offset the map covers; -1 when it covers nothing. */
    public long latestOffset() {
        return latestOffset;
    }

    /** How many distinct keys it holds. */
    public int size() {
        return latest.size();
    }
}
