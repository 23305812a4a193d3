package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.client.IdempotentProducer;
import kaenlog.idem.Idempotence;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.testkit.FaultInjectingProxy;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.InitProducerId;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The idempotent producer for real: chapter 3's TCP broker with chapter 7's handlers (found through
 * ServiceLoader), a producer that gets its id from the broker, and a proxy that loses answers.
 */
@Order(23)
class IdempotentBrokerTest {
    private static final String PARTITION = "orders-0";
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final int LINES = 1000;
    private static final int LINES_PER_BATCH = 7;
    private static final long PROXY_SEED = 7L;
    private static final double DROP_RATE = 0.2;
    /**
     * Every read from the broker is bounded: these tests wait on sockets, and a broker that takes a
     * request and never answers must fail the test with a reason, not hang the build.
     */
    private static final int READ_TIMEOUT_MS = 15_000;
    /** The thousand lines take a few seconds; this bound only stops a producer that never finishes. */
    private static final Duration PRODUCER_BOUND = Duration.ofSeconds(120);
    private static final String NO_ANSWER = "no answer within " + READ_TIMEOUT_MS + " ms: the broker took the request"
            + " and never answered. Usually ch07 task 4: appendIdempotent runs inside the partition's lock, so a body"
            + " that never returns (or waits on something) blocks every produce to the partition";

    @TempDir
    Path dir;
    final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    Broker startBroker() throws IOException {
        Broker broker = Broker.start(BrokerConfig.of(dir).withTickMs(0).withStartNowMs(NOW_MS),
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
        open.add(broker);
        return broker;
    }

    BrokerClient connect(int port) throws IOException {
        BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, port, READ_TIMEOUT_MS);
        open.add(client);
        return client;
    }

