package kaenlog.reliability;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.LogText;
import kaenlog.client.BrokerClient;
import kaenlog.kafkawire.KafkaReader;
import kaenlog.kafkawire.KafkaWriter;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;

/**
 * Scenario 6, rows h and i (#23 findings 4 and 7), against a broker process with both ports
 * ({@code --kafka-port 0}, a 64 MiB heap) while a well-behaved client produces and consumes on the
 * kaen-log port:
 *
 * <ul>
 * <li>6i: client strings reach the log escaped, cut and rate limited. A client_id with a newline
 *     would forge a line; 2,000 requests with a 30 KB client_id wrote 60 MB of log before.</li>
 * <li>6j: too large is an answer. Batches over message.max.bytes on both ports are answered
 *     (BATCH_TOO_LARGE; MESSAGE_TOO_LARGE for that partition only, its neighbour written) on the same
 *     connection; frames over socket.request.max.bytes close their connection with one line each.</li>
 * </ul>
 */
final class AnswersNotDisconnects {
    static final String FORGED = "connection 1 (10.0.0.1:1) closed: FORGED LINE";
    private static final short NO_SUCH_API_KEY = 9999;
    private static final long NOW_MS = 1_700_000_000_000L;

    /** The sizes: requests with a huge client_id, too-large batches per port, oversized frames. */
    record Config(int hugeIds, int idChars, int tooLarge, int oversizedFrames) {
        static Config full() {
            return new Config(2_000, 30 * 1024, 200, 100);
        }

        static Config quick() {
            return new Config(500, 30 * 1024, 40, 30);
        }
    }

    private AnswersNotDisconnects() {
    }

    private static BrokerProcess.Options bothPorts(BrokerProcess.Options options) {
        return options.withMaxHeap("64m").plusServeArgs("--kafka-port", "0");
    }

    /** RSS kB, fds, threads. */
    private static long[] figures(BrokerProcess broker) {
        return new long[] {broker.procStatus("VmRSS"), broker.openFds(), broker.procStatus("Threads")};
    }

    private static void peak(long[] peak, BrokerProcess broker) {
        long[] now = figures(broker);
        for (int i = 0; i < peak.length; i++) {
            peak[i] = Math.max(peak[i], now[i]);
        }
    }

    private static String resources(long[] before, long[] peak, long[] after) {
        return "broker RSS kB " + before[0] + " before, peak " + peak[0] + ", " + after[0] + " after; fds " + before[1]
                + ", peak " + peak[1] + ", " + after[1] + "; threads " + before[2] + ", peak " + peak[2] + ", " + after[2];
    }

    // ---- 6i client strings in the log -----------------------------------------------------------------

    static BoundedBroker.Probe clientStrings(Path dir, BrokerProcess.Options options, Config config)
            throws IOException {
        try (BrokerProcess broker = BrokerProcess.start(dir, bothPorts(options))) {
            int kafkaPort = broker.kafkaPort();
            Ledger ledger = new Ledger();
            SteadyClient good = BoundedBroker.steadyClient(broker, ledger);
            long logBytesBefore = logBytes(broker.log());
            long[] before = figures(broker);
            long[] peak = before.clone();
            sendUntilClosed(broker.host(), kafkaPort, unknownRequest(1, "x\n" + FORGED));
            char[] huge = new char[config.idChars()];
            Arrays.fill(huge, 'A');
            byte[] frame = unknownRequest(2, new String(huge));
            long startNanos = System.nanoTime();
            int closed = 0;
            for (int i = 0; i < config.hugeIds(); i++) {
                if (sendUntilClosed(broker.host(), kafkaPort, frame)) {
                    closed++;
                }
                if (i % 100 == 0) {
                    peak(peak, broker);
                }
            }
            long seconds = Math.max(1, (System.nanoTime() - startNanos) / 1_000_000_000L);
            good.awaitRounds(3, 30_000);
            good.stop();
            long[] after = figures(broker);
            List<String> log = broker.log();
            long bytes = logBytes(log) - logBytesBefore;
            long naming = log.stream().filter(l -> l.startsWith("kafka: client ")).count();
            long longest = log.stream().mapToLong(String::length).max().orElse(0);
            boolean forged = log.stream().anyMatch(l -> l.startsWith(FORGED));
            boolean ok = broker.isAlive() && good.failure == null && !forged && closed == config.hugeIds()
                    && bytes < config.hugeIds() * 300L && longest < 1_000
                    && naming <= 2 + seconds * 1000 / kaenlog.broker.SocketServer.TROUBLE_LOG_INTERVAL_MS;
            return new BoundedBroker.Probe("6i client strings in the log (Kafka port)", config.hugeIds() + 1,
                    ledger.ackedRecords(), config.hugeIds() + 1, 0, ok, List.of(
                    "a client_id with a newline and '" + FORGED + "' after it: " + (forged ? "a FORGED line" : "one line,"
                            + " the newline shown as \\n"),
                    config.hugeIds() + " requests (api key " + NO_SUCH_API_KEY + ") with a " + config.idChars()
                            + "-char client_id, each closing its connection as Kafka does: " + closed + " closed;"
                            + " the broker's log grew by " + bytes + " bytes (" + config.hugeIds() * (long) config.idChars()
                            + "+ unescaped and unlimited), longest line " + longest + " chars; " + naming
                            + " line(s) naming a client in " + seconds + " s, the rest held back by the rate limit",
                    "limits: LogText (control characters escaped, a client's string cut to "
                            + LogText.MAX_QUOTED_CHARS + " chars), one line per " + kaenlog.broker.SocketServer
                            .TROUBLE_LOG_INTERVAL_MS + " ms of broker time for what a client can repeat at will",
                    resources(before, peak, after),
                    good.summary()));
        }
    }

