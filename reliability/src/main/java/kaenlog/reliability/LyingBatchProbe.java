package kaenlog.reliability;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * A finding, measured: a producer batch whose {@code lastOffsetDelta} disagrees with its record
 * count. Its CRC is valid (the producer computed it over its own lie), so chapter 1's decoder
 * accepts it, and chapter 3's {@code Log.append} assigns it {@code lastOffsetDelta + 1} offsets.
 * Kafka refuses such a batch from a client ({@code LogValidator.validateBatch}: "Inconsistent batch
 * offset range ... and count of records", and a count of 0 or less).
 *
 * <p>The probe sends one such batch (1 record, {@code lastOffsetDelta} 2^31-1) to a partition of a
 * broker JVM, then ordinary batches, then restarts the broker and fetches the partition. It also
 * sends a batch of 0 records with {@code lastOffsetDelta} -1 to another partition. Kafka's answer
 * to both would be an error for that request and nothing written.
 */
public final class LyingBatchProbe {
    static final String PARTITION = "poison-0";
    static final String EMPTY_PARTITION = "empty-0";

    /**
     * What happened.
     *
     * @param lieAnswer          the answer to the lying batch
     * @param laterProduces      ordinary batches sent after it
     * @param laterFailed        of those, how many failed (the connection closed)
     * @param opensAfterRestart  whether the partition could be read after a restart
     * @param emptyBatchOutcome  what a 0-record batch with lastOffsetDelta -1 got
     * @param brokerLog          the broker's lines about it
     */
    public record Result(String lieAnswer, int laterProduces, int laterFailed, boolean opensAfterRestart,
                         String emptyBatchOutcome, List<String> brokerLog) {
        public Result {
            brokerLog = List.copyOf(brokerLog);
        }

        /** What Kafka does: the lie is refused and the partition is not harmed. */
        public boolean behavesLikeKafka() {
            return !lieAnswer.startsWith("NONE") && laterFailed == 0 && opensAfterRestart
                    && emptyBatchOutcome.startsWith(ErrorCode.CORRUPT_BATCH.name());
        }

        public List<String> lines() {
            return List.of(
                    "a batch of 1 record claiming lastOffsetDelta 2147483647 (CRC valid) to " + PARTITION + ": answered "
                            + lieAnswer,
                    "  then " + laterFailed + " of " + laterProduces + " ordinary produces to it failed (connection"
                            + " closed); after a restart the partition opens: " + (opensAfterRestart ? "yes" : "NO"),
                    "a batch of 0 records with lastOffsetDelta -1 to " + EMPTY_PARTITION + ": " + emptyBatchOutcome,
                    "  broker log: " + brokerLog,
                    "  expected (Kafka's LogValidator): both refused for that request, nothing written, the partition"
                            + " unharmed; " + (behavesLikeKafka() ? "holds" : "DOES NOT HOLD"));
        }
    }

    private LyingBatchProbe() {
    }

    public static Result run(Path dir, BrokerProcess.Options options) throws IOException {
        String lieAnswer;
        int failed = 0;
        int later = 120;
        String emptyOutcome;
        List<String> log = new ArrayList<>();
        BrokerProcess broker = BrokerProcess.start(dir, options);
        try {
            try (BrokerClient client = connect(broker)) {
                for (int i = 0; i < 3; i++) {
                    client.produce(PARTITION, ProduceRequest.ACKS_LEADER, batch("before-" + i));
                }
                lieAnswer = describe(client.produce(PARTITION, ProduceRequest.ACKS_LEADER,
                        lying(1, Integer.MAX_VALUE)));
            }
            // About 100 bytes each: past index.interval.bytes (4096) the index needs an entry for an
            // offset 2^31 past the segment's base, which its 4-byte relative offsets cannot hold.
            for (int i = 0; i < later; i++) {
                try (BrokerClient client = connect(broker)) {
                    ProduceResponse r = client.produce(PARTITION, ProduceRequest.ACKS_LEADER,
                            batch("after-" + i + "-".repeat(40)));
                    if (r.error() != ErrorCode.NONE) {
                        failed++;
                    }
                } catch (IOException closed) {
                    failed++;
                }
            }
            try (BrokerClient client = connect(broker)) {
                emptyOutcome = describe(client.produce(EMPTY_PARTITION, ProduceRequest.ACKS_LEADER, lying(0, -1)));
            } catch (IOException closed) {
                emptyOutcome = "connection closed, no answer";
            }
            Deadline.pause(200);
            List<String> lines = new ArrayList<>(broker.log());
            broker.kill();
            broker = BrokerProcess.start(dir, options);
            boolean opens;
            try (BrokerClient client = connect(broker)) {
                opens = client.fetch(FetchRequest.consumer(PARTITION, 0, 1024, 0)).error() == ErrorCode.NONE;
            } catch (IOException closed) {
                opens = false;
            }
            Deadline.pause(200);
            lines.addAll(broker.log());
            lines.stream().filter(l -> l.contains("internal error")).forEach(log::add);
            List<String> shapes = dedupe(log);
            return new Result(lieAnswer, later, failed, opens, emptyOutcome,
                    shapes.isEmpty() ? List.of("(no line)") : shapes.subList(0, Math.min(3, shapes.size())));
        } finally {
            broker.close();
        }
    }

    private static List<String> dedupe(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            String shape = l.replaceFirst("^connection \\d+ \\([^)]*\\) ", "connection N ");
            if (!out.contains(shape)) {
                out.add(shape);
            }
        }
        return out;
    }

    private static BrokerClient connect(BrokerProcess broker) throws IOException {
        return BrokerClient.connect(broker.host(), broker.port(), 10_000);
    }

    private static String describe(ProduceResponse r) {
        return r.error() + (r.error() == ErrorCode.NONE ? " with offsets " + r.baseOffset() + ".." + r.lastOffset() : "");
    }

    private static ByteBuffer batch(String value) {
        return new BatchBuilder().append(0L, null, value).build();
    }

    /** A batch of {@code records} records whose header claims {@code lastOffsetDelta}; its CRC is right. */
    static ByteBuffer lying(int records, int lastOffsetDelta) {
        BatchBuilder builder = new BatchBuilder();
        for (int i = 0; i < records; i++) {
            builder.append(0L, null, "lie-" + i);
        }
        List<kaenlog.batch.Record> list = records == 0 ? List.of()
                : RecordBatch.decode(builder.build()).records();
        BatchHeader header = new BatchHeader(0, 0, BatchHeader.NO_PARTITION_LEADER_EPOCH, BatchHeader.MAGIC, 0,
                (short) 0, lastOffsetDelta, 0L, 0L, BatchHeader.NO_PRODUCER_ID, BatchHeader.NO_PRODUCER_EPOCH,
                BatchHeader.NO_SEQUENCE, records);
        return BatchBuilder.encode(header, list);
    }
}
