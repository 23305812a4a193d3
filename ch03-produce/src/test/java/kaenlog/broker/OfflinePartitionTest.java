package kaenlog.broker;

import static kaenlog.log.LogFixtures.batch;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import kaenlog.client.BrokerClient;
import kaenlog.log.LogFixtures;
import kaenlog.log.Segment;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ListOffsets;
import kaenlog.wire.ProduceRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One offline partition, its neighbours served (given code around your broker,
 * task 9 (BrokerTest)): a partition that cannot be opened is answered STORAGE_ERROR by every api that
 * names it, on the same connection that goes on serving the healthy partitions (Kafka answers an
 * offline log directory's partitions KAFKA_STORAGE_ERROR, per partition, and keeps the connection).
 * Runs after the tasks.
 */
@Order(10)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OfflinePartitionTest {
    private static final String HEALTHY = "healthy-0";
    private static final String BROKEN = "broken-0";

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

    /** Both partitions written, the broker stopped cleanly, BROKEN damaged so that it cannot be opened. */
    private void startWithOneBrokenPartition() throws IOException {
        Path data = tmp.resolve("data");
        broker = Broker.start(BrokerConfig.of(data).withTickMs(0), log);
        try (BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port())) {
            for (String name : new String[] {HEALTHY, BROKEN}) {
                assertThat(client.produce(name, ProduceRequest.ACKS_ALL, batch("r", 5)).error())
                        .as("setup: %s is written", name).isEqualTo(ErrorCode.NONE);
            }
        }
        broker.close();
        Path dir = data.resolve(BROKEN);
        // A second segment claiming the offsets of the first: no write of the log makes that, so it refuses to open.
        Files.copy(dir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX)), dir.resolve(Segment.fileName(1,
                Segment.LOG_SUFFIX)), StandardCopyOption.REPLACE_EXISTING);
        broker = Broker.start(BrokerConfig.of(data).withTickMs(0), log);
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).as("setup: %s is offline", BROKEN)
                .contains("partition " + BROKEN + " is offline");
    }

    private static ListOffsets.Response listOffsets(BrokerClient client, String partition, long timestamp)
            throws IOException {
        return ListOffsets.Response.decode(client.call(ApiKeys.LIST_OFFSETS,
                new ListOffsets.Request(partition, timestamp).encode()));
    }

    @Test
    void everyApiAnswersTheOfflinePartitionStorageErrorAndServesTheHealthyOneOnTheSameConnection()
            throws IOException {
        startWithOneBrokenPartition();
        try (BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port(), 10_000)) {
            for (long timestamp : new long[] {ListOffsets.EARLIEST, ListOffsets.LATEST, ListOffsets.MAX_TIMESTAMP,
                    LogFixtures.T0}) {
                assertThat(listOffsets(client, BROKEN, timestamp).error())
                        .as("ListOffsets(%s, %d) of the offline partition: STORAGE_ERROR, not a closed connection",
                                BROKEN, timestamp)
                        .isEqualTo(ErrorCode.STORAGE_ERROR);
                ListOffsets.Response healthy = listOffsets(client, HEALTHY, timestamp);
                assertThat(healthy.error()).as("and on the same connection ListOffsets(%s, %d) is answered", HEALTHY,
                        timestamp).isEqualTo(ErrorCode.NONE);
            }
            assertThat(listOffsets(client, HEALTHY, ListOffsets.LATEST).offset()).as("the healthy partition's end")
                    .isEqualTo(5);
            assertThat(client.fetch(FetchRequest.consumer(BROKEN, 0, 1 << 20, 0)).error())
                    .as("a fetch of the offline partition").isEqualTo(ErrorCode.STORAGE_ERROR);
            FetchResponse read = client.fetch(FetchRequest.consumer(HEALTHY, 0, 1 << 20, 0));
            assertThat(LogFixtures.recordOffsets(read.records())).as("the healthy partition's five records")
                    .containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(client.produce(BROKEN, ProduceRequest.ACKS_ALL, batch("x", 1)).error())
                    .as("a produce to the offline partition is refused").isEqualTo(ErrorCode.STORAGE_ERROR);
            assertThat(client.produce(HEALTHY, ProduceRequest.ACKS_ALL, batch("x", 1)).baseOffset())
                    .as("a produce to the healthy one is written after its records").isEqualTo(5);
        }
    }
}
