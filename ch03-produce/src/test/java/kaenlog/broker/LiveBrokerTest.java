package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.cli.Klog;
import kaenlog.client.ProduceCommand;
import kaenlog.testkit.CliRun;
import kaenlog.wire.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker as a person runs it (the broker of task 9 (BrokerTest), used for real): the time it keeps across
 * restarts, the start-up lines that say which code answers each api key, the configs it was started
 * with, and records with keys and headers from {@code klog produce} to {@code klog consume}. The
 * klog commands wait for their answers without a timeout of their own, so the tests bound them
 * ({@link Waits}); the class-wide {@code @Timeout} is the last resort.
 */
@Order(10)
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LiveBrokerTest {
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final String PARTITION = "orders-0";

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
    private Broker broker;

    @AfterEach
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theBrokersTimeNeverGoesBackAcrossARestartEvenWhenTheClockIsBehind() throws Exception {
        Path data = tmp.resolve("data");
        broker = Broker.start(BrokerConfig.of(data).withTickMs(0).withStartNowMs(NOW_MS + 60_000), log);
        broker.advanceTime(5_000);
        broker.close();

        broker = Broker.start(BrokerConfig.of(data).withTickMs(0).withStartNowMs(NOW_MS), log);

        assertThat(broker.nowMs())
                .as("the broker stopped at %d and restarts with a clock at %d: retention compares ages with the"
                        + " broker's time, so it must start at the max of the two (%s in the data directory), never"
                        + " go back", NOW_MS + 65_000, NOW_MS, TimeCheckpoint.FILE_NAME)
                .isEqualTo(NOW_MS + 65_000);
        broker.close();
        broker = Broker.start(BrokerConfig.of(data).withTickMs(0).withStartNowMs(NOW_MS + 100_000), log);
        assertThat(broker.nowMs()).as("a clock ahead of the last time wins").isEqualTo(NOW_MS + 100_000);
    }

    @Test
    void theTickerFollowsTheClockItIsGivenButNeverBackwards() throws Exception {
        AtomicLong clock = new AtomicLong(NOW_MS);
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(1).withStartNowMs(NOW_MS)
                .withClock(clock::get), log);
        clock.set(NOW_MS + 5_000);
        awaitTime(NOW_MS + 5_000);
        clock.set(NOW_MS + 1_000);
        Thread.sleep(50);

        assertThat(broker.nowMs())
                .as("with a clock (klog serve's wall clock) the ticker moves the broker's time to it; a clock set"
                        + " back must not move the broker's time back")
                .isEqualTo(NOW_MS + 5_000);
    }

    @Test
    void aTickWaitingForABusyPartitionHoldsUpNoRequestForAnother() throws Exception {
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0).withStartNowMs(NOW_MS), log);
        Partition busy = broker.partition("busy-0");
        broker.partition(PARTITION);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread append = new Thread(() -> {
            try {
                busy.locked(l -> {
                    holding.countDown();
                    try {
                        return release.await(Waits.SECONDS, TimeUnit.SECONDS); // a long write, under the lock
                    } catch (InterruptedException e) {
                        return false;
                    }
                });
            } catch (IOException ignored) {
                // the test ends either way
            }
        }, "test: a long append to busy-0");
        Thread tick = new Thread(() -> {
            try {
                broker.advanceTime(10);
            } catch (IOException ignored) {
                // the test ends either way
            }
        }, "test: the ticker");
        try {
            append.start();
            holding.await();
            tick.start();
            for (int i = 0; i < 1_000 && tick.getState() != Thread.State.WAITING; i++) {
                Thread.sleep(5); // until the tick waits for busy-0's lock
            }
            assertThat(tick.getState()).as("the tick waits for busy-0, whose lock an append holds").isEqualTo(
                    Thread.State.WAITING);

            assertThat(Waits.within("a lookup of " + PARTITION + " while a tick waits for busy-0",
                    "the broker ticks its partitions while holding the lock every request's partition lookup takes"
                            + " (LogManager's): one slow append then holds up every request, every tick",
                    () -> broker.existingPartition(PARTITION)))
                    .as("a request for another partition is served while the tick waits").isPresent();
        } finally {
            release.countDown();
            append.join();
            tick.join();
        }
    }

    @Test
    void theBrokerSaysWhichClassOfWhichChapterAnswersEachApiKey() throws Exception {
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0).withStartNowMs(NOW_MS), log);

        assertThat(log().lines())
                .as("the start-up lines name, per api key of ApiKeys, the handler class and its chapter, so a"
                        + " reader knows which code runs")
                .contains("apiKey 1 FETCH: kaenlog.broker.FetchHandler (chapter 3)",
                        "apiKey 5 DESCRIBE_CONFIGS: kaenlog.broker.DescribeConfigsHandler (chapter 3)",
                        "apiKey 6 LIST_OFFSETS: kaenlog.broker.ListOffsetsHandler (chapter 3)")
                .anyMatch(line -> line.startsWith("apiKey 0 PRODUCE: "));
    }

    @Test
    void everyHandlerAnswersAKeyOfTheOneTableAndTheBrokerRefusesAnyOther() {
        List<RequestHandler> found = ServiceLoader.load(RequestHandler.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        List<Short> table = ApiKeys.ALL.stream().map(ApiKeys.ApiKey::key).toList();
        assertThat(found).as("every registered handler answers a key listed in ApiKeys, the one table of keys")
                .allMatch(h -> table.contains(h.apiKey()));
        assertThat(table).as("the table has no key twice").doesNotHaveDuplicates();

        RequestHandler unlisted = new RequestHandler() {
            @Override
            public short apiKey() {
                return 99;
            }

            @Override
            public Optional<byte[]> handle(byte[] body, BrokerContext context) {
                return Optional.empty();
            }
        };
        assertThatCode(() -> Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0), log,
                List.of(unlisted)))
                .as("a handler for a key the table does not list is refused at start")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("ApiKeys");
    }

    @Test
    void configsComeFromKafkasDefaultsTheBrokerWideValueAndThePartitionsOwnInThatOrder() throws Exception {
        PartitionConfigs configs = PartitionConfigs.load().with("segment.bytes=4096")
                .withPartition("orders-0:segment.bytes=1024");
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0).withConfigs(configs), log);
        String port = Integer.toString(broker.port());
        Waits.requireFramesFlushed();

        CliRun orders = Waits.within("klog configs' answer", Waits.NO_FLUSH, () -> CliRun.of(Klog::run, "configs",
                "--port", port, "--partition", "orders-0"));
        CliRun clicks = Waits.within("klog configs' answer", Waits.NO_FLUSH, () -> CliRun.of(Klog::run, "configs",
                "--port", port, "--partition", "clicks-0"));

        assertThat(orders.lines()).as("klog configs shows orders-0's own value (stderr: %s)", orders.err())
                .contains("segment.bytes=1024\tPARTITION", "index.interval.bytes=4096\tDEFAULT");
        assertThat(clicks.lines()).as("another partition gets the broker-wide value")
                .contains("segment.bytes=4096\tBROKER");
        assertThat(configs.logConfig("orders-0", broker.config().logConfig()).segmentBytes())
                .as("the partition opens with its own segment.bytes").isEqualTo(1024);
        assertThatCode(() -> configs.with("segment.byte=1"))
                .as("an unknown key is refused with the keys there are").hasMessageContaining("segment.bytes");
    }

    @Test
    void keysAndHeadersGoFromKlogProduceToKlogConsumeInItsDocumentedFormat() throws Exception {
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0).withStartNowMs(NOW_MS), log);
        String port = Integer.toString(broker.port());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Waits.requireFramesFlushed();
        int produced = Waits.within("klog produce's answers", Waits.NO_FLUSH, () -> new ProduceCommand(
                new ByteArrayInputStream("user-1:alice\nuser-2:bob:builder\n".getBytes(StandardCharsets.UTF_8)))
                .run(List.of("--port", port, "--partition", PARTITION, "--key-separator", ":", "--header",
                        "source=test", "--header", "v=2", "--now-ms", Long.toString(NOW_MS)),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertThat(produced).as("klog produce succeeds (stderr: %s; broker: %s)", err, log()).isZero();

        CliRun consumed = Waits.within("klog consume's answers", Waits.NO_FLUSH, () -> CliRun.of(Klog::run, "consume",
                "--port", port, "--partition", PARTITION, "--wait-ms", "0"));

        assertThat(consumed.lines())
                .as("offset, timestamp, key, value, headers, tab-separated; the key ends at the FIRST separator"
                        + " (stderr: %s)", consumed.err())
                .containsExactly("0\t" + NOW_MS + "\tuser-1\talice\tsource=test,v=2",
                        "1\t" + NOW_MS + "\tuser-2\tbob:builder\tsource=test,v=2");
        CliRun fromEnd = Waits.within("klog consume's answers", Waits.NO_FLUSH, () -> CliRun.of(Klog::run, "consume",
                "--port", port, "--partition", PARTITION, "--from", "end", "--wait-ms", "0"));
        assertThat(fromEnd.lines()).as("--from end starts at the high watermark: nothing yet").isEmpty();
        assertThat(fromEnd.err()).contains("next offset 2");
    }

    @Test
    void klogConsumeFromTimeStartsAtTheEarliestRecordThatNew() throws Exception {
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0).withStartNowMs(NOW_MS), log);
        String port = Integer.toString(broker.port());
        Waits.requireFramesFlushed();
        for (long at : new long[] {NOW_MS, NOW_MS + 1_000}) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int produced = Waits.within("klog produce's answers", Waits.NO_FLUSH, () -> new ProduceCommand(
                    new ByteArrayInputStream(("at-" + at + "\nagain-" + at + "\n").getBytes(StandardCharsets.UTF_8)))
                    .run(List.of("--port", port, "--partition", PARTITION, "--now-ms", Long.toString(at)),
                            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                            new PrintStream(err, true, StandardCharsets.UTF_8)));
            assertThat(produced).as("klog produce succeeds (stderr: %s; broker: %s)", err, log()).isZero();
        }

        CliRun later = Waits.within("klog consume's answers", Waits.NO_FLUSH, () -> CliRun.of(Klog::run, "consume",
                "--port", port, "--partition", PARTITION, "--from-time", Long.toString(NOW_MS + 1), "--wait-ms", "0"));
        assertThat(later.lines().stream().map(l -> l.split("\t")[0] + " " + l.split("\t")[3]).toList())
                .as("--from-time starts at the earliest offset whose timestamp is >= it (the broker's time index,"
                        + " LIST_OFFSETS) (stderr: %s; broker: %s)", later.err(), log())
                .containsExactly("2 at-" + (NOW_MS + 1_000), "3 again-" + (NOW_MS + 1_000));
        CliRun all = Waits.within("klog consume's answers", Waits.NO_FLUSH, () -> CliRun.of(Klog::run, "consume",
                "--port", port, "--partition", PARTITION, "--from-time", Long.toString(NOW_MS), "--wait-ms", "0"));
        assertThat(all.lines()).as("a timestamp equal to the first records' includes them").hasSize(4);
        CliRun none = Waits.within("klog consume's answers", Waits.NO_FLUSH, () -> CliRun.of(Klog::run, "consume",
                "--port", port, "--partition", PARTITION, "--from-time", Long.toString(NOW_MS + 1_001),
                "--wait-ms", "0"));
        assertThat(none.lines()).as("newer than every record: nothing yet").isEmpty();
        assertThat(none.err()).as("and it says where it starts instead")
                .contains("starting at the high watermark, 4").contains("next offset 4");
    }

    @Test
    void aKeyedLineWithoutTheSeparatorIsRefusedNotSentWithAKeyNobodyMeant() throws Exception {
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0).withStartNowMs(NOW_MS), log);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Waits.within("klog produce", Waits.NO_FLUSH, () -> new ProduceCommand(
                new ByteArrayInputStream("no separator here\n".getBytes(StandardCharsets.UTF_8)))
                .run(List.of("--port", Integer.toString(broker.port()), "--partition", PARTITION,
                        "--property", "parse.key=true", "--property", "key.separator=:"),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8)));

        assertThat(status).as("as Kafka's console producer, a line without key.separator is an error").isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no key separator ':'");
        assertThat(Files.exists(tmp.resolve("data").resolve(PARTITION).resolve("00000000000000000000.log")))
                .as("nothing was written: the partition was never even opened").isFalse();
    }

    private void awaitTime(long target) throws InterruptedException, IOException {
        for (int i = 0; i < 500 && broker.nowMs() < target; i++) {
            Thread.sleep(10);
        }
        assertThat(broker.nowMs()).as("the ticker moved the time to the clock within 5 s").isEqualTo(target);
    }
}
