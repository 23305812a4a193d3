package kaenlog.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted on a directory, so a storage-fault test can run out of space
 * ({@code size=}), out of inodes ({@code nr_inodes=}) or be remounted read-only, for real. Mounting
 * needs root (CI runs as root); where it is not permitted, {@link TmpfsOrSkip} skips the test
 * with one printed line saying why, instead of passing silently. Always {@link #close()} it (try
 * with resources): that unmounts. Plain JDK, so that tools outside JUnit can use it too.
 */
public final class Tmpfs implements AutoCloseable {
    private final Path dir;

    private Tmpfs(Path dir) {
        this.dir = dir;
    }

    /** Why a tmpfs could not be mounted (not root, no mount binary, a container without the capability). */
    public static final class NotPermitted extends Exception {
        public NotPermitted(String reason) {
            super(reason);
        }
    }

    /** Mounts a tmpfs with {@code options} (e.g. {@code size=4m,nr_inodes=64}) on {@code dir}, which is created. */
    public static Tmpfs mount(Path dir, String options) throws NotPermitted {
        try {
            Files.createDirectories(dir);
            String failure = run("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString());
            if (failure != null) {
                throw new NotPermitted("mount -t tmpfs -o " + options + " failed: " + failure);
            }
        } catch (IOException e) {
            throw new NotPermitted("mount could not run: " + e.getMessage());
        }
        return new Tmpfs(dir);
    }

    public Path dir() {
        return dir;
    }

    /** Remounts it read-only: every write from now on fails with EROFS. */
    public void remountReadOnly() throws IOException {
        remount("remount,ro");
    }

    /** Remounts it read-write again. */
    public void remountReadWrite() throws IOException {
        remount("remount,rw");
    }

    /** Remounts it with other options (e.g. a larger {@code size=}). */
    public void remount(String options) throws IOException {
        String failure = run("mount", "-o", options, dir.toString());
        if (failure != null) {
            throw new IOException("mount -o " + options + " " + dir + " failed: " + failure);
        }
    }

    /** Unmounts it (lazily, should a file still be open). */
    @Override
    public void close() throws IOException {
        String failure = run("umount", dir.toString());
        if (failure != null && run("umount", "-l", dir.toString()) != null) {
            throw new IOException("umount " + dir + " failed: " + failure);
        }
    }

    /** Runs a command; null when it succeeded, else what it printed. */
    private static String run(String... command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return String.join(" ", command) + " did not finish in 30 s";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        // One line, so that a skipped test says why in one line.
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip()
                .replaceAll("\\s*\\R\\s*", " ");
        return process.exitValue() == 0 ? null : "exit " + process.exitValue() + (output.isEmpty() ? "" : ": " + output);
    }

    /** Every file in it, sorted (for a test's failure message). */
    public List<String> listing() throws IOException {
        List<String> lines = new ArrayList<>();
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted().toList()) {
                lines.add(dir.relativize(p) + (Files.isRegularFile(p) ? " " + Files.size(p) + " B" : ""));
            }
        }
        return lines;
    }
}
