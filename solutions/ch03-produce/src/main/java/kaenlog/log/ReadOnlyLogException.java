package kaenlog.log;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A write to a log whose directory is read-only (a file system mounted read-only, a directory
 * without write permission). The log was opened for reading only: it serves fetches, and every
 * write is refused with this, never attempted.
 */
public final class ReadOnlyLogException extends IOException {
    public ReadOnlyLogException(Path dir, String what) {
        super("cannot " + what + ": " + dir + " is read-only (the log serves reads only)");
    }
}
