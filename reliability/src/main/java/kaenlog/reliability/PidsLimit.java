package kaenlog.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A cgroup with a {@code pids.max}: the number of threads (tasks) its processes may have, as a
 * container's pids limit sets it. {@code prlimit --nproc} would be simpler, but it does not bind
 * root (the kernel lets a process with CAP_SYS_ADMIN or CAP_SYS_RESOURCE past RLIMIT_NPROC), and this
 * suite may run as root: a cgroup binds everyone. Needs a writable pids controller (cgroup v1's
 * /sys/fs/cgroup/pids, or v2's /sys/fs/cgroup with pids enabled); {@link #create} says when there is none.
 */
final class PidsLimit implements AutoCloseable {
    private final Path dir;

    private PidsLimit(Path dir) {
        this.dir = dir;
    }

    /** A new cgroup named {@code name} with no limit yet, or empty when none can be made here. */
    static Optional<PidsLimit> create(String name) {
        for (Path root : new Path[] {Path.of("/sys/fs/cgroup/pids"), Path.of("/sys/fs/cgroup")}) {
            Path dir = root.resolve(name);
            try {
                if (!Files.exists(root.resolve("cgroup.procs"))) {
                    continue;
                }
                Files.createDirectories(dir);
                if (Files.exists(dir.resolve("pids.max"))) {
                    return Optional.of(new PidsLimit(dir));
                }
                Files.deleteIfExists(dir);
            } catch (IOException | RuntimeException notHere) {
                // not writable, or no pids controller: try the next layout
            }
        }
        return Optional.empty();
    }

    /** Moves a process (all its threads) into the cgroup. */
    void add(long pid) throws IOException {
        Files.writeString(dir.resolve("cgroup.procs"), Long.toString(pid), StandardCharsets.US_ASCII);
    }

    /** Tasks in the cgroup now. */
    long current() throws IOException {
        return Long.parseLong(Files.readString(dir.resolve("pids.current"), StandardCharsets.US_ASCII).trim());
    }

    /** From now on no task of the cgroup may create one beyond {@code max}. */
    void setMax(long max) throws IOException {
        Files.writeString(dir.resolve("pids.max"), Long.toString(max), StandardCharsets.US_ASCII);
    }

    /** No limit any more (a JVM needs threads to shut down: its shutdown hooks run on new ones). */
    void lift() throws IOException {
        Files.writeString(dir.resolve("pids.max"), "max", StandardCharsets.US_ASCII);
    }

    /** Lifts the limit and removes the cgroup once its processes have ended. */
    @Override
    public void close() {
        try {
            Files.writeString(dir.resolve("pids.max"), "max", StandardCharsets.US_ASCII);
            Deadline.in(10_000).await(() -> {
                try {
                    return current() == 0;
                } catch (IOException | RuntimeException gone) {
                    return true;
                }
            });
            Files.deleteIfExists(dir);
        } catch (IOException | RuntimeException left) {
            // a leftover empty cgroup is harmless
        }
    }

    String where() {
        return dir.toString();
    }
}
