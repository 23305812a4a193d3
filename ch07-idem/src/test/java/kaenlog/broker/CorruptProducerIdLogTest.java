package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import kaenlog.client.BrokerClient;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.InitProducerId;
import kaenlog.wire.PartitionNames;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged producer-id log ({@value InitProducerIdHandler#PARTITION}) on disk, not just a bad
 * record in it: INIT_PRODUCER_ID still answers, CORRUPT_PRODUCER_ID_RECORD, and hands out no id;
 * the connection stays open (closing it disconnected every idempotent producer, which reconnected and
 * asked again, for ever).
 */
@Order(30)
@PassesOnSkeleton("the producer-id log is the broker's own, given, not an exercise")
class CorruptProducerIdLogTest {
    private static final long NOW_MS = 1_700_000_000_000L;

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    private Broker start() throws IOException {
        return Broker.start(BrokerConfig.of(dir).withTickMs(0).withStartNowMs(NOW_MS),
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
    }

    private static InitProducerId.Response init(BrokerClient client) throws IOException {
        return InitProducerId.Response.decode(client.call(InitProducerId.API_KEY, InitProducerId.encodeRequest()));
    }

    private void damage(String how) throws IOException {
        Path partition = PartitionNames.resolve(dir, InitProducerIdHandler.PARTITION);
        Path segment;
        try (Stream<Path> files = Files.list(partition)) {
            segment = files.filter(f -> f.toString().endsWith(".log")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(segment);
        if (how.equals("a flipped byte in the last record")) {
            bytes[bytes.length - 2] ^= 0x40;
        } else {
            java.util.Arrays.fill(bytes, (byte) 0x7f);
        }
        Files.write(segment, bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a flipped byte in the last record", "every byte overwritten"})
    void aDamagedProducerIdLogIsAnsweredCorruptProducerIdRecordNotADroppedConnection(String how) throws IOException {
        try (Broker broker = start(); BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port(), 15_000)) {
            assertThat(init(client).error()).as("setup: an id is handed out").isEqualTo(ErrorCode.NONE);
            assertThat(init(client).error()).as("setup: a second one").isEqualTo(ErrorCode.NONE);
        }
        damage(how);
        try (Broker broker = start(); BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port(), 15_000)) {
            InitProducerId.Response first;
            InitProducerId.Response again;
            try {
                first = init(client);
                again = init(client);
            } catch (EOFException | SocketException closed) {
                throw new AssertionError(how + ": the broker closed the connection instead of answering INIT_PRODUCER_ID;"
                        + " broker log:\n" + brokerLog.toString(StandardCharsets.UTF_8), closed);
            }
            List<InitProducerId.Response> answers = List.of(first, again);
            assertThat(answers).as("%s: no id is handed out (the next one may be a producer's already), and the"
                    + " answer says why, on the same connection; broker log:%n%s", how,
                    brokerLog.toString(StandardCharsets.UTF_8))
                    .allSatisfy(r -> {
                        assertThat(r.error()).isEqualTo(ErrorCode.CORRUPT_PRODUCER_ID_RECORD);
                        assertThat(r.producerId()).isEqualTo(-1);
                    });
        }
    }
}
