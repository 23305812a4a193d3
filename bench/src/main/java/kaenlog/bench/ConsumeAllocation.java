package kaenlog.bench;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;

/**
 * Bytes the broker allocates in its heap per byte it serves on the consume path, measured with JFR:
 * {@code klog serve --kafka-port 0} as its own process (the classpath given), a topic of
 * {@code records} records of {@code valueBytes} bytes in batches of 100, then every record read
 * from offset 0 to the end, once over kaen-log's port (fetches of 1 MiB on one connection) and
 * once over the Kafka port (Fetch v11 of 1 MiB). For each, a JFR recording runs around the reads
 * only; the bytes allocated are the connection thread's ({@code jdk.ThreadAllocationStatistics},
 * exact) and all threads' ({@code jdk.ObjectAllocationSample} weights, an estimate).
 *
 * <p>{@code java -cp BENCH_CP kaenlog.bench.ConsumeAllocation BROKER_CP [records] [valueBytes]}
 */
public final class ConsumeAllocation {
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+)");
    private static final Pattern KAFKA = Pattern.compile("kafka protocol on (\\S+):(\\d+)");
    private static final String PARTITION = "consume-0";

    private ConsumeAllocation() {
    }

    public static void main(String[] args) throws Exception {
        String brokerClasspath = args[0];
        int records = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int valueBytes = args.length > 2 ? Integer.parseInt(args[2]) : 1024;
        Path dir = Files.createTempDirectory("kaen-consume-alloc");
        Process broker = new ProcessBuilder(javaExecutable(), "-Xmx512m", "-XX:+UseSerialGC", "-cp", brokerClasspath,
                "kaenlog.cli.Klog", "serve", "--dir", dir.resolve("data").toString(), "--port", "0", "--kafka-port", "0")
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(broker.getInputStream(), StandardCharsets.UTF_8));
            String host = null;
            int port = -1;
            int kafkaPort = -1;
            for (String line = out.readLine(); line != null && (port < 0 || kafkaPort < 0); line = out.readLine()) {
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    host = m.group(1);
                    port = Integer.parseInt(m.group(2));
                }
                Matcher k = KAFKA.matcher(line);
                if (k.find()) {
                    kafkaPort = Integer.parseInt(k.group(2));
                }
            }
            Thread drain = new Thread(() -> {
                try {
                    while (out.readLine() != null) {
                        // the broker's log is not needed here
                    }
                } catch (IOException gone) {
                    // the broker ended
                }
            });
            drain.setDaemon(true);
            drain.start();
            long served;
            try (BrokerClient client = BrokerClient.connect(host, port, 60_000)) {
                served = produce(client, records, valueBytes);
            }
            System.out.printf("%d records of %d bytes, %d bytes of batches%n", records, valueBytes, served);
            long pid = broker.pid();
            HostPort own = new HostPort(host, port);
            HostPort kafka = new HostPort(host, kafkaPort);
            measure("kaen-log port", () -> consumeKaenLog(pid, dir, own));
            measure("Kafka port", () -> consumeKafka(pid, dir, kafka));
        } finally {
            broker.destroy();
            broker.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private record HostPort(String host, int port) {
    }

    private interface Reads {
        long run() throws Exception;
    }

    private static long produce(BrokerClient client, int records, int valueBytes) throws IOException {
        long bytes = 0;
        byte[] value = new byte[valueBytes];
        for (int done = 0; done < records; ) {
            BatchBuilder builder = new BatchBuilder();
            for (int i = 0; i < 100 && done < records; i++, done++) {
                value[0] = (byte) done;
                builder.append(1_700_000_000_000L + done, null, value);
            }
            ByteBuffer batch = builder.build();
            bytes += batch.remaining();
            ErrorCode error = client.produce(PARTITION, ProduceRequest.ACKS_LEADER, batch).error();
            if (error != ErrorCode.NONE) {
                throw new IOException("produce answered " + error);
            }
        }
        return bytes;
    }

    /** Runs {@code reads} (which records itself) and prints what it served and allocated. */
    private static void measure(String what, Reads reads) throws Exception {
        long served = reads.run();
        System.out.printf("%s: %,d bytes of records served; %s%n", what, served, LAST.remove(0));
    }

    private static final List<String> LAST = new ArrayList<>();

    private static void jcmd(long pid, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("jcmd", Long.toString(pid)));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("jcmd " + String.join(" ", args) + ": " + text);
        }
    }

    /** Starts a recording, runs {@code body} on an open connection, dumps, and reads the figures. */
    private static long recorded(long pid, Path dir, Reads body) throws Exception {
        Path file = dir.resolve("consume-" + System.nanoTime() + ".jfr");
        jcmd(pid, "JFR.start", "name=consume", "settings=profile");
        long served = body.run();
        jcmd(pid, "JFR.dump", "name=consume", "filename=" + file);
        jcmd(pid, "JFR.stop", "name=consume");
        Map<String, long[]> perThread = new HashMap<>(); // thread -> {first, last}
        long sampled = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            String type = e.getEventType().getName();
            if (type.equals("jdk.ThreadAllocationStatistics")) {
                String thread = e.getThread("thread") == null ? "?" : e.getThread("thread").getJavaName();
                long allocated = e.getLong("allocated");
                perThread.merge(thread, new long[] {allocated, allocated},
                        (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
            } else if (type.equals("jdk.ObjectAllocationSample")) {
                sampled += e.getLong("weight");
            }
        }
        long connection = perThread.entrySet().stream().filter(en -> en.getKey().contains("connection"))
                .mapToLong(en -> en.getValue()[1] - en.getValue()[0]).sum();
        LAST.add(String.format("connection threads allocated %,d bytes (%.3f per byte served); all threads about %,d"
                + " (%.3f per byte served, sampled)", connection, (double) connection / served, sampled,
                (double) sampled / served));
        return served;
    }

    private static long consumeKaenLog(long pid, Path dir, HostPort at) throws Exception {
        try (BrokerClient client = BrokerClient.connect(at.host(), at.port(), 60_000)) {
            client.fetch(FetchRequest.consumer(PARTITION, 0, 1, 0)); // the connection's thread exists before JFR starts
            return recorded(pid, dir, () -> {
                long offset = 0;
                long bytes = 0;
                while (true) {
                    FetchResponse r = client.fetch(FetchRequest.consumer(PARTITION, offset, 1 << 20, 0));
                    if (r.error() != ErrorCode.NONE || !r.records().hasRemaining()) {
                        return bytes;
                    }
                    bytes += r.records().remaining();
                    offset = lastOffset(r.records()) + 1;
                }
            });
        }
    }

    /** Fetch v11 of the one partition from {@code offset}, 1 MiB, no wait, on an open connection; its records. */
    private static ByteBuffer kafkaFetch(DataOutputStream out, DataInputStream in, long offset) throws IOException {
        byte[] topic = PARTITION.substring(0, PARTITION.lastIndexOf('-')).getBytes(StandardCharsets.US_ASCII);
        ByteBuffer request = ByteBuffer.allocate(4 + 10 + 1 + 29 + 2 + topic.length + 4 + 28 + 6);
        request.putInt(request.capacity() - 4).putShort((short) 1).putShort((short) 11).putInt(1).putShort((short) 1)
                .put((byte) 'c');
        request.putInt(-1).putInt(0).putInt(0).putInt(1 << 20).put((byte) 0).putInt(0).putInt(-1).putInt(1)
                .putShort((short) topic.length).put(topic).putInt(1);
        request.putInt(0).putInt(-1).putLong(offset).putLong(-1).putInt(1 << 20).putInt(0).putShort((short) 0);
        out.write(request.array());
        out.flush();
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        ByteBuffer r = ByteBuffer.wrap(answer);
        r.position(4 + 4 + 2 + 4 + 4); // correlation id, throttle, error, session id, topics count
        r.position(r.position() + 2 + r.getShort(r.position()) + 4); // topic, partitions count
        r.position(r.position() + 4 + 2 + 8 + 8 + 8 + 4 + 4); // partition .. preferred_read_replica
        int length = r.getInt();
        return length <= 0 ? ByteBuffer.allocate(0) : r.slice(r.position(), length);
    }

    private static long consumeKafka(long pid, Path dir, HostPort at) throws Exception {
        try (Socket socket = new Socket(at.host(), at.port())) {
            socket.setSoTimeout(60_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream(), 1 << 16));
            kafkaFetch(out, in, 0); // the connection's thread exists before JFR starts
            return recorded(pid, dir, () -> {
                long offset = 0;
                long bytes = 0;
                while (true) {
                    ByteBuffer records = kafkaFetch(out, in, offset);
                    long last = lastOffset(records);
                    if (last < 0) {
                        return bytes;
                    }
                    bytes += records.remaining();
                    offset = last + 1;
                }
            });
        }
    }

    /** The last offset of the last whole batch in {@code records}. */
    static long lastOffset(ByteBuffer records) {
        long last = -1;
        ByteBuffer in = records.duplicate();
        while (in.remaining() >= 61) {
            int start = in.position();
            long base = in.getLong(start);
            int length = in.getInt(start + 8);
            if (in.remaining() < 12 + length) {
                break;
            }
            last = base + in.getInt(start + 23);
            in.position(start + 12 + length);
        }
        return last;
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
