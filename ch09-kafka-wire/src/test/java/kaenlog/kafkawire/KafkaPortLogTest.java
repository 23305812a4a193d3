package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.ConnectionLimits;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a client sends reaches the broker's log only escaped, cut and rate limited (given code around
 * your header parsing, task 3 (RequestHeaderTest)): a client_id is the client's to choose, newline
 * included, and a request the broker does not answer can be sent as often as a client likes.
 * Runs after the tasks.
 */
@Order(12)
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class KafkaPortLogTest {
    /** Kafka's own api key numbers end well below this one. */
    private static final short NO_SUCH_API_KEY = 9999;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    private String log() {
        return brokerLog.toString(StandardCharsets.UTF_8);
    }

    private static byte[] unknownRequest(int correlationId, String clientId) {
        return new KafkaWriter().int16(NO_SUCH_API_KEY).int16(0).int32(correlationId).nullableString(clientId)
                .toByteArray();
    }

    /** Sends one frame and waits for its answer, or for the broker to close the connection (Kafka's way here). */
    private static void sendOne(int port, byte[] frame) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(frame.length);
            out.write(frame);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int first = in.read();
            if (first >= 0) {
                byte[] rest = new byte[3];
                in.readFully(rest);
                in.readFully(new byte[(first << 24) | ((rest[0] & 0xff) << 16) | ((rest[1] & 0xff) << 8)
                        | (rest[2] & 0xff)]);
            }
        }
    }

    @Test
    void aNewlineInAClientIdCannotForgeALineOfTheBrokersLog() throws IOException {
        String forged = "connection 1 (10.0.0.1:1) closed: FORGED LINE";
        try (Broker broker = Broker.start(BrokerConfig.of(dir.resolve("data")), ConnectionLimits.defaults(),
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
             KafkaListener listener = KafkaListener.start(broker, "127.0.0.1", 0,
                     new PrintStream(brokerLog, true, StandardCharsets.UTF_8))) {
            sendOne(listener.port(), unknownRequest(1, "x\n" + forged + "\u0001\u001b[2J"));
        }
        List<String> lines = log().lines().toList();
        assertThat(lines).as("a client_id holding a newline is one line of the log, not two: no line may start with"
                + " what the client wrote after its newline; broker log:%n%s", log())
                .noneMatch(line -> line.startsWith(forged));
        assertThat(lines).as("the request is still logged, naming the client with its control characters shown as"
                + " \\n, \\u0001, \\u001b; broker log:%n%s", log())
                .anyMatch(line -> line.contains("'x\\n" + forged + "\\u0001\\u001b[2J'") && line.contains("9999"));
    }

    @Test
    void twoThousandRequestsWithA30KbClientIdWriteABoundedLog() throws IOException {
        char[] huge = new char[30 * 1024];
        Arrays.fill(huge, 'A');
        String clientId = new String(huge);
        int requests = 2_000;
        try (Broker broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withTickMs(0),
                ConnectionLimits.defaults(), new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
             KafkaListener listener = KafkaListener.start(broker, "127.0.0.1", 0,
                     new PrintStream(brokerLog, true, StandardCharsets.UTF_8))) {
            Preflight.run(broker);
            byte[] frame = unknownRequest(7, clientId);
            for (int i = 0; i < requests; i++) {
                sendOne(listener.port(), frame);
            }
        }
        long bytes = brokerLog.size();
        List<String> lines = log().lines().toList();
        System.out.printf("%d requests with a %d-char client_id: %,d bytes of broker log in %d lines%n", requests,
                clientId.length(), bytes, lines.size());
        assertThat(lines).as("no line quotes more than %d characters of a client's string (the id is 30 KB)",
                kaenlog.broker.LogText.MAX_QUOTED_CHARS)
                .allMatch(line -> line.length() < 1_000);
        assertThat(lines.stream().filter(line -> line.contains("AAAA")).count())
                .as("the line naming the client is rate limited (one per %d ms of broker time, which stands still"
                        + " here): one line for 2,000 requests", kaenlog.broker.SocketServer.TROUBLE_LOG_INTERVAL_MS)
                .isEqualTo(1);
        assertThat(bytes).as("2,000 requests wrote %,d bytes of log (unescaped and unlimited they wrote 60 MB):"
                + " at most a short line per connection closed", bytes)
                .isLessThan(requests * 200L);
    }

    @Test
    void aRequestAtAVersionOutsideTheTableClosesTheConnectionAsKafkaDoes() throws Exception {
        byte[] frame = new KafkaWriter().int16(ApiKey.PRODUCE.id).int16(9).int32(11).nullableString("c").noTaggedFields()
                .toByteArray();
        KafkaApis apis = new KafkaApis(null, "127.0.0.1", 9093, new PrintStream(OutputStream.nullOutputStream()));
        assertThat(catchThrowable(() -> apis.handle(frame)))
                .as("Produce v9 is outside the table ApiVersions sent: Kafka's SocketServer cannot parse such a"
                        + " request (InvalidRequestException) and closes the connection; only ApiVersions itself has"
                        + " an UNSUPPORTED_VERSION answer")
                .isInstanceOf(kaenlog.broker.CloseConnectionException.class)
                .hasMessageContaining("PRODUCE v9");
    }
}
