package kaenlog.bench;

import java.util.Random;

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

    int size() {
        return keys.length;
    }
}
