package kaenlog.testkit.property;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where a property puts the files of its tries (small logs, checkpoints): on a tmpfs
 * ({@code /dev/shm}) when the machine has one, else in the test's own temporary directory. A
 * kaen-log log forces its files to disk at every roll and a checkpoint at every write, and a
 * property makes dozens of them: on tmpfs a force costs nothing, so the tries take a second instead
 * of several on a busy disk. The property's judgement does not depend on where the files are.
 */
public final class Scratch implements AutoCloseable {
    private static final Path TMPFS = Path.of("/dev/shm");

    private final Path root;
    private final boolean own;
    private final List<Path> thisTry = new ArrayList<>();
    private int made;

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

    /**
     * A fresh, empty directory for a new try; the previous try's directories go (a shrinking
     * property makes thousands, and tmpfs is memory).
     */
    public Path newDir() throws IOException {
        thisTry.forEach(Scratch::delete);
        thisTry.clear();
        return anotherDir();
    }

    /** One more fresh, empty directory for the same try (a file written in one, read back in another). */
    public Path anotherDir() throws IOException {
        Path dir = Files.createDirectories(root.resolve("try-" + ++made));
        thisTry.add(dir);
        return dir;
    }

    /** A directory with this name, kept until the scratch closes (Kafka's log wants {@code topic-partition}). */
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
