package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.cli.Klog;
import kaenlog.produce.ApiKeys;
import kaenlog.produce.ErrorCode;
import kaenlog.produce.FetchRequest;
import kaenlog.produce.FetchResponse;
import kaenlog.produce.MalformedMessageException;
import kaenlog.produce.ProduceRequest;
import kaenlog.produce.ProduceResponse;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Task 9: the broker over real TCP on loopback (port 0: whatever port is free). Time is the
 * broker's virtual time and moves only when a test calls {@link Broker#advanceTime} (tickMs 0), so
 * no test depends on how fast this machine is. Every client has a read timeout: a broken broker
 * fails a test instead of hanging it. When a client's connection is closed under it, the failure
 * shows the broker's log, which says why.
 */
@Order(9)
class BrokerTest {
    private static final String PARTITION = "orders-0";
    private static final int READ_TIMEOUT_MS = 10_000;

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private Broker broker;

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    // ---- choosing handlers --------------------------------------------------------------------------

    @Test
    void theHandlerWithTheHighestPriorityAnswersItsApiKey() {
        RequestHandler chapter3 = new FixedHandler(ApiKeys.PRODUCE, 0);
        RequestHandler chapter7 = new FixedHandler(ApiKeys.PRODUCE, 7);
        RequestHandler fetch = new FixedHandler(ApiKeys.FETCH, 0);
        RequestHandler initProducerId = new FixedHandler((short) 2, 0);

        var chosen = Broker.chooseHandlers(List.of(chapter3, fetch, chapter7, initProducerId));

        assertThat(chosen.get(ApiKeys.PRODUCE))
                .as("a later chapter overrides a handler by registering a higher priority for the same apiKey")
                .isSameAs(chapter7);
        assertThat(chosen.get(ApiKeys.FETCH)).as("a key with one handler keeps it").isSameAs(fetch);
        assertThat(chosen.get((short) 2)).as("a new apiKey (chapter 7's INIT_PRODUCER_ID) is simply added")
                .isSameAs(initProducerId);
        assertThat(chosen).as("one handler per apiKey").hasSize(3);
    }

    @Test
    void twoHandlersSharingTheTopPriorityOfAKeyAreRefused() {
        List<RequestHandler> ambiguous = List.of(new FixedHandler(ApiKeys.FETCH, 0), new FixedHandler(ApiKeys.FETCH, 0));

        assertThatThrownBy(() -> Broker.chooseHandlers(ambiguous))
                .as("which of two equal handlers ran would depend on the classpath order: refuse to start")
                .isInstanceOf(IllegalStateException.class);
        assertThat(Broker.chooseHandlers(List.of(new FixedHandler(ApiKeys.FETCH, 0), new FixedHandler(ApiKeys.FETCH, 0),
                new FixedHandler(ApiKeys.FETCH, 1))))
                .as("a tie below the winner does not matter: only the highest priority runs")
                .hasSize(1);
    }

    // ---- produce and fetch over TCP -------------------------------------------------------------------

    @Test
    void producedBatchesComeBackInOrderAtTheOffsetsTheBrokerAssigned() throws Exception {
        start();
        BrokerClient producer = client();
        for (int b = 0; b < 5; b++) {
            ProduceResponse answer = produce(producer, ProduceRequest.ACKS_LEADER, "v" + (3 * b), "v" + (3 * b + 1),
                    "v" + (3 * b + 2));
            assertThat(answer.error()).as("a valid batch is accepted (broker log:%n%s)", brokerLog())
                    .isEqualTo(ErrorCode.NONE);
            assertThat(List.of(answer.baseOffset(), answer.lastOffset()))
                    .as("batch %d of 3 records lands right after the previous one: the leader assigns offsets", b)
                    .containsExactly(3L * b, 3L * b + 2);
        }

        List<Record> records = consumeAll(client(), 0);

        assertThat(records).extracting(Record::offset).as("offsets 0..14, no gap, no repeat")
                .containsExactlyElementsOf(range(0, 15));
        assertThat(records).extracting(r -> Record.show(r.value())).as("the values in the order they were produced")
                .containsExactlyElementsOf(range(0, 15).stream().map(i -> "v" + i).toList());
    }

