package kaenlog.logmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Broker;
import kaenlog.client.BrokerClient;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.PartitionConfigs;
import kaenlog.client.ProduceCommand;
import kaenlog.cli.Klog;
import kaenlog.cli.UsageException;
import kaenlog.log.Segment;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import kaenlog.testkit.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chapter 6 in the running broker: retention and the cleaner on the broker's schedule, with the
 * partition configs {@code klog serve} takes. Most tests move the broker's time themselves
 * (tickMs 0) and run the due tasks, so nothing depends on this machine's speed; the last one runs
 * the cleaner on its own thread while a producer and a consumer are busy.
 */
@Order(11)
class LiveCleanupTest {
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final int KEYS = 10;
    /** A klog command against the running broker takes well under a second; this bound only stops a hang. */
    private static final Duration COMMAND_BOUND = Duration.ofSeconds(60);
    /** What usually keeps the broker from answering while this chapter's tasks run in it. */
    private static final String USUALLY = "Usually ch06 task 5: the cleaner takes the partition's lock for each segment"
            + " swap (SegmentSwap.replace), so a swap that never returns blocks every produce and fetch of the partition";

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

    private String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    /** Runs a klog command against the broker, bounded: a broker that never answers fails the test, saying why. */
    private <T> T bounded(String what, ThrowingSupplier<T> command) {
        return assertTimeoutPreemptively(COMMAND_BOUND, command, () -> what + " did not finish within " + COMMAND_BOUND
                + ": it waited for the broker's answer. " + USUALLY + " (broker log:\n" + log() + ")");
    }

