package kaenlog.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where a property puts the files of its tries (a follower's log, a checkpoint): on a tmpfs
 * ({@code /dev/shm}) when the machine has one, else in the test's own temporary directory. A
 * checkpoint is forced to disk at every write, and a replica's log at every roll: on tmpfs a force
 * costs nothing, so the tries take a second instead of several on a busy disk. The judgement does
 * not depend on where the files are (chapter 6's properties do the same).
 */
final class Scratch implements AutoCloseable {
    private static final Path TMPFS = Path.of("/dev/shm");
    private final Path root;
    private final boolean own;
    private int tries;

    private Scratch(Path root, boolean own) {
        this.root = root;
        this.own = own;
    }

    /** A scratch area on tmpfs if there is one, else under {@code tempDir} (which JUnit deletes). */
    static Scratch in(Path tempDir) throws IOException {
        if (Files.isDirectory(TMPFS) && Files.isWritable(TMPFS)) {
            return new Scratch(Files.createTempDirectory(TMPFS, "kaenlog-ch10-property-"), true);
        }
        return new Scratch(Files.createTempDirectory(tempDir, "property-"), false);
    }

    /** A new, empty directory for one try. */
    Path newDir() throws IOException {
        return Files.createDirectories(root.resolve("try-" + ++tries));
    }

    @Override
    public void close() {
        if (!own) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
