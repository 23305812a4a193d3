package kaenlog.testkit;

import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** A {@link Tmpfs} for a JUnit test, or the test skipped with one printed line saying why it could not mount one. */
public final class TmpfsOrSkip {
    private TmpfsOrSkip() {
    }

    public static Tmpfs mount(Path dir, String options, String test) {
        try {
            return Tmpfs.mount(dir, options);
        } catch (Tmpfs.NotPermitted e) {
            System.out.println("SKIPPED " + test + ": needs a tmpfs, and " + e.getMessage());
            Assumptions.abort("needs a tmpfs: " + e.getMessage());
            throw new IllegalStateException("unreachable: Assumptions.abort throws");
        }
    }
}
