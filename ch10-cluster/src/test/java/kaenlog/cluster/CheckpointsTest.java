package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.testkit.property.Scratch;
import org.apache.kafka.server.common.CheckpointFile;
import kafka.server.checkpoints.OffsetCheckpointFile;
import kaenlog.replication.LeaderEpochCache.EpochEntry;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Task 12: Kafka's checkpoint files, in Kafka's format (a version line, a count line, the entries),
 * replaced whole; and a restarted replica's high watermark taken from its checkpoint, never from
 * its log end.
 */
@Order(12)
class CheckpointsTest {
    @TempDir
    Path dir;

    @Test
    void aCheckpointIsTheVersionTheCountThenOneEntryALine() throws Exception {
        Path file = dir.resolve("some-checkpoint");
        Checkpoints.write(file, List.of("orders 0 5", "orders 1 7"));
        assertThat(Files.readString(file, StandardCharsets.UTF_8))
                .as("Kafka's CheckpointFile: version 0, the number of entries, the entries, each ending in a newline")
                .isEqualTo("0\n2\norders 0 5\norders 1 7\n");
        assertThat(Checkpoints.read(file)).as("read back").containsExactly("orders 0 5", "orders 1 7");
        assertThat(dir.resolve("some-checkpoint.tmp")).as("written through a temporary file, renamed over the old one")
                .doesNotExist();
        Checkpoints.write(file, List.of());
        assertThat(Files.readString(file, StandardCharsets.UTF_8)).as("no entries: still the version and a count 0")
                .isEqualTo("0\n0\n");
    }

    @Test
    void kafkasOwnReadersReadWhatWeWrite() throws Exception {
        Checkpoints.writeHighWatermarks(dir, new TreeMap<>(Map.of("orders-0", 5L, "my-topic-12", 9L)));
        Map<TopicPartition, Object> hws = CollectionConverters.asJava(
                new OffsetCheckpointFile(dir.resolve(Checkpoints.HIGH_WATERMARKS).toFile(), null).read());
        assertThat(hws).as("Kafka 3.9.1's OffsetCheckpointFile reads replication-offset-checkpoint: the topic and the"
                + " partition number are two fields (a topic may hold dashes)")
                .isEqualTo(Map.of(new TopicPartition("orders", 0), 5L, new TopicPartition("my-topic", 12), 9L));
        Path partition = Files.createDirectories(dir.resolve("orders-0"));
        Checkpoints.writeLeaderEpochs(partition, List.of(new EpochEntry(0, 0), new EpochEntry(2, 40)));
        var epochs = new LeaderEpochCheckpointFile(partition.resolve(Checkpoints.LEADER_EPOCHS).toFile(), null).read();
        assertThat(epochs).as("and its LeaderEpochCheckpointFile reads leader-epoch-checkpoint")
                .extracting(e -> e.epoch + " " + e.startOffset).containsExactly("0 0", "2 40");
    }

    @Test
    void whatKafkaWritesWeRead() throws Exception {
        new OffsetCheckpointFile(dir.resolve(Checkpoints.HIGH_WATERMARKS).toFile(), null).write(
                CollectionConverters.asScala(Map.<TopicPartition, Object>of(new TopicPartition("orders", 3), 11L)));
        assertThat(Checkpoints.readHighWatermarks(dir)).isEqualTo(Map.of("orders-3", 11L));
    }

