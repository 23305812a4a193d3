package kaenlog.bench;

import java.nio.ByteBuffer;
import java.util.Random;
import kaenlog.batch.BatchBuilder;

/** The same records for both sides of every comparison: seeded, so every run measures the same bytes. */
final class Inputs {
    final byte[][] keys;
    final byte[][] values;
    final long[] timestamps;

    Inputs(int records, int valueBytes) {
        Random random = new Random(42);
        keys = new byte[records][];
        values = new byte[records][];
        timestamps = new long[records];
        for (int i = 0; i < records; i++) {
            keys[i] = ("key-" + i).getBytes();
            values[i] = new byte[valueBytes];
            random.nextBytes(values[i]);
            timestamps[i] = 1_700_000_000_000L + i;
        }
    }

    /** The records of a benchmark's shape parameter, "RECORDSxVALUE_BYTES" (e.g. "100x1024"). */
    static Inputs of(String shape) {
        String[] parts = shape.split("x");
        return new Inputs(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }

    /** These records as one kaen-log batch (chapter 1's BatchBuilder). */
    ByteBuffer kaenLogBatch() {
        BatchBuilder builder = new BatchBuilder();
        for (int i = 0; i < size(); i++) {
            builder.append(timestamps[i], keys[i], values[i]);
        }
        return builder.build();
    }

    int size() {
        return keys.length;
    }
}