    private void start(PartitionConfigs configs, int tickMs) throws IOException {
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(tickMs).withStartNowMs(NOW_MS)
                .withConfigs(configs), log);
    }

    @Test
    void aCompactedPartitionKeepsOneRecordPerKeyAtItsOriginalOffsetOnceTheCleanerHasRun() throws Exception {
        start(PartitionConfigs.load().with("log.cleaner.backoff.ms=1000")
                .withPartition("orders-0:cleanup.policy=compact").withPartition("orders-0:segment.bytes=1024"), 0);
        String port = Integer.toString(broker.port());
        StringBuilder updates = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            updates.append("user-").append(i % KEYS).append(':').append(i).append('\n');
        }
        CliRun produced = bounded("klog produce", () -> produce(updates.toString(), "--port", port, "--partition",
                "orders-0", "--key-separator", ":", "--batch", "10", "--now-ms", Long.toString(NOW_MS)));
        assertThat(produced.status()).as("produce (stderr: %s, broker: %s)", produced.err(), log()).isZero();

        broker.advanceTime(999);
        broker.runDueTasks();
        assertThat(log()).as("log.cleaner.backoff.ms=1000: not due before 1000 ms of broker time")
                .doesNotContain("cleaner orders-0: cleaned");
        broker.advanceTime(1);
        broker.runDueTasks();
        CliRun consumed = bounded("klog consume", () -> CliRun.of(Klog::run, "consume", "--port", port, "--partition",
                "orders-0", "--wait-ms", "0"));

        long activeBase = activeSegmentBase(tmp.resolve("data/orders-0"));
        List<String[]> lines = consumed.lines().stream().map(l -> l.split("\t")).toList();
        assertThat(lines).as("the cleaner ran on schedule and left fewer records than the 1000 produced"
                + " (consume stderr: %s; broker log:%n%s)", consumed.err(), log()).hasSizeLessThan(1000);
        assertThat(lines).as("compaction never moves an offset: update i was produced at offset i")
                .allMatch(f -> f[0].equals(f[3]));
        assertThat(lines).as("timestamps are the producer's").allMatch(f -> f[1].equals(Long.toString(NOW_MS)));
        Map<String, Integer> belowActive = new HashMap<>();
        lines.stream().filter(f -> Long.parseLong(f[0]) < activeBase).forEach(f -> belowActive.merge(f[2], 1, Integer::sum));
        assertThat(belowActive).as("below the active segment (base %d) one record per key is left", activeBase)
                .hasSize(KEYS).allSatisfy((key, count) -> assertThat(count).as(key).isOne());
        for (int k = 0; k < KEYS; k++) {
            String last = Integer.toString(990 + k);
            assertThat(lines).as("the latest update of user-%d (offset %s) survives", k, last)
                    .anyMatch(f -> f[0].equals(last));
        }
    }

    @Test
    void retentionDeletesOldSegmentsOnScheduleAndAFetchBelowTheLogStartIsOutOfRange() throws Exception {
        start(PartitionConfigs.load().with("log.retention.check.interval.ms=100")
                .withPartition("clicks-0:retention.ms=1000").withPartition("clicks-0:segment.bytes=1024"), 0);
        String port = Integer.toString(broker.port());
        StringBuilder clicks = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            clicks.append("click-").append(i).append('\n');
        }
        CliRun produced = bounded("klog produce", () -> produce(clicks.toString(), "--port", port, "--partition",
                "clicks-0", "--batch", "10", "--now-ms", Long.toString(NOW_MS)));
        assertThat(produced.status()).as("produce (stderr: %s)", produced.err()).isZero();

        broker.advanceTime(1000);
        broker.runDueTasks();
        assertThat(consumeFrom(port, "0").status()).as("at 1000 ms no segment is MORE than retention.ms old: all"
                + " kept (broker log:%n%s)", log()).isZero();
        broker.advanceTime(1);
        broker.runDueTasks();
        assertThat(log()).as("not due yet: log.retention.check.interval.ms=100 since the last check")
                .doesNotContain("retention clicks-0: deleted");
        broker.advanceTime(100);
        broker.runDueTasks();

        CliRun below = consumeFrom(port, "0");
        assertThat(log()).as("the retention check deleted the expired closed segments").contains("retention clicks-0: deleted");
        assertThat(below.status()).as("fetching below the log start offset is an error, not an empty answer").isEqualTo(1);
        assertThat(below.err()).contains("OFFSET_OUT_OF_RANGE");
        CliRun beginning = consumeFrom(port, "beginning");
        assertThat(beginning.lines()).as("--from beginning starts at the new log start offset: only the active"
                + " segment is left (retention never deletes it)").isNotEmpty()
                .allMatch(l -> Long.parseLong(l.split("\t")[0]) >= activeSegmentBase(tmp.resolve("data/clicks-0")));
        assertThat(beginning.lines().get(beginning.lines().size() - 1)).startsWith("199\t");
    }

    /**
     * The cleaner on its own thread (tickMs 1: the tasks run about every millisecond) while one
     * client produces keyed records and another follows the partition. Whatever the interleaving,
     * the consumer sees each offset at most once, in order, with what the producer wrote there, and
     * misses a record only when a later record of the same key exists: what compaction may drop.
     */
    @Test
    @Timeout(60)
    void theCleanerRunsWhileAProducerAndAConsumerAreBusyAndNothingIsLostOrDuplicated() throws Exception {
        start(PartitionConfigs.load().with("log.cleaner.backoff.ms=1").with("min.cleanable.dirty.ratio=0.1")
                .withPartition("orders-0:cleanup.policy=compact").withPartition("orders-0:segment.bytes=1024"), 1);
        Map<Long, String> written = new ConcurrentSkipListMap<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        List<Record> seen = new ArrayList<>();
        AtomicReference<Exception> consumerFailure = new AtomicReference<>();
        Thread consumer = new Thread(() -> {
            try {
                follow(seen, producing);
            } catch (IOException | InterruptedException | RuntimeException e) {
                consumerFailure.set(e);
            }
        }, "live-cleanup-consumer");
        consumer.start();
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, broker.port(), 10_000)) {
            for (int batch = 0; batch < 300; batch++) {
                BatchBuilder builder = new BatchBuilder();
                for (int r = 0; r < 10; r++) {
                    int i = batch * 10 + r;
                    builder.append(NOW_MS, "key-" + (i * 7 % KEYS), "value-" + i);
                }
                ProduceResponse response = produceBounded(client, builder);
                assertThat(response.error()).as("produce while the cleaner runs (broker log:%n%s)", log())
                        .isEqualTo(ErrorCode.NONE);
                for (int r = 0; r < 10; r++) {
                    int i = batch * 10 + r;
                    written.put(response.baseOffset() + r, "key-" + (i * 7 % KEYS) + "=value-" + i);
                }
            }
        } finally {
            producing.set(false);
            consumer.join(30_000);
        }
        assertThat(consumer.isAlive())
                .as("the consumer did not read to the end of the log within 30 s of the last produce: its fetches kept"
                        + " answering batches that end before its offset, or never answered. Usually ch06 task 4 (a"
                        + " rewritten batch whose offsets moved: the plain builder instead of the preserving one) or "
                        + "task 5 (a swap that never returns holds the partition's lock); broker log:%n%s", log())
                .isFalse();

        assertThat(consumerFailure.get()).as("the consumer's fetches all succeed (broker log:%n%s)", log()).isNull();
        assertThat(log()).as("the cleaner ran during the test").contains("cleaner orders-0: cleaned");
        List<Long> offsets = seen.stream().map(Record::offset).toList();
        assertThat(offsets).as("the consumer sees every offset at most once, in order").isSorted().doesNotHaveDuplicates();
        assertThat(offsets).as("the consumer read to the end of the log").contains(2999L);
        Map<String, Long> lastOffsetOfKey = new HashMap<>();
        written.forEach((offset, kv) -> lastOffsetOfKey.put(kv.substring(0, kv.indexOf('=')), offset));
        for (Record r : seen) {
            assertThat(Record.show(r.key()) + "=" + Record.show(r.value()))
                    .as("offset %d holds what the producer wrote there", r.offset()).isEqualTo(written.get(r.offset()));
        }
        for (Map.Entry<Long, String> w : written.entrySet()) {
            String key = w.getValue().substring(0, w.getValue().indexOf('='));
            if (!offsets.contains(w.getKey())) {
                assertThat(lastOffsetOfKey.get(key)).as("offset %d (%s) was not seen: only a record with a later"
                        + " record of its key may be compacted away", w.getKey(), w.getValue()).isGreaterThan(w.getKey());
            }
        }
        lastOffsetOfKey.values().forEach(last -> assertThat(offsets)
                .as("every key's latest record reaches the consumer").contains(last));
    }

    /** Follows orders-0 from offset 0, slowly, until the producer is done and the log is read to its end. */
    private void follow(List<Record> seen, AtomicBoolean producing) throws IOException, InterruptedException {
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, broker.port(), 10_000)) {
            long offset = 0;
            while (true) {
                boolean last = !producing.get();
                // One batch per fetch and a pause after each: the consumer lags, so the cleaner works ahead of it.
                FetchResponse response = client.fetch(FetchRequest.consumer("orders-0", offset, 1, 0));
                if (response.error() == ErrorCode.UNKNOWN_PARTITION && producing.get()) {
                    Thread.sleep(1); // only a produce creates a partition: the producer has not made it yet
                    continue;
                }
                if (response.error() != ErrorCode.NONE) {
                    throw new IllegalStateException("fetch at " + offset + ": " + response.error());
                }
                List<RecordBatch> batches = RecordBatch.decodeAll(response.records());
                for (RecordBatch batch : batches) {
                    for (Record r : batch.records()) {
                        if (r.offset() >= offset) {
                            seen.add(r);
                        }
                    }
                    offset = Math.max(offset, batch.nextOffset());
                }
                if (batches.isEmpty() && last) {
                    return;
                }
                Thread.sleep(1);
            }
        }
    }

    private static CliRun produce(String stdin, String... args) throws UsageException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new ProduceCommand(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)))
                .run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CliRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A produce answered within the client's read timeout (10 s), or a failure that says what it waited for. */
    private ProduceResponse produceBounded(BrokerClient client, BatchBuilder builder) throws IOException {
        try {
            return client.produce("orders-0", ProduceRequest.ACKS_LEADER, builder.build());
        } catch (SocketTimeoutException e) {
            return fail("no answer to a produce within 10 s while the cleaner runs. %s (broker log:%n%s)", USUALLY, log());
        }
    }

    private CliRun consumeFrom(String port, String from) {
        return bounded("klog consume --from " + from, () -> CliRun.of(Klog::run, "consume", "--port", port,
                "--partition", "clicks-0", "--from", from, "--wait-ms", "0"));
    }

    private static long activeSegmentBase(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> Segment.parseBaseOffset(p.getFileName().toString(), Segment.LOG_SUFFIX))
                    .filter(o -> o.isPresent()).mapToLong(o -> o.getAsLong()).max().orElseThrow();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
