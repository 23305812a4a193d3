package kaenlog.reliability;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import kaenlog.kafkawire.KafkaWriter;

/**
 * Row 6h (#23 finding 1, on the Kafka port): one Kafka Produce v8 naming 10,000 partitions of a
 * topic nobody created (empty records, about 80 KB: what created 10,000 directories and opened
 * 20,000 files before), then one Metadata v4 asking 2,000 new topics with allow_auto_topic_creation,
 * under {@code max.partitions}. A produce creates nothing (UNKNOWN_TOPIC_OR_PARTITION for each); the
 * auto-create stops at the cap; a well-behaved client on kaen-log's port is served throughout.
 * Built from raw frames with chapter 9's own writer: reliability has no Kafka client.
 */
final class KafkaPartitionFlood {
    static final int PARTITIONS = 10_000;
    static final int TOPICS = 2_000;
    static final int MAX_PARTITIONS = 200;
    /** --max-open-partitions: the created partitions' files stay under it (three each: .log, .index, .timeindex). */
    static final int MAX_OPEN_PARTITIONS = 50;

    private KafkaPartitionFlood() {
    }

    static BoundedBroker.Probe run(Path dir, BrokerProcess.Options options) throws IOException {
        int kafkaPort = freePort();
        try (BrokerProcess broker = BrokerProcess.start(dir, options.plusServeArgs("--kafka-port",
                Integer.toString(kafkaPort), "--config", "max.partitions=" + MAX_PARTITIONS, "--max-open-partitions",
                Integer.toString(MAX_OPEN_PARTITIONS)))) {
            Ledger ledger = new Ledger();
            SteadyClient good = BoundedBroker.steadyClient(broker, ledger);
            long[] before = {broker.procStatus("VmRSS"), broker.openFds(), broker.procStatus("Threads")};
            int unknown;
            try (Socket socket = new Socket(broker.host(), kafkaPort)) {
                socket.setSoTimeout(60_000);
                unknown = unknownAnswers(roundTrip(socket, produce(1)));
                roundTrip(socket, metadata(2));
            }
            long[] peak = {broker.procStatus("VmRSS"), broker.openFds(), broker.procStatus("Threads")};
            good.awaitRounds(3, 30_000);
            good.stop();
            long[] after = {broker.procStatus("VmRSS"), broker.openFds(), broker.procStatus("Threads")};
            long floodDirs = dirs(dir, "flood-");
            long autoDirs = dirs(dir, "auto");
            // the good client's partition is one of the max.partitions the broker holds
            boolean ok = broker.isAlive() && good.failure == null && unknown == PARTITIONS && floodDirs == 0
                    && autoDirs == MAX_PARTITIONS - 1
                    && Math.max(peak[1], after[1]) <= before[1] + 3L * MAX_OPEN_PARTITIONS + 10
                    && broker.log().stream().noneMatch(l -> l.contains("ticker stopped"));
            return new BoundedBroker.Probe("6h Kafka-port produce and auto-create past max.partitions", 2,
                    ledger.ackedRecords(), unknown, 0, ok, List.of(
                    "one Produce v8 naming " + PARTITIONS + " partitions of a topic nobody created: " + unknown
                            + " answered UNKNOWN_TOPIC_OR_PARTITION (3), directories made: " + floodDirs,
                    "one Metadata v4 asking " + TOPICS + " new topics (allow_auto_topic_creation, num.partitions=1)"
                            + " under --config max.partitions=" + MAX_PARTITIONS + " --max-open-partitions " + MAX_OPEN_PARTITIONS + ": "
                            + autoDirs + " created",
                    "broker RSS kB " + before[0] + " before, " + peak[0] + " after the two requests, " + after[0]
                            + " at the end; fds " + before[1] + ", " + peak[1] + ", " + after[1] + "; threads "
                            + before[2] + ", " + peak[2] + ", " + after[2],
                    good.summary()));
        }
    }

    /** A port free right now for the Kafka listener (BrokerProcess reads only kaen-log's own port from stdout). */
    private static int freePort() throws IOException {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    /** Request header v1: api_key · api_version · correlation_id · client_id. */
    private static KafkaWriter header(int apiKey, int version, int correlationId) {
        return new KafkaWriter().int16(apiKey).int16(version).int32(correlationId).nullableString("flood");
    }

    private static byte[] produce(int correlationId) {
        KafkaWriter out = header(0, 8, correlationId).nullableString(null).int16(1).int32(5_000).arrayLength(1)
                .nullableString("flood-topic").arrayLength(PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            out.int32(p).nullableBytes(ByteBuffer.allocate(0));
        }
        return out.toByteArray();
    }

    private static byte[] metadata(int correlationId) {
        KafkaWriter out = header(3, 4, correlationId).arrayLength(TOPICS);
        for (int t = 0; t < TOPICS; t++) {
            out.nullableString("auto" + t);
        }
        return out.bool(true).toByteArray();
    }

    private static ByteBuffer roundTrip(Socket socket, byte[] frame) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        return ByteBuffer.wrap(answer);
    }

    /** Produce v8's answer: correlation_id · [topic · [index · error · base · append_time · log_start · [] · msg]]. */
    private static int unknownAnswers(ByteBuffer answer) {
        answer.getInt(); // correlation_id
        int unknown = 0;
        int topics = answer.getInt();
        for (int t = 0; t < topics; t++) {
            short name = answer.getShort();
            answer.position(answer.position() + name);
            int partitions = answer.getInt();
            for (int p = 0; p < partitions; p++) {
                answer.getInt();
                if (answer.getShort() == 3) {
                    unknown++;
                }
                answer.position(answer.position() + 24); // base_offset, log_append_time_ms, log_start_offset
                answer.getInt(); // record_errors: empty
                short message = answer.getShort();
                answer.position(answer.position() + Math.max(0, message));
            }
        }
        return unknown;
    }

    private static long dirs(Path dir, String prefix) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(Files::isDirectory).filter(p -> p.getFileName().toString().startsWith(prefix)).count();
        }
    }
}