    /**
     * The broker's log after its start-up lines (time, handlers, tasks), its first lines only: enough
     * to show why a connection was closed.
     */
    String brokerLog() {
        List<String> lines = brokerLog.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> !l.startsWith("broker time ") && !l.startsWith("apiKey ") && !l.startsWith("task "))
                .toList();
        if (lines.size() <= 3) {
            return String.join("\n", lines);
        }
        return String.join("\n", lines.subList(0, 3)) + "\n(... " + (lines.size() - 3) + " more lines)";
    }

    long initProducerId(BrokerClient client) throws IOException {
        InitProducerId.Response response = InitProducerId.Response.decode(callInit(client));
        assertThat(response.error()).as("INIT_PRODUCER_ID is answered without error").isEqualTo(ErrorCode.NONE);
        assertThat(response.producerEpoch()).as("without transactions the epoch is 0").isZero();
        return response.producerId();
    }

    /** Every value in the partition's log on disk, in offset order (read after the broker closed). */
    List<String> valuesOnDisk() throws IOException {
        List<String> values = new ArrayList<>();
        try (Log log = Log.open(PartitionNames.resolve(dir, PARTITION), kaenlog.log.LogConfig.defaults())) {
            for (Segment segment : log.segments()) {
                for (RecordBatch batch : segment.batches()) {
                    for (Record record : batch.records()) {
                        values.add(Record.show(record.value()));
                    }
                }
            }
        }
        return values;
    }

    /** INIT_PRODUCER_ID's answer, bounded by the client's read timeout. */
    byte[] callInit(BrokerClient client) throws IOException {
        try {
            return client.call(InitProducerId.API_KEY, InitProducerId.encodeRequest());
        } catch (SocketTimeoutException e) {
            return fail("INIT_PRODUCER_ID: %s; broker log: %s", NO_ANSWER, brokerLog());
        }
    }

    ProduceResponse produce(BrokerClient client, ByteBuffer batch) throws IOException {
        try {
            return client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch.duplicate());
        } catch (SocketTimeoutException e) {
            return fail("PRODUCE: %s; broker log: %s", NO_ANSWER, brokerLog());
        } catch (EOFException | SocketException e) {
            return fail("the broker closed the connection instead of answering; its log says: %s", brokerLog());
        }
    }

    @Test
    @PassesOnSkeleton("service registration, not an exercise")
    void chapterSevensHandlersAnswerProduceAndInitProducerId() {
        List<RequestHandler> found = ServiceLoader.load(RequestHandler.class).stream()
                .map(ServiceLoader.Provider::get).toList();

        Map<Short, RequestHandler> chosen = Broker.chooseHandlers(found);

        assertThat(chosen.get(ApiKeys.PRODUCE))
                .as("chapter 7 registers a PRODUCE handler with a higher priority than chapter 3's: it wins")
                .isInstanceOf(IdempotentProduceHandler.class);
        assertThat(chosen.get(InitProducerId.API_KEY))
                .as("and the handler of its own apiKey 2, INIT_PRODUCER_ID")
                .isInstanceOf(InitProducerIdHandler.class);
    }

    @Test
    void aResendOverTcpIsAnsweredWithTheOriginalOffsetsAndAGapIsAnError() throws IOException {
        Broker broker = startBroker();
        BrokerClient client = connect(broker.port());
        long pid = initProducerId(client);
        ByteBuffer batch = Idempotence.producerBatch(pid, (short) 0, 0, List.of("a", "b", "c"), NOW_MS);

        ProduceResponse first = produce(client, batch);
        ProduceResponse again = produce(client, batch);
        ProduceResponse gap = produce(client, Idempotence.producerBatch(pid, (short) 0, 5, List.of("f"), NOW_MS));

        assertThat(first)
                .as("the first send is written at offsets 0..2")
                .isEqualTo(new ProduceResponse(PARTITION, ErrorCode.NONE, 0, 2));
        assertThat(again)
                .as("the same bytes again: no error, and the offsets of the first write, 0..2 (broker log: %s)",
                        brokerLog())
                .isEqualTo(first);
        assertThat(gap.error())
                .as("sequence 5 after 0..2 skips 3 and 4: OUT_OF_ORDER_SEQUENCE_NUMBER, nothing written")
                .isEqualTo(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
        broker.close();
        assertThat(valuesOnDisk())
                .as("the log holds a, b, c once")
                .containsExactly("a", "b", "c");
    }

    @Test
    void producerIdsAreNeverReusedAndAResendSurvivesABrokerRestart() throws IOException {
        Broker broker = startBroker();
        BrokerClient client = connect(broker.port());
        long first = initProducerId(client);
        long second = initProducerId(client);
        ByteBuffer batch = Idempotence.producerBatch(second, (short) 0, 0, List.of("x", "y"), NOW_MS);
        ProduceResponse written = produce(client, batch);
        broker.close();

        Broker restarted = startBroker();
        BrokerClient again = connect(restarted.port());
        long third = initProducerId(again);
        ProduceResponse resent = produce(again, batch);

        assertThat(List.of(first, second, third))
                .as("each init gets a new id, and the restarted broker continues after the last one it wrote down:"
                        + " a reused id would be judged against another producer's window")
                .containsExactly(0L, 1L, 2L);
        assertThat(resent)
                .as("after the restart the resend of producer %d's 0..1 is recognised (rebuilt from the active "
                        + "segment) and answered with the original offsets (broker log: %s)", second, brokerLog())
                .isEqualTo(written);
    }

    @Test
    void aThousandLinesThroughAProxyThatDropsAnswersAreWrittenExactlyOnce() throws IOException {
        Broker broker = startBroker();
        FaultInjectingProxy proxy = new FaultInjectingProxy(BrokerConfig.DEFAULT_HOST, broker.port(),
                FaultInjectingProxy.Faults.lostAnswers(PROXY_SEED, DROP_RATE));
        open.add(proxy);
        List<List<String>> batches = lines();
        ByteArrayOutputStream producerLog = new ByteArrayOutputStream();

        IdempotentProducer.Report report;
        try (IdempotentProducer producer = new IdempotentProducer(BrokerConfig.DEFAULT_HOST, proxy.port(),
                IdempotentProducer.MAX_IN_FLIGHT, 500, 0, new PrintStream(producerLog, true, StandardCharsets.UTF_8))) {
            report = assertTimeoutPreemptively(PRODUCER_BOUND, () -> {
                try {
                    return producer.send(PARTITION, batches, ProduceRequest.ACKS_ALL, NOW_MS);
                } catch (IOException e) {
                    return fail("the producer gave up: %s%nbroker log: %s", e.getMessage(), brokerLog());
                }
            }, () -> "the producer did not finish " + batches.size() + " batches within " + PRODUCER_BOUND
                    + ": it was still waiting for answers (each request waits up to 30 s, then is resent). Usually"
                    + " ch07 task 4: a PRODUCE the broker takes and never answers (broker log: " + brokerLog() + ")");
        }
        broker.close();
        List<String> onDisk = valuesOnDisk();

        assertThat(proxy.responsesDropped())
                .as("the proxy really lost answers (seed %d, rate %.1f): otherwise this test proves nothing",
                        PROXY_SEED, DROP_RATE)
                .isPositive();
        assertThat(report.reconnects())
                .as("so the producer had to reconnect and resend")
                .isPositive();
        assertThat(onDisk)
                .as("yet the log holds each of the %d lines exactly once, in order: every resend was either written "
                        + "for the first time or answered as a duplicate (%d answers lost, %d reconnects, %d requests "
                        + "resent)", LINES, proxy.responsesDropped(), report.reconnects(), report.resentRequests())
                .isEqualTo(batches.stream().flatMap(List::stream).toList());
        long offset = 0;
        for (ProduceResponse response : report.responses()) {
            assertThat(response.baseOffset())
                    .as("every batch is answered with where it really is, a duplicate with its first write's offsets")
                    .isEqualTo(offset);
            offset = response.lastOffset() + 1;
        }
    }

    @Test
    void withoutIdempotenceTheSameLostAnswersWriteCopies() throws IOException {
        Broker broker = startBroker();
        FaultInjectingProxy proxy = new FaultInjectingProxy(BrokerConfig.DEFAULT_HOST, broker.port(),
                FaultInjectingProxy.Faults.lostAnswers(PROXY_SEED, DROP_RATE));
        open.add(proxy);
        List<List<String>> batches = lines();

        int resends = 0;
        BrokerClient client = null;
        for (List<String> lines : batches) {
            BatchBuilder plain = new BatchBuilder();
            lines.forEach(line -> plain.append(NOW_MS, null, line));
            ByteBuffer batch = plain.build();
            while (true) {
                if (client == null) {
                    client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, proxy.port(), READ_TIMEOUT_MS);
                }
                try {
                    client.produce(PARTITION, ProduceRequest.ACKS_ALL, batch.duplicate());
                    break;
                } catch (SocketTimeoutException e) {
                    client.close();
                    fail("a plain PRODUCE through the proxy: %s; broker log: %s", NO_ANSWER, brokerLog());
                } catch (EOFException | SocketException lost) {
                    // chapter 3's at-least-once: no answer, so send it again
                    client.close();
                    client = null;
                    assertThat(++resends).as("bounded: broker log %s", brokerLog()).isLessThan(500);
                }
            }
        }
        if (client != null) {
            client.close();
        }
        broker.close();
        List<String> onDisk = valuesOnDisk();
        Map<String, Integer> copies = new HashMap<>();
        onDisk.forEach(v -> copies.merge(v, 1, Integer::sum));

        assertThat(onDisk.size())
                .as("the same %d lost answers, resent without producer ids: every batch whose answer was lost after"
                        + " it was written is in the log twice (%d resends)", proxy.responsesDropped(), resends)
                .isGreaterThan(LINES);
        assertThat(copies.values().stream().filter(n -> n > 1).count())
                .as("lines written more than once: at-least-once, not exactly-once")
                .isPositive();
    }

    // ---- producer ids are the broker's to hand out ----------------------------------------------------

    @Test
    void aProducerIdTheBrokerNeverHandedOutIsRefusedAndTakesNothingFromItsOwner() throws IOException {
        Broker broker = startBroker();
        BrokerClient client = connect(broker.port());
        long issued = initProducerId(client);
        long next = issued + 1;

        ProduceResponse squatter = produce(client, Idempotence.producerBatch(next, (short) 0, 0, List.of("squat"),
                NOW_MS));
        BrokerClient owner = connect(broker.port());
        long ownersId = initProducerId(owner);
        ProduceResponse ownersFirst = produce(owner, Idempotence.producerBatch(ownersId, (short) 0, 0,
                List.of("mine"), NOW_MS));

        assertThat(squatter.error())
                .as("producer id %d was never handed out by INIT_PRODUCER_ID: refused, nothing written", next)
                .isEqualTo(ErrorCode.UNKNOWN_PRODUCER_ID);
        assertThat(ownersId).as("the next INIT hands out that id, fresh").isEqualTo(next);
        assertThat(ownersFirst)
                .as("and its owner's sequence 0 is appended at offset 0, not judged OUT_OF_ORDER against a window"
                        + " someone else opened (broker log: %s)", brokerLog())
                .isEqualTo(new ProduceResponse(PARTITION, ErrorCode.NONE, 0, 0));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "garbage", "9223372036854775807", "0"})
    @PassesOnSkeleton("the producer-id log is the broker's own, given, not an exercise")
    void aBadRecordInTheProducerIdLogIsATypedErrorNamingItsOffsetNeverAnIdHandedOutTwice(String bad)
            throws IOException {
        Broker broker = startBroker();
        BrokerClient client = connect(broker.port());
        initProducerId(client);
        initProducerId(client);
        broker.close();
        Path ids = PartitionNames.resolve(dir, InitProducerIdHandler.PARTITION);
        try (Log log = Log.open(ids, kaenlog.log.LogConfig.defaults())) {
            log.append(new BatchBuilder().append(NOW_MS, null, bad).build());
            assertThatThrownBy(() -> InitProducerIdHandler.lastWritten(log))
                    .as("'%s' after ids 0 and 1 cannot be the last id handed out: not a number, negative, without a"
                            + " successor, or not above the id before it", bad)
                    .isInstanceOf(CorruptProducerIdException.class)
                    .hasMessageContaining("offset 2");
        }

        Broker restarted = startBroker();
        InitProducerId.Response response = InitProducerId.Response.decode(callInit(connect(restarted.port())));
        assertThat(response.error())
                .as("INIT_PRODUCER_ID hands out nothing rather than an id that may be a producer's already, and says"
                        + " why (broker log: %s)", brokerLog())
                .isEqualTo(ErrorCode.CORRUPT_PRODUCER_ID_RECORD);
        assertThat(brokerLog()).as("no untyped error (NumberFormatException) reached the broker")
                .doesNotContain("internal error");
    }

    static List<List<String>> lines() {
        List<List<String>> batches = new ArrayList<>();
        for (int first = 0; first < LINES; first += LINES_PER_BATCH) {
            List<String> batch = new ArrayList<>();
            for (int i = first; i < Math.min(LINES, first + LINES_PER_BATCH); i++) {
                batch.add("line " + i);
            }
            batches.add(batch);
        }
        return batches;
    }
}