    @Test
    void acksChangeWhenTheProducerIsAnsweredNeverWhatIsWritten() throws Exception {
        start();
        BrokerClient producer = client();

        ProduceResponse none = produce(producer, ProduceRequest.ACKS_NONE, "a", "b", "c");
        ProduceResponse one = produce(producer, ProduceRequest.ACKS_LEADER, "a", "b", "c");
        ProduceResponse all = produce(producer, ProduceRequest.ACKS_ALL, "a", "b", "c");

        assertThat(none.baseOffset()).as("acks=0 gets no answer, so the producer never learns an offset (-1)")
                .isEqualTo(-1);
        assertThat(List.of(one.baseOffset(), one.lastOffset()))
                .as("the acks=0 batch was written all the same (offsets 0..2): the acks=1 batch follows it at 3..5;"
                        + " and no stray answer to the acks=0 request came first (the correlationIds matched)")
                .containsExactly(3L, 5L);
        assertThat(List.of(all.error(), all.baseOffset(), all.lastOffset()))
                .as("acks=all with one replica is answered once the high watermark passes the batch: at once")
                .containsExactly(ErrorCode.NONE, 6L, 8L);

        FetchResponse fetched = fetch(client(), FetchRequest.consumer(PARTITION, 0, 1 << 20, 0));
        List<ByteBuffer> batches = RecordBatch.sliceAll(fetched.records());
        assertThat(batches).as("three batches on disk, one per acks value").hasSize(3);
        for (ByteBuffer batch : batches) {
            assertThat(batch.slice(8, batch.remaining() - 8))
                    .as("every batch is the same bytes after baseOffset: acks never changes what is written")
                    .isEqualTo(batches.get(0).slice(8, batches.get(0).remaining() - 8));
        }
    }

    @Test
    void aParkedFetchIsAnsweredWhenAnotherClientProducesAndAnotherExpiresEmptyAtItsDeadline() throws Exception {
        start();
        produce(client(), ProduceRequest.ACKS_LEADER, "first");
        BrokerClient consumer = client();
        ExecutorService background = Executors.newSingleThreadExecutor();
        toClose.add(background::shutdownNow);

        Future<FetchResponse> parked = background.submit(
                () -> consumer.fetch(FetchRequest.consumer(PARTITION, 1, 1 << 20, 60_000)));
        awaitParkedFetches(1);
        produce(client(), ProduceRequest.ACKS_LEADER, "second", "third");
        FetchResponse woken = answer(parked);

        assertThat(offsetsOf(woken.records()))
                .as("the fetch waited at offset 1 and is answered as soon as another connection appends 1..2,"
                        + " long before its 60 s max wait")
                .containsExactly(1L, 2L);

        Future<FetchResponse> expiring = background.submit(
                () -> consumer.fetch(FetchRequest.consumer(PARTITION, 3, 1 << 20, 500)));
        awaitParkedFetches(1);
        broker.advanceTime(499);
        assertThat(broker.partition(PARTITION).parkedFetchCount())
                .as("499 ms of the broker's time after it parked, a fetch with max wait 500 ms still waits")
                .isEqualTo(1);
        broker.advanceTime(1);
        FetchResponse expired = answer(expiring);
        assertThat(List.of(expired.error(), expired.records().remaining(), expired.highWatermark()))
                .as("at its deadline a parked fetch is answered with no records and no error, and the HW")
                .containsExactly(ErrorCode.NONE, 0, 3L);
    }