    @Test
    void aFileThatDisagreesWithItselfIsAnErrorNotHalfAnAnswer() throws Exception {
        Path file = dir.resolve("checkpoint");
        Files.writeString(file, "0\n3\norders 0 5\norders 1 7\n");
        assertThat(catchThrowable(() -> Checkpoints.read(file)))
                .as("the count says 3, the file holds 2: a torn or edited file is refused, naming the line")
                .isInstanceOf(Checkpoints.CheckpointException.class)
                .hasMessageContaining("line 2").hasMessageContaining("says 3 entries, the file holds 2");
        Files.writeString(file, "0\n");
        assertThat(catchThrowable(() -> Checkpoints.read(file))).as("the version and no count line: the count is missing")
                .isInstanceOf(Checkpoints.CheckpointException.class).hasMessageContaining("line 2");
        Files.writeString(file, "1\n0\n");
        assertThat(catchThrowable(() -> Checkpoints.read(file))).as("version 1 is not a format this reader knows")
                .isInstanceOf(Checkpoints.CheckpointException.class).hasMessageContaining("line 1")
                .hasMessageContaining("not '1'");
        Files.writeString(file, "");
        assertThat(catchThrowable(() -> Checkpoints.read(file))).as("an empty file has no version line at all")
                .isInstanceOf(Checkpoints.CheckpointException.class).hasMessageContaining("line 1")
                .hasMessageContaining("missing");
        Files.writeString(file, "0\nmany\n");
        assertThat(catchThrowable(() -> Checkpoints.read(file))).as("a count that is not a number")
                .isInstanceOf(Checkpoints.CheckpointException.class).hasMessageContaining("line 2");
        assertThat(Checkpoints.read(dir.resolve("none"))).as("no file at all: a new broker, nothing checkpointed")
                .isEmpty();
    }

    @Test
    void aRestartedReplicaTakesItsHighWatermarkFromTheCheckpointNeverFromItsLogEnd() {
        assertThat(Checkpoints.restoredHighWatermark(OptionalLong.of(3), 0, 10))
                .as("records 3..9 were never known committed: the HW is the checkpointed 3, not the LEO 10")
                .isEqualTo(3);
        assertThat(Checkpoints.restoredHighWatermark(OptionalLong.of(12), 0, 10))
                .as("a checkpoint past the log end (an unflushed tail lost): the LEO bounds it").isEqualTo(10);
        assertThat(Checkpoints.restoredHighWatermark(OptionalLong.of(2), 5, 10))
                .as("below the log start (retention moved it): the log start").isEqualTo(5);
        assertThat(Checkpoints.restoredHighWatermark(OptionalLong.empty(), 4, 10))
                .as("nothing checkpointed: the log start, as Kafka's 0 clamped to the log, never the LEO").isEqualTo(4);
    }

    // ---- Kafka judges: server-common's CheckpointFile, OffsetCheckpointFile, LeaderEpochCheckpointFile, UnifiedLog ----

    static final String FORMAT_RULE = "a checkpoint is Kafka's CheckpointFile: the version 0, a newline, the count, a"
            + " newline, each entry and a newline; read back, exactly as many entries as the count says";

    /** Entries as a checkpoint holds them: space-separated fields, any text but a line break. */
    static final Gen<List<String>> ENTRIES = Gens.lists(Gens.oneOf(
            Gens.elements("orders 0 5", "my-topic 12 9", "0 0", "7 40"),
            Gens.strings(0, 8).filter(e -> e.chars().noneMatch(ch -> ch == '\n' || ch == '\r'))), 0, 6);

    /** Kafka's generic checkpoint of raw lines: every line is an entry. */
    private static CheckpointFile<String> kafkasCheckpoint(Path file) throws java.io.IOException {
        return new CheckpointFile<>(file.toFile(), Checkpoints.VERSION, new CheckpointFile.EntryFormatter<>() {
            @Override
            public String toString(String entry) {
                return entry;
            }

            @Override
            public Optional<String> fromString(String line) {
                return Optional.of(line);
            }
        });
    }

