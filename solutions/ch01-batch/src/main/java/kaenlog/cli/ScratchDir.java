package kaenlog.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A demo's working directory: created empty, removed with everything in it on close. Its path
 * differs on every run, so a demo never prints it (the golden files stay byte for byte the same).
 */
public final class ScratchDir implements AutoCloseable {
    private final Path path;

    private ScratchDir(Path path) {
        this.path = path;
    }

    public static ScratchDir create(String prefix) throws IOException {
        return new ScratchDir(Files.createTempDirectory(prefix));
    }

    public Path path() {
        return path;
    }

    public Path resolve(String name) {
        return path.resolve(name);
    }

    @Override
    public void close() throws IOException {
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