    @Test
    void aCorruptBatchIsAnsweredWithAnErrorAndTheConnectionLivesOn() throws Exception {
        start();
        BrokerClient producer = client();
        ByteBuffer corrupt = batch("x", "y");
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 1));

        ProduceResponse refused = call(() -> producer.produce(PARTITION, ProduceRequest.ACKS_LEADER, corrupt));
        ProduceResponse next = produce(producer, ProduceRequest.ACKS_LEADER, "ok");

        assertThat(refused.error()).as("a batch whose CRC does not match is refused with CORRUPT_BATCH, not written")
                .isEqualTo(ErrorCode.CORRUPT_BATCH);
        assertThat(next.baseOffset()).as("the same connection still works, and nothing was written before: offset 0")
                .isEqualTo(0);
    }

    // ---- hostile clients ------------------------------------------------------------------------------

    /** What a hostile client sends; each must close its own connection and no other. */
    enum Hostile {
        RANDOM_BYTES("closed:") {
            @Override
            byte[] bytes() {
                byte[] noise = new byte[64];
                new Random(42).nextBytes(noise);
                return noise;
            }
        },
        LENGTH_2_POW_31_MINUS_1("over the maximum") {
            @Override
            byte[] bytes() {
                return ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array();
            }
        },
        NEGATIVE_LENGTH("negative") {
            @Override
            byte[] bytes() {
                return ByteBuffer.allocate(4).putInt(-1).array();
            }
        },
        FRAME_STOPS_HALFWAY("in the middle of a frame") {
            @Override
            byte[] bytes() {
                return ByteBuffer.allocate(4 + 50).putInt(100).array();
            }
        },
        UNKNOWN_API_KEY("unknown apiKey 99") {
            @Override
            byte[] bytes() {
                return frame(new RequestEnvelope((short) 99, 0, new byte[0]).encode());
            }
        },
        PARTITION_NAME_ESCAPING_THE_DATA_DIR("'../x'") {
            @Override
            byte[] bytes() {
                ProduceRequest request = new ProduceRequest("../x", ProduceRequest.ACKS_LEADER, 1000, batch("evil"));
                return frame(new RequestEnvelope(ApiKeys.PRODUCE, 0, request.encode()).encode());
            }
        },
        BODY_THAT_DOES_NOT_DECODE("partition") {
            @Override
            byte[] bytes() {
                return frame(new RequestEnvelope(ApiKeys.PRODUCE, 0, new byte[] {0x7f, 0x7f, 1}).encode());
            }
        };

        final String reason;

        Hostile(String reason) {
            this.reason = reason;
        }

        abstract byte[] bytes();
    }

    @ParameterizedTest
    @EnumSource(Hostile.class)
    void aHostileClientLosesItsOwnConnectionWhileAWellBehavedOneIsServedOn(Hostile hostile) throws Exception {
        start(tmp.resolve("data"));
        BrokerClient good = client();
        produce(good, ProduceRequest.ACKS_LEADER, "before");

        try (Socket bad = new Socket()) {
            bad.setSoTimeout(READ_TIMEOUT_MS);
            bad.connect(new InetSocketAddress("127.0.0.1", broker.port()));
            sendThenHalfClose(bad, hostile.bytes());
            assertThat(closedByBroker(bad))
                    .as("the broker closes a connection that sent %s (broker log:%n%s)", hostile, brokerLog())
                    .isTrue();
            String line = logLineOf(bad.getLocalPort());
            assertThat(line).as("one line in the broker's log says why connection %s was closed (broker log:%n%s)",
                    bad.getLocalPort(), brokerLog()).contains("closed:").contains(hostile.reason);
        }

        produce(good, ProduceRequest.ACKS_LEADER, "after");
        assertThat(consumeAll(client(), 0)).extracting(r -> Record.show(r.value()))
                .as("the well-behaved client's connection survived and both its records are there, nothing else")
                .containsExactly("before", "after");
        assertThat(brokerLog().lines().filter(l -> l.contains(" closed: ")).count())
                .as("exactly one connection was closed: the hostile one (broker log:%n%s)", brokerLog())
                .isEqualTo(1);
        assertThat(brokerLog()).as("the log gives reasons, never stack traces").doesNotContain("\tat ");
        assertThat(tmp.resolve("x")).as("a partition name cannot create directories outside the data directory")
                .doesNotExist();
    }

    @Test
    @PassesOnSkeleton("partition name rules are given, not an exercise")
    void partitionNamesAreTopicDashNumberAndStayInsideTheDataDirectory() {
        Path data = tmp.resolve("data");
        assertThat(PartitionNames.resolve(data, "orders-0")).as("a plain name").isEqualTo(data.resolve("orders-0"));
        assertThat(PartitionNames.resolve(data, "my.topic_v2-12")).as("Kafka's legal characters")
                .isEqualTo(data.resolve("my.topic_v2-12"));
        for (String bad : List.of("../x", "..", ".", "", "orders", "orders-", "a/b-0", "..\\x-0", "-0", "orders-0\n",
                "x".repeat(250) + "-0")) {
            assertThatThrownBy(() -> PartitionNames.resolve(data, bad))
                    .as("'%s' is not a partition name a broker may turn into a directory", bad)
                    .isInstanceOf(MalformedMessageException.class);
        }
    }

    // ---- restart and shutdown -------------------------------------------------------------------------

    @Test
    void aRestartedBrokerServesTheSameRecordsAtTheSameOffsets() throws Exception {
        start();
        BrokerClient producer = client();
        for (int b = 0; b < 4; b++) {
            produce(producer, ProduceRequest.ACKS_ALL, "r" + (2 * b), "r" + (2 * b + 1));
        }
        List<String> before = lines(consumeAll(client(), 0));
        closeClientsAndBroker();

        start();
        List<String> after = lines(consumeAll(client(), 0));
        ProduceResponse next = produce(client(), ProduceRequest.ACKS_LEADER, "r8");

        assertThat(after).as("the log is on disk: a new broker on the same directory serves the same records"
                + " at the same offsets").isEqualTo(before).hasSize(8);
        assertThat(next.baseOffset()).as("and appends after them: the log end offset survived the restart")
                .isEqualTo(8);
    }

    @Test
    void closingTheBrokerAnswersNobodyButFreesEveryThread() throws Exception {
        start();
        BrokerClient consumer = client();
        ExecutorService background = Executors.newSingleThreadExecutor();
        toClose.add(background::shutdownNow);
        Future<FetchResponse> parked = background.submit(
                () -> consumer.fetch(FetchRequest.consumer(PARTITION, 0, 1 << 20, 60_000)));
        awaitParkedFetches(1);
        int port = broker.port();

        broker.close();

        assertThatThrownBy(() -> parked.get(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS))
                .as("a fetch parked when the broker shut down ends with a closed connection, not a hang")
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IOException.class);
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .as("close() waits for the acceptor and every connection thread of the broker")
                .noneMatch(name -> name.startsWith("klog-broker-" + port + "-"));
        assertThat(broker.connectionCount()).as("no connection left").isZero();
    }

    // ---- klog serve / produce / consume -------------------------------------------------------------

    @Test
    void klogServeProduceAndConsumeWorkTogetherOverARealPort() throws Exception {
        ByteArrayOutputStream serveOut = new ByteArrayOutputStream();
        ByteArrayOutputStream serveErr = new ByteArrayOutputStream();
        Path dir = tmp.resolve("served");
        Thread serve = new Thread(() -> Klog.run(new String[] {"serve", "--dir", dir.toString(), "--port", "0"},
                new PrintStream(serveOut, true, StandardCharsets.UTF_8),
                new PrintStream(serveErr, true, StandardCharsets.UTF_8)), "klog-serve-under-test");
        serve.setDaemon(true);
        serve.start();
        toClose.add(() -> {
            serve.interrupt();
            serve.join(READ_TIMEOUT_MS);
        });
        awaitCondition(() -> serveOut.toString(StandardCharsets.UTF_8).contains("\n") || !serve.isAlive());
        String listening = serveOut.toString(StandardCharsets.UTF_8).strip();
        assertThat(listening).as("klog serve prints one line with its address (stderr:%n%s)",
                serveErr.toString(StandardCharsets.UTF_8)).matches("listening on 127\\.0\\.0\\.1:\\d+");
        String port = listening.substring(listening.lastIndexOf(':') + 1);

        ByteArrayOutputStream produced = new ByteArrayOutputStream();
        ByteArrayOutputStream produceErr = new ByteArrayOutputStream();
        int produceStatus = new ProduceCommand(new ByteArrayInputStream("one\ntwo\nthree\n".getBytes(StandardCharsets.UTF_8)))
                .run(List.of("--port", port, "--partition", PARTITION, "--batch", "2", "--now-ms", "1700000000000"),
                        new PrintStream(produced, true, StandardCharsets.UTF_8),
                        new PrintStream(produceErr, true, StandardCharsets.UTF_8));
        ByteArrayOutputStream consumed = new ByteArrayOutputStream();
        ByteArrayOutputStream consumeErr = new ByteArrayOutputStream();
        int consumeStatus = Klog.run(new String[] {"consume", "--port", port, "--partition", PARTITION, "--from", "1",
            "--wait-ms", "0"}, new PrintStream(consumed, true, StandardCharsets.UTF_8),
                new PrintStream(consumeErr, true, StandardCharsets.UTF_8));

        assertThat(produceStatus).as("klog produce succeeds (its stderr: %s; the broker's log:%n%s)", produceErr,
                serveErr).isZero();
        assertThat(produced.toString(StandardCharsets.UTF_8))
                .as("three lines in batches of 2: two batches, offsets 0..2")
                .contains("3 record(s)").contains("2 batch(es)").contains("offsets 0..2");
        assertThat(consumeStatus).as("klog consume succeeds (its stderr: %s; the broker's log:%n%s)", consumeErr,
                serveErr).isZero();
        assertThat(consumed.toString(StandardCharsets.UTF_8))
                .as("--from 1 skips offset 0 even though it is in the first batch fetched; each line is offset,"
                        + " timestamp, key (null printed as null), value, headers (none: NO_HEADERS)")
                .isEqualTo("1\t1700000000000\tnull\ttwo\tNO_HEADERS\n2\t1700000000000\tnull\tthree\tNO_HEADERS\n");
    }

    // ---- helpers --------------------------------------------------------------------------------------

    private void start() throws IOException {
        start(tmp.resolve("data"));
    }

    private void start(Path dataDir) throws IOException {
        broker = Broker.start(BrokerConfig.of(dataDir).withTickMs(0), log);
    }

    private void closeClientsAndBroker() throws Exception {
        closeEverything();
        toClose.clear();
        broker = null;
    }

    private BrokerClient client() throws IOException {
        BrokerClient client = BrokerClient.connect("127.0.0.1", broker.port(), READ_TIMEOUT_MS);
        toClose.add(client);
        return client;
    }

    private String brokerLog() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    private interface Call<T> {
        T run() throws IOException;
    }

    /** A client call; if the broker closed the connection instead of answering, the failure quotes its log. */
    private <T> T call(Call<T> call) {
        try {
            return call.run();
        } catch (IOException e) {
            throw new AssertionError("the broker did not answer (" + e + "); its log says:\n" + brokerLog(), e);
        }
    }

    private ProduceResponse produce(BrokerClient client, short acks, String... values) {
        return call(() -> client.produce(PARTITION, acks, batch(values)));
    }

    private FetchResponse fetch(BrokerClient client, FetchRequest request) {
        FetchResponse response = call(() -> client.fetch(request));
        assertThat(response.error()).as("fetch at %d answered without error", request.fetchOffset())
                .isEqualTo(ErrorCode.NONE);
        return response;
    }

    /** Fetches from {@code offset} until an answer comes back empty (max wait 0: nothing parks). */
    private List<Record> consumeAll(BrokerClient client, long offset) {
        List<Record> records = new ArrayList<>();
        for (int round = 0; round < 1000; round++) {
            FetchResponse response = fetch(client, FetchRequest.consumer(PARTITION, offset, 1 << 20, 0));
            List<RecordBatch> batches = RecordBatch.decodeAll(response.records());
            if (batches.isEmpty()) {
                return records;
            }
            for (RecordBatch batch : batches) {
                long from = offset;
                batch.records().stream().filter(r -> r.offset() >= from).forEach(records::add);
                offset = batch.nextOffset();
            }
        }
        throw new AssertionError("a fetch loop never came back empty: offsets did not advance");
    }

    private FetchResponse answer(Future<FetchResponse> future) throws Exception {
        try {
            return future.get(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the parked fetch failed (" + e.getCause() + "); the broker's log says:\n"
                    + brokerLog(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the parked fetch was never answered; the broker's log says:\n" + brokerLog(), e);
        }
    }

    /**
     * Waits (bounded) until the partition holds this many parked fetches: the request has reached the
     * broker. Gives up at once when the broker has closed a connection (its log says why).
     */
    private void awaitParkedFetches(int count) throws Exception {
        awaitCondition(() -> {
            if (brokerLog().contains(" closed: ")) {
                return true;
            }
            try {
                return broker.partition(PARTITION).parkedFetchCount() == count;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertThat(broker.partition(PARTITION).parkedFetchCount())
                .as("a fetch at the log end is parked on the partition, not answered (broker log:%n%s)", brokerLog())
                .isEqualTo(count);
    }

    private static void awaitCondition(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 5000 && !condition.getAsBoolean(); i++) {
            Thread.sleep(2);
        }
    }

    private static void sendThenHalfClose(Socket socket, byte[] bytes) {
        try {
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
            socket.shutdownOutput();
        } catch (IOException brokerAlreadyClosedIt) {
            // the broker may close the connection before everything is sent: that is the point
        }
    }

    /** True when the broker closed the socket (end of stream or reset), false when it timed out. */
    private static boolean closedByBroker(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }

    private String logLineOf(int clientPort) {
        return brokerLog().lines().filter(l -> l.contains(":" + clientPort + ")")).findFirst().orElse("");
    }

    private static ByteBuffer batch(String... values) {
        BatchBuilder builder = new BatchBuilder();
        for (String v : values) {
            builder.append(1_700_000_000_000L, null, v.getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    private static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
    }

    private static List<Long> offsetsOf(ByteBuffer records) {
        List<Long> offsets = new ArrayList<>();
        RecordBatch.decodeAll(records.duplicate()).forEach(b -> b.records().forEach(r -> offsets.add(r.offset())));
        return offsets;
    }

    private static List<Long> range(long from, long to) {
        List<Long> list = new ArrayList<>();
        for (long i = from; i < to; i++) {
            list.add(i);
        }
        return list;
    }

    private static List<String> lines(List<Record> records) {
        return records.stream().map(r -> r.offset() + " " + Record.show(r.value())).toList();
    }

    /** A handler that answers nothing, for the choice of handlers. */
    private record FixedHandler(short apiKey, int priority) implements RequestHandler {
        @Override
        public Optional<byte[]> handle(byte[] body, BrokerContext broker) {
            return Optional.empty();
        }
    }
}
