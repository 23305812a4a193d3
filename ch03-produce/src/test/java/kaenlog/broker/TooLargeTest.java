package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Too large is an answer, not a disconnect (given code around your produce, task 7 (ProduceTest)): a
 * batch over {@code message.max.bytes} (or a partition's {@code max.message.bytes}) is answered
 * BATCH_TOO_LARGE, Kafka's MESSAGE_TOO_LARGE; only a frame over {@code socket.request.max.bytes}
 * closes its connection, with one line naming the limit. Runs after the tasks.
 */
@Order(10)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TooLargeTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    private Broker start(BrokerConfig config) throws IOException {
        return Broker.start(config, new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
    }

    private static ByteBuffer batchOf(int valueBytes) {
        return new BatchBuilder().append(0L, null, "v".repeat(valueBytes)).build();
    }

    @Test
    void aBatchOverMessageMaxBytesIsAnsweredBatchTooLargeOverTheWireNotDisconnected() throws IOException {
        try (Broker broker = start(BrokerConfig.of(dir.resolve("data")).withTickMs(0));
             BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port(), 30_000)) {
            ByteBuffer big = batchOf(1_500_000);
            ProduceResponse tooLarge = client.produce("big-0", ProduceRequest.ACKS_LEADER, big);
            ProduceResponse next = client.produce("big-0", ProduceRequest.ACKS_LEADER, batchOf(10));
            assertThat(tooLarge.error()).as("a %,d-byte batch, over message.max.bytes (%,d), in a frame under"
                            + " socket.request.max.bytes (%,d): answered, not a closed connection; broker log:%n%s",
                    big.remaining(), LogConfigKeys.DEFAULT_MESSAGE_MAX_BYTES, broker.config().maxFrameBytes(),
                    brokerLog.toString(StandardCharsets.UTF_8))
                    .isEqualTo(ErrorCode.BATCH_TOO_LARGE);
            assertThat(next.error()).as("and the same connection goes on: the next produce is written")
                    .isEqualTo(ErrorCode.NONE);
            assertThat(next.baseOffset()).as("nothing of the refused batch was written").isZero();
        }
    }

    @Test
    void aPartitionsOwnMaxMessageBytesWinsAndItsNeighboursAreWritten() throws IOException {
        PartitionConfigs configs = PartitionConfigs.load().withPartition("tight-0:" + LogConfigKeys.MAX_MESSAGE_BYTES
                + "=1000");
        try (Broker broker = start(BrokerConfig.of(dir.resolve("data")).withTickMs(0).withConfigs(configs))) {
            ByteBuffer twoKb = batchOf(2_000);
            assertThat(produce(broker, "tight-0", twoKb.duplicate()).error())
                    .as("tight-0 has max.message.bytes=1000: a 2 KB batch is too large there")
                    .isEqualTo(ErrorCode.BATCH_TOO_LARGE);
            assertThat(produce(broker, "loose-0", twoKb.duplicate()).error())
                    .as("the same batch to a partition with the broker's message.max.bytes is written")
                    .isEqualTo(ErrorCode.NONE);
            assertThat(Files.exists(PartitionNames.resolve(dir.resolve("data"), "tight-0")))
                    .as("a refused produce to a new partition creates nothing").isFalse();
        }
        PartitionConfigs lowered = PartitionConfigs.load().with(LogConfigKeys.MESSAGE_MAX_BYTES + "=1000");
        try (Broker broker = start(BrokerConfig.of(dir.resolve("data2")).withTickMs(0).withConfigs(lowered))) {
            assertThat(produce(broker, "any-0", batchOf(2_000)).error())
                    .as("message.max.bytes=1000 for the broker: every partition without its own limit refuses 2 KB")
                    .isEqualTo(ErrorCode.BATCH_TOO_LARGE);
        }
    }

    @Test
    void aFrameOverSocketRequestMaxBytesClosesItsConnectionWithOneLineNamingTheLimit() throws Exception {
        try (Broker broker = start(BrokerConfig.of(dir.resolve("data")).withMaxFrameBytes(64 * 1024));
             Socket socket = new Socket("127.0.0.1", broker.port())) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(100_000);
            out.flush();
            assertThat(socket.getInputStream().read()).as("a frame over socket.request.max.bytes closes the connection"
                    + " (as Kafka's NetworkReceive does)").isEqualTo(-1);
            assertThat(brokerLog.toString(StandardCharsets.UTF_8).lines()
                    .filter(line -> line.contains("closed: frame length 100000")))
                    .as("with one line naming the limit; broker log:%n%s", brokerLog.toString(StandardCharsets.UTF_8))
                    .singleElement().satisfies(line -> assertThat(line).contains("socket.request.max.bytes")
                            .contains("65536"));
        }
    }

    private static ProduceResponse produce(Broker broker, String partition, ByteBuffer records) throws IOException {
        byte[] body = new ProduceRequest(partition, ProduceRequest.ACKS_LEADER, 1_000, records).encode();
        return ProduceResponse.decode(broker.handle(ApiKeys.PRODUCE, body).orElseThrow());
    }
}
