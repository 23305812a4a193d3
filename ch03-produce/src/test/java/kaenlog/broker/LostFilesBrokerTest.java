package kaenlog.broker;

import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import kaenlog.client.BrokerClient;
import kaenlog.log.Segment;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.ProduceRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage that loses acknowledged records is never silent (given code around your broker,
 * task 9 (BrokerTest)): a partition whose files hold fewer offsets than it wrote goes offline
 * with one line naming the missing offsets, and hands none of them out twice; the operator's
 * {@code accept.data.loss} ({@code klog serve --accept-data-loss P}) opens it past them. Entries of
 * the data directory that are not partitions are reported at start. Runs after the tasks.
 */
@Order(10)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LostFilesBrokerTest {
    private static final String NAME = "orders-0";
    private static final int BATCHES = 20;
    private static final int RECORDS = 10;

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
    private Broker broker;

    @AfterEach
    void closeBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private BrokerConfig config(PartitionConfigs configs) {
        int segmentBytes = 7 * numbered(0, RECORDS).remaining();
        return BrokerConfig.of(tmp.resolve("data")).withTickMs(0)
                .withConfigs(configs.with(LogConfigKeys.SEGMENT_BYTES + "=" + segmentBytes));
    }

    /** 200 records in segments [0, 70), [70, 140), [140, 200), acknowledged; a clean stop; the active .log deleted. */
    private void writeThenDeleteTheActiveLog() throws IOException {
        broker = Broker.start(config(PartitionConfigs.load()), log);
        try (BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port())) {
            for (int i = 0; i < BATCHES; i++) {
                assertThat(client.produce(NAME, ProduceRequest.ACKS_ALL, numbered(i, RECORDS)).error())
                        .as("setup: batch %d is acknowledged", i).isEqualTo(ErrorCode.NONE);
            }
        }
        broker.close();
        broker = null;
        Path dir = tmp.resolve("data").resolve(NAME);
        assertThat(dir.resolve(Segment.fileName(140, Segment.LOG_SUFFIX))).as("setup: the active segment").exists();
        Files.delete(dir.resolve(Segment.fileName(140, Segment.LOG_SUFFIX)));
    }

    private List<String> lines(String containing) {
        return logBytes.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains(containing)).toList();
    }

    @Test
    void thePartitionGoesOfflineWithOneLineNamingTheLostOffsetsAndGivesNoneOfThemOutTwice() throws IOException {
        writeThenDeleteTheActiveLog();
        broker = Broker.start(config(PartitionConfigs.load()), log);

        assertThat(lines(NAME + " is offline")).as("one line says the partition is offline, names the offsets"
                + " lost (140..199: 60 acknowledged records; a silent open gave 140.. out again) and the way to"
                + " accept the loss; broker log:%n%s", logBytes).singleElement().satisfies(line -> assertThat(line)
                .contains("140..199").contains("--accept-data-loss " + NAME));
        try (BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port(), 10_000)) {
            assertThat(client.produce(NAME, ProduceRequest.ACKS_ALL, numbered(99, 1)).error())
                    .as("a produce is refused: offset 140 was acknowledged once already").isEqualTo(ErrorCode.STORAGE_ERROR);
            assertThat(client.fetch(FetchRequest.consumer(NAME, 0, 1 << 20, 0)).error())
                    .as("a fetch is answered STORAGE_ERROR, not a log with a hole").isEqualTo(ErrorCode.STORAGE_ERROR);
        }
        assertThat(lines(NAME + " is offline")).as("still one line").hasSize(1);
    }

    @Test
    void theOperatorsAcceptDataLossOpensItPastTheLostOffsets() throws IOException {
        writeThenDeleteTheActiveLog();
        broker = Broker.start(config(PartitionConfigs.load().withPartition(NAME + ":"
                + LogConfigKeys.ACCEPT_DATA_LOSS + "=true")), log);

        assertThat(lines(NAME)).as("the accepted loss is said, naming the offsets; broker log:%n%s", logBytes)
                .anySatisfy(line -> assertThat(line).contains("140..199").contains("accepted"));
        try (BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port(), 10_000)) {
            assertThat(client.produce(NAME, ProduceRequest.ACKS_ALL, numbered(99, 1)).baseOffset())
                    .as("the next record gets 200, past every offset handed out before").isEqualTo(200);
        }
    }

    @Test
    void entriesOfTheDataDirectoryThatAreNotPartitionsAreReportedAtStartInOneLine() throws IOException {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Files.writeString(data.resolve("orders-1"), "a partition directory replaced by a file");
        Files.createDirectories(data.resolve("lost+found"));
        broker = Broker.start(config(PartitionConfigs.load()), log);

        assertThat(lines("not partitions")).as("one line names both; broker log:%n%s", logBytes).singleElement()
                .satisfies(line -> assertThat(line).contains("orders-1 (a file named like a partition)")
                        .contains("lost+found"));
        try (Stream<Path> entries = Files.list(data)) {
            assertThat(entries.map(p -> p.getFileName().toString())).as("they are left alone")
                    .contains("orders-1", "lost+found");
        }
    }
}
