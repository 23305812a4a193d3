package kaenlog.broker;

import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the broker holds, whatever one request asks (given code around your produce,
 * task 7 (ProduceTest)): partitions are created under {@code max.partitions}, counted at each creation so
 * one request cannot go past it; a produce that fails leaves no directory; the ticker outlives a
 * failed tick. Runs after the tasks, since it needs a working produce.
 */
@Order(10)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PartitionBoundsTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    private Broker start(BrokerConfig config) throws IOException {
        return Broker.start(config, new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
    }

    private static ProduceResponse produce(Broker broker, String partition, ByteBuffer records) throws IOException {
        byte[] body = new ProduceRequest(partition, ProduceRequest.ACKS_LEADER, 1_000, records).encode();
        return ProduceResponse.decode(broker.handle(ApiKeys.PRODUCE, body).orElseThrow());
    }

    private List<String> partitionDirs() throws IOException {
        try (Stream<Path> entries = Files.list(dir.resolve("data"))) {
            return entries.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aProducePastMaxPartitionsIsAnsweredUnknownPartitionAndLeavesNothingOnDisk() throws IOException {
        BrokerConfig config = BrokerConfig.of(dir.resolve("data")).withTickMs(0)
                .withConfigs(PartitionConfigs.load().with(LogConfigKeys.MAX_PARTITIONS + "=3"));
        try (Broker broker = start(config)) {
            List<ErrorCode> errors = new ArrayList<>();
            for (int p = 0; p < 5; p++) {
                errors.add(produce(broker, "many-" + p, numbered(0, 1)).error());
            }
            assertThat(errors).as("max.partitions=3: three partitions are created, the fourth and fifth are refused"
                    + " UNKNOWN_PARTITION (the partition does not exist and this broker will not create it)")
                    .containsExactly(ErrorCode.NONE, ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_PARTITION,
                            ErrorCode.UNKNOWN_PARTITION);
            assertThat(partitionDirs()).as("a refused partition leaves no directory").containsExactly("many-0",
                    "many-1", "many-2");
            assertThat(produce(broker, "many-1", numbered(1, 1)).error())
                    .as("a partition the broker holds is still written at the cap").isEqualTo(ErrorCode.NONE);
            assertThat(broker.heldPartitionCount()).as("held partitions stay at the cap").isEqualTo(3);
        }
    }

    @Test
    void aFailedProduceToANewPartitionLeavesNoDirectory() throws IOException {
        try (Broker broker = start(BrokerConfig.of(dir.resolve("data")).withTickMs(0))) {
            ByteBuffer corrupt = numbered(0, 1);
            corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 1)); // the CRC no longer holds
            assertThat(produce(broker, "broken-0", corrupt).error()).as("setup: a batch whose CRC does not hold")
                    .isEqualTo(ErrorCode.CORRUPT_BATCH);
            assertThat(partitionDirs()).as("the refused produce created broken-0 only to fail: it is removed again,"
                    + " or any client could fill the disk's inodes with failing produces").doesNotContain("broken-0");
            assertThat(produce(broker, "broken-0", numbered(0, 1)).error())
                    .as("and a good produce creates it afterwards").isEqualTo(ErrorCode.NONE);
            assertThat(partitionDirs()).contains("broken-0");
        }
    }

    @Test
    void theTickerOutlivesAFailedTickAndTimeGoesOn() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        // The time checkpoint is written through this temporary file: a directory in its place makes
        // every checkpoint fail, as "Too many open files" did in the attack.
        Path blocker = data.resolve(TimeCheckpoint.FILE_NAME + ".tmp");
        Files.createDirectory(blocker);
        Broker broker = start(BrokerConfig.of(data).withTickMs(50));
        try {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!brokerLog.toString(StandardCharsets.UTF_8).contains("ticker") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(brokerLog.toString(StandardCharsets.UTF_8)).as("setup: a checkpoint failed and was logged")
                    .contains("ticker");
            long before = broker.nowMs();
            Thread.sleep(1_000);
            assertThat(broker.nowMs()).as("the broker's time moves on after a failed tick: a dead ticker never"
                    + " answers a parked fetch nor closes an idle connection again; log:%n%s",
                    brokerLog.toString(StandardCharsets.UTF_8)).isGreaterThan(before);
        } finally {
            Files.delete(blocker);
            broker.close();
        }
    }
}
