package kaenlog.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
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
}
