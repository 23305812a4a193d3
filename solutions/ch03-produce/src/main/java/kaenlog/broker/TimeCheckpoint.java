package kaenlog.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The broker's last time, kept in {@code broker-time-checkpoint} in the data directory, so that its
 * time never goes back across a restart, even when the wall clock does (a clock set back, a machine
 * with another clock): retention compares segment timestamps with this time, and a time that jumps
 * back would keep expired segments, one that is only ever the max of the two never does. Written the
 * way Kafka writes its checkpoint files: to a temporary file, then renamed over the old one.
 */
public final class TimeCheckpoint {
    public static final String FILE_NAME = "broker-time-checkpoint";

    private TimeCheckpoint() {
    }

    /** The last time written to {@code dataDir}, or 0 when there is none yet. */
    public static long read(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return 0;
        }
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IOException(file + " should hold the broker's last time in ms, not '" + text + "'");
        }
    }

    /** Replaces the checkpoint with {@code nowMs}, atomically. */
    public static void write(Path dataDir, long nowMs) throws IOException {
        Path file = dataDir.resolve(FILE_NAME);
        Path tmp = dataDir.resolve(FILE_NAME + ".tmp");
        Files.writeString(tmp, nowMs + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
