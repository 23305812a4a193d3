package kaenlog.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The scratch directories every run works in: the report, the cluster rows and the cluster bench
 * each make one and delete it at the end (no path is ever printed, so none is left behind).
 */
public final class Directories {
    private Directories() {
    }

    /** Deletes {@code root} and everything under it, deepest first. */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
