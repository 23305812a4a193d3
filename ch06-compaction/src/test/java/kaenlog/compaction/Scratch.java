package kaenlog.compaction;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where a property puts the small logs of its tries: on a tmpfs ({@code /dev/shm}) when the machine has one,
 * else in the test's own temporary directory. A kaen-log log forces its files to disk at every roll, and a
 * property builds dozens of logs: on tmpfs a force costs nothing, so the tries take a second instead of
 * several on a busy disk. The property's judgement does not depend on where the files are.
 */
public final class Scratch implements AutoCloseable {
    private static final Path TMPFS = Path.of("/dev/shm");

    private final Path root;
    private final boolean own;
    private Path current;

    private Scratch(Path root, boolean own) {
        this.root = root;
        this.own = own;
    }

    /** A scratch area on tmpfs if there is one, else under {@code tempDir} (which JUnit deletes). */
    public static Scratch in(Path tempDir) throws IOException {
        if (Files.isDirectory(TMPFS) && Files.isWritable(TMPFS)) {
            return new Scratch(Files.createTempDirectory(TMPFS, "kaenlog-property-"), true);
        }
        return new Scratch(Files.createTempDirectory(tempDir, "property-"), false);
    }

    /** A fresh, empty directory for one try; the previous try's goes (a shrinking property makes thousands). */
    public Path newDir() throws IOException {
        if (current != null) {
            delete(current);
        }
        current = root.resolve("try");
        return Files.createDirectories(current);
    }

    /** A directory with this name (Kafka's log wants {@code topic-partition}). */
    public Path dir(String name) throws IOException {
        return Files.createDirectories(root.resolve(name));
    }

    @Override
    public void close() {
        if (own) {
            delete(root);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