    @Test
    void everyCheckpointIsWrittenAsKafkasCheckpointFileWritesIt() throws Exception {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(ENTRIES).tries(60).shrinkBudget(500).check(entries -> {
                Path at = scratch.newDir();
                Path ours = at.resolve("ours");
                Path kafkas = at.resolve("kafkas");
                Checkpoints.write(ours, entries);
                kafkasCheckpoint(kafkas).write(entries);
                Judge.agree("the entries " + Property.show(entries), "file", Files.readAllBytes(ours),
                        "CheckpointFile.write writes", Files.readAllBytes(kafkas), FORMAT_RULE);
            });
        }
    }

    /** A checkpoint as a crash, a full disk or an editor may leave it: Kafka's bytes, a count off by one or two, damaged or not. */
    static final Gen<byte[]> FILES = c -> {
        List<String> entries = ENTRIES.generate(c);
        int count = entries.size() + Gens.elements(0, 0, 0, -1, 1, -2, 2).generate(c); // a count that may disagree
        StringBuilder text = new StringBuilder().append("0\n").append(count).append('\n');
        entries.forEach(e -> text.append(e).append('\n'));
        return Gens.damaged(text.toString().getBytes(StandardCharsets.UTF_8)).generate(c);
    };

    @Test
    void everyCheckpointFileIsReadAsKafkasCheckpointFileReadsIt() throws Exception {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(FILES).tries(150).shrinkBudget(1_000).check(bytes -> {
                Path file = Files.write(scratch.newDir().resolve("checkpoint"), bytes);
                Judge.Outcome kafkas = Judge.Outcome.of(() -> kafkasCheckpoint(file).read());
                String oracle = "CheckpointFile.read gives";
                List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
            if (!kafkas.refused() && (lines.size() < 2 || isOtherZero(lines.get(0)))) {
                oracle = "CheckpointFile.read takes it (" + (lines.size() < 2 ? "a file without a count line"
                        : "a version written '" + lines.get(0) + "'") + "), and by kaen-log's documented difference"
                        + " (the version is '0' and a count follows it, or the file is refused) the answer is";
                kafkas = Judge.Outcome.of(() -> {
                    throw new Checkpoints.CheckpointException(file, 1, "not the version then the count");
                });
            }
            Judge.agree("the checkpoint file " + Property.show(bytes), "entries", () -> Checkpoints.read(file), oracle,
                        kafkas, FORMAT_RULE);
            });
        }
    }

    /** A line Kafka's Integer.parseInt reads as 0 but that is not "0" ("00", "+0", "-0"). */
    private static boolean isOtherZero(String line) {
        try {
            return Integer.parseInt(line) == 0 && !line.equals("0");
        } catch (NumberFormatException notAnInt) {
            return false;
        }
    }

    static final Gen<String> TOPICS = Gens.lists(Gens.elements('a', 'z', 'O', '0', '9', '.', '_', '-'), 1, 20).map(chars -> {
        StringBuilder s = new StringBuilder();
        chars.forEach(s::append);
        return s.toString();
    }).filter(t -> !t.equals(".") && !t.equals(".."));

    static final Gen<SortedMap<String, Long>> HIGH_WATERMARKS = c -> {
        SortedMap<String, Long> hws = new TreeMap<>();
        for (int n = Gens.ints(0, 4).generate(c); n > 0; n--) {
            hws.put(TOPICS.generate(c) + "-" + Gens.ints(0, Integer.MAX_VALUE).generate(c),
                    Gens.longs(0, Long.MAX_VALUE).generate(c));
        }
        return hws;
    };

    @Test
    void everyHighWatermarkCheckpointIsKafkasOffsetCheckpointFile() throws Exception {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(HIGH_WATERMARKS).tries(25).shrinkBudget(300).check(hws -> {
                Path at = scratch.newDir();
                Checkpoints.writeHighWatermarks(at, hws);
                Map<String, Long> kafkaReads = new TreeMap<>();
                CollectionConverters.asJava(new OffsetCheckpointFile(at.resolve(Checkpoints.HIGH_WATERMARKS).toFile(), null)
                        .read()).forEach((tp, hw) -> kafkaReads.put(tp.topic() + "-" + tp.partition(), (Long) hw));
                Judge.agree("the high watermarks " + hws, "replication-offset-checkpoint as Kafka reads it", kafkaReads,
                        "OffsetCheckpointFile.read expects", hws, FORMAT_RULE + "; an entry is 'topic partition offset'");
                Path back = scratch.anotherDir();
                Map<TopicPartition, Object> written = new java.util.HashMap<>();
                hws.forEach((name, hw) -> {
                    int dash = name.lastIndexOf('-');
                    written.put(new TopicPartition(name.substring(0, dash), Integer.parseInt(name.substring(dash + 1))), hw);
                });
                new OffsetCheckpointFile(back.resolve(Checkpoints.HIGH_WATERMARKS).toFile(), null)
                        .write(CollectionConverters.asScala(written));
                Judge.agree("the high watermarks Kafka's OffsetCheckpointFile.write writes for " + hws, "high watermarks",
                        () -> Checkpoints.readHighWatermarks(back), "file holds", hws, FORMAT_RULE);
            });
        }
    }

    static final Gen<List<EpochEntry>> EPOCHS = c -> {
        List<EpochEntry> epochs = new ArrayList<>();
        int epoch = -1;
        long start = 0;
        for (int n = Gens.ints(0, 4).generate(c); n > 0 && epoch < Integer.MAX_VALUE - 1_000; n--) {
            epoch += Gens.ints(1, 1_000).generate(c);
            start += Gens.longs(0, 1L << 40).generate(c);
            epochs.add(new EpochEntry(epoch, start));
        }
        return epochs;
    };

    @Test
    void everyLeaderEpochCheckpointIsKafkasLeaderEpochCheckpointFile() throws Exception {
        try (Scratch scratch = Scratch.in(dir)) {
            Property.forAll(EPOCHS).tries(25).shrinkBudget(300).check(epochs -> {
                Path at = scratch.newDir();
                Checkpoints.writeLeaderEpochs(at, epochs);
                List<EpochEntry> kafkaReads = new LeaderEpochCheckpointFile(at.resolve(Checkpoints.LEADER_EPOCHS).toFile(), null)
                        .read().stream().map(e -> new EpochEntry(e.epoch, e.startOffset)).toList();
                Judge.agree("the leader epochs " + epochs, "leader-epoch-checkpoint as Kafka reads it", kafkaReads,
                        "LeaderEpochCheckpointFile.read expects", epochs, FORMAT_RULE + "; an entry is 'epoch startOffset'");
                Path back = scratch.anotherDir();
                new LeaderEpochCheckpointFile(back.resolve(Checkpoints.LEADER_EPOCHS).toFile(), null).write(epochs.stream()
                        .map(e -> new org.apache.kafka.storage.internals.log.EpochEntry(e.epoch(), e.startOffset())).toList());
                Judge.agree("the leader epochs Kafka's LeaderEpochCheckpointFile.write writes for " + epochs, "leader epochs",
                        () -> Checkpoints.readLeaderEpochs(back), "file holds", epochs, FORMAT_RULE);
            });
        }
    }

    /** A log (start at most end) and what its checkpoint holds, if anything. */
    static final Gen<long[]> RESTARTS = c -> {
        long start = Gens.longs(0, Long.MAX_VALUE).generate(c);
        long end = Gens.longs(start, Long.MAX_VALUE).generate(c);
        boolean checkpointed = Gens.booleans().generate(c);
        return new long[] {start, end, checkpointed ? 1 : 0, Gens.longs().generate(c)};
    };

    @Test
    void everyRestoredHighWatermarkIsKafkasUpdateHighWatermark() {
        Property.forAll(RESTARTS).tries(300).check(r -> {
            OptionalLong checkpointed = r[2] == 1 ? OptionalLong.of(r[3]) : OptionalLong.empty();
            // Partition.createLog: offsetCheckpoints.fetch(...).orElseGet(() -> 0L), then UnifiedLog.updateHighWatermark:
            // below the log start offset is the log start, at or past the log end offset is the log end
            long hw = checkpointed.orElse(0L);
            long kafkas = hw < r[0] ? r[0] : hw >= r[1] ? r[1] : hw;
            Judge.agree("a log from " + r[0] + " to " + r[1] + " with " + (r[2] == 1 ? "HW " + r[3] + " checkpointed"
                    : "no HW checkpointed"), "restored high watermark",
                    () -> Checkpoints.restoredHighWatermark(checkpointed, r[0], r[1]),
                    "Partition.createLog (UnifiedLog.updateHighWatermark of the checkpointed HW, 0 when none) restores",
                    kafkas, "the checkpointed HW, at most the log end and at least the log start; none checkpointed is"
                            + " the log start, never the log end");
        });
    }
}
