package kaenlog.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;

/**
 * The inputs of chapter 3's storage properties, made by testkit's property engine: producer batches
 * of one to eight records whose keys and values are text over the whole of Unicode (so batches of
 * every size, from 70 bytes to about a kilobyte), logs of such batches, and the limits at their edges.
 * Each shrinks towards one record with an empty key and value.
 */
public final class LogGens {
    /**
     * The shrink budget of a property whose every input is a log on disk: each replay writes files,
     * so a learner's red run is told in seconds.
     */
    public static final int SHRINKS = 300;

    private static final Gen<byte[]> TEXT = Gens.oneOf(Gens.constant(new byte[0]), Gens.utf8(0, 12), Gens.utf8(0, 120));
    private static final Gen<Rec> RECORD = c -> new Rec(Gens.nullOr(TEXT, 5).generate(c), TEXT.generate(c));
    private static final Gen<List<Rec>> RECORDS = Gens.lists(RECORD, 1, 8);

    private LogGens() {
    }

    /** One record of a producer's batch. */
    record Rec(byte[] key, byte[] value) {
    }

    /** A producer's batch as it arrives (base offset 0, no leader epoch), as bytes: every use wraps a fresh copy. */
    public static Gen<byte[]> producerBatches() {
        return RECORDS.map(LogGens::batchOf);
    }

    static byte[] batchOf(List<Rec> records) {
        BatchBuilder builder = new BatchBuilder();
        for (int i = 0; i < records.size(); i++) {
            builder.append(LogFixtures.T0 + i, records.get(i).key(), records.get(i).value());
        }
        return LogFixtures.bytesOf(builder.build());
    }

    /** Between {@code min} and {@code max} producer batches. */
    static Gen<List<byte[]>> logs(int min, int max) {
        return Gens.lists(producerBatches(), min, max);
    }

    /** A fresh buffer holding {@code bytes}. */
    public static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes.clone());
    }

    /** A list of batches as a failure shows it: each batch's record count and size. */
    static String show(List<byte[]> batches) {
        return batches.stream().map(LogGens::show).collect(Collectors.joining(", ", "[", "]"));
    }

    static String show(byte[] batch) {
        if (batch.length < BatchHeader.SIZE) {
            return batch.length + " bytes";
        }
        return BatchHeader.readFrom(ByteBuffer.wrap(batch)).recordCount() + " record(s) in " + batch.length + " bytes";
    }

    /**
     * Where a property puts the logs of its tries: on tmpfs ({@code /dev/shm}) when the machine has one (a
     * roll forces files to disk, free on tmpfs), else under the test's temporary directory.
     */
    public static final class Tries implements AutoCloseable {
        private final Path root;
        private int next;

        public Tries(Path tempDir) throws IOException {
            Path shm = Path.of("/dev/shm");
            root = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "kaenlog-ch03-")
                    : Files.createTempDirectory(tempDir, "tries-");
        }

        /** A new empty directory named like a partition (Kafka's log wants {@code topic-N}); the last try's is gone. */
        public Path newDir() throws IOException {
            if (next > 0) {
                delete(root.resolve("t-" + (next - 1)));
            }
            return Files.createDirectories(root.resolve("t-" + next++));
        }

        /** A directory of its own, kept until the end (the judge's). */
        public Path dir(String name) throws IOException {
            return Files.createDirectories(root.resolve(name));
        }

        @Override
        public void close() {
            delete(root);
        }

        private static void delete(Path dir) {
            if (!Files.exists(dir)) {
                return;
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
