package kaenlog.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A log's files hold fewer offsets than the log wrote: a segment it recorded is missing, its
 * segments end below its recovery point, or they start after its checkpointed log start offset.
 * No crash does that (a crash loses only what was not flushed, above the recovery point): a file
 * was deleted, or a directory restored from an older copy. The log refuses to open, so the
 * partition goes offline instead of serving a hole or handing the missing offsets out a second
 * time; an operator who accepts the loss opens it with {@code acceptDataLoss}
 * ({@code klog serve --accept-data-loss PARTITION}).
 */
public final class LostDataException extends IOException {
    /** Offsets {@code from} (inclusive) to {@code to} (exclusive). */
    public record Range(long from, long to) {
        @Override
        public String toString() {
            return from + ".." + (to - 1);
        }
    }

    private final List<Range> missing;

    public LostDataException(Path dir, List<Range> missing, String why) {
        super(dir + ": offsets " + describe(missing) + " were written and are not on disk (" + why + ")");
        this.missing = List.copyOf(missing);
    }

    /** The missing offsets, in order. */
    public List<Range> missing() {
        return missing;
    }

    static String describe(List<Range> missing) {
        return missing.stream().map(Range::toString).collect(Collectors.joining(", "));
    }
}