    private static long logBytes(List<String> log) {
        return log.stream().mapToLong(l -> l.getBytes(StandardCharsets.UTF_8).length + 1L).sum();
    }

    private static byte[] unknownRequest(int correlationId, String clientId) {
        return new KafkaWriter().int16(NO_SUCH_API_KEY).int16(0).int32(correlationId).nullableString(clientId)
                .toByteArray();
    }

    /** Sends one frame and reads until the broker closes; false if it answered instead or nothing came. */
    private static boolean sendUntilClosed(String host, int port, byte[] frame) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), SteadyClient.SOCKET_TIMEOUT_MS);
            s.setSoTimeout(SteadyClient.SOCKET_TIMEOUT_MS);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(frame.length);
            out.write(frame);
            out.flush();
            InputStream in = s.getInputStream();
            return in.read() < 0;
        } catch (IOException reset) {
            return true; // closed with bytes unread: a reset
        }
    }

    // ---- 6j too large is an answer --------------------------------------------------------------------

    static BoundedBroker.Probe tooLarge(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        try (BrokerProcess broker = BrokerProcess.start(dir, bothPorts(options))) {
            int kafkaPort = broker.kafkaPort();
            Ledger ledger = new Ledger();
            SteadyClient good = BoundedBroker.steadyClient(broker, ledger);
            long[] before = figures(broker);
            long[] peak = before.clone();
            ByteBuffer big = new BatchBuilder().append(NOW_MS, null, "v".repeat(1_500_000)).build();
            ByteBuffer small = new BatchBuilder().append(NOW_MS, null, "ok").build();
            int ownAnswered = 0;
            try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), SteadyClient.SOCKET_TIMEOUT_MS)) {
                // a Kafka-port produce creates nothing (Kafka's rule): kaen-log's port makes "mixed" 0 and 1 first
                for (String name : List.of("mixed-0", "mixed-1")) {
                    if (client.produce(name, ProduceRequest.ACKS_LEADER, small.duplicate()).error() != ErrorCode.NONE) {
                        throw new IOException("setup: " + name + " could not be created on kaen-log's port");
                    }
                }
                for (int i = 0; i < config.tooLarge(); i++) {
                    if (client.produce("large-0", ProduceRequest.ACKS_LEADER, big.duplicate()).error()
                            == ErrorCode.BATCH_TOO_LARGE) {
                        ownAnswered++;
                    }
                    if (i % 20 == 0) {
                        peak(peak, broker);
                    }
                }
            }
            int kafkaAnswered = 0;
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(broker.host(), kafkaPort), SteadyClient.SOCKET_TIMEOUT_MS);
                s.setSoTimeout(SteadyClient.SOCKET_TIMEOUT_MS);
                for (int i = 0; i < config.tooLarge(); i++) {
                    short[] errors = produceV8(s, i, big, small);
                    if (errors[0] == 10 && errors[1] == 0) {
                        kafkaAnswered++;
                    }
                    if (i % 20 == 0) {
                        peak(peak, broker);
                    }
                }
            }
            int oversized = 0;
            int announced = BrokerConfig.DEFAULT_SOCKET_REQUEST_MAX_BYTES + 1;
            for (int i = 0; i < config.oversizedFrames(); i++) {
                if (closesAfter(broker.host(), i % 2 == 0 ? broker.port() : kafkaPort,
                        ByteBuffer.allocate(4).putInt(announced).array())) {
                    oversized++;
                }
            }
            good.awaitRounds(3, 30_000);
            good.stop();
            long[] after = figures(broker);
            long lines = broker.log().stream().filter(l -> l.contains("(socket.request.max.bytes)")).count();
            boolean ok = broker.isAlive() && good.failure == null && ownAnswered == config.tooLarge()
                    && kafkaAnswered == config.tooLarge() && oversized == config.oversizedFrames()
                    && lines == config.oversizedFrames();
            return new BoundedBroker.Probe("6j too large is an answer (both ports)", 2L * config.tooLarge()
                    + config.oversizedFrames(), ledger.ackedRecords(), 2L * config.tooLarge() + config.oversizedFrames(),
                    0, ok, List.of(
                    config.tooLarge() + " produces of a " + big.remaining() + "-byte batch on one kaen-log connection: "
                            + ownAnswered + " answered BATCH_TOO_LARGE on it",
                    config.tooLarge() + " Kafka Produce v8 on one connection, partition 0 that batch, partition 1 a small"
                            + " one: " + kafkaAnswered + " answered {0: MESSAGE_TOO_LARGE (10), 1: NONE}",
                    config.oversizedFrames() + " frames announcing " + announced + " bytes, both ports: " + oversized
                            + " connections closed, " + lines + " log lines naming socket.request.max.bytes",
                    "limits: message.max.bytes 1048588 (an answer per partition), socket.request.max.bytes "
                            + BrokerConfig.DEFAULT_SOCKET_REQUEST_MAX_BYTES + " (a close), queued.max.request.bytes 16 MiB",
                    resources(before, peak, after),
                    good.summary()));
        }
    }

    /** Sends raw bytes (a frame's length only, say) and reads until the broker closes. */
    private static boolean closesAfter(String host, int port, byte[] raw) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), SteadyClient.SOCKET_TIMEOUT_MS);
            s.setSoTimeout(SteadyClient.SOCKET_TIMEOUT_MS);
            s.getOutputStream().write(raw);
            s.getOutputStream().flush();
            return s.getInputStream().read() < 0;
        } catch (IOException reset) {
            return true;
        }
    }

    /** A Kafka Produce v8 (acks 1) naming topic "mixed" partitions 0 and 1; the two partitions' error codes. */
    private static short[] produceV8(Socket s, int correlationId, ByteBuffer first, ByteBuffer second)
            throws IOException {
        byte[] request = new KafkaWriter().int16(0).int16(8).int32(correlationId).nullableString("reliability")
                .nullableString(null).int16(1).int32(5_000).arrayLength(1).nullableString("mixed").arrayLength(2)
                .int32(0).nullableBytes(first.duplicate()).int32(1).nullableBytes(second.duplicate()).toByteArray();
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(request.length);
        out.write(request);
        out.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        KafkaReader r = new KafkaReader(answer);
        r.int32("correlation_id");
        short[] errors = {-2, -2};
        int topics = r.arrayLength("responses");
        for (int t = 0; t < topics; t++) {
            r.string("name");
            int partitions = r.arrayLength("partitions");
            for (int p = 0; p < partitions; p++) {
                int index = r.int32("index");
                short error = r.int16("error_code");
                r.int64("base_offset");
                r.int64("log_append_time_ms");
                r.int64("log_start_offset");
                int recordErrors = r.arrayLength("record_errors");
                for (int e = 0; e < recordErrors; e++) {
                    r.int32("batch_index");
                    r.nullableString("batch_index_error_message");
                }
                r.nullableString("error_message");
                if (index == 0 || index == 1) {
                    errors[index] = error;
                }
            }
        }
        return errors;
    }
}
