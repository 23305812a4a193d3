package kaenlog.log;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A write to a log's files failed (no space, no inodes, an I/O error): the log is offline from
 * that moment. Kafka's KafkaStorageException, raised through its LogDirFailureChannel: after a
 * half-done write or a half-done roll nothing in memory can be trusted to match the files, so
 * nothing more is written, and every request for the partition gets a storage error until a
 * restart recovers it from what is on disk.
 */
public final class StorageException extends IOException {
    private final Path file;

    public StorageException(Path file, IOException cause) {
        super(file + ": " + describe(cause), cause);
        this.file = file;
    }

    /** The file whose write failed (or the partition directory when no single file is to blame). */
    public Path file() {
        return file;
    }

    private static String describe(IOException cause) {
        return cause instanceof StorageException ? cause.getMessage()
                : cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
}
