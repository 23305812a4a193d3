package kaenlog.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.util.List;
import kaenlog.broker.Broker;
import kaenlog.client.BrokerClient;
import kaenlog.broker.BrokerConfig;
import kaenlog.client.ProduceCommand;
import kaenlog.cli.Klog;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.OffsetCommit;
import kaenlog.wire.OffsetFetch;
import kaenlog.testkit.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer groups in the running broker: OFFSET_COMMIT and OFFSET_FETCH store and read committed
 * offsets in the group offsets log (task 6), on the internal compacted partition
 * {@code __consumer_offsets-0}; {@code klog consume --group} resumes where it stopped, also after
 * the broker restarts.
 */
@Order(12)
class ConsumerGroupTest {
    private static final long NOW_MS = 1_700_000_000_000L;

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

    /** A klog command against the running broker takes well under a second; this bound only stops a hang. */
    private static final Duration COMMAND_BOUND = Duration.ofSeconds(60);
    /** What usually keeps the broker from answering here: OFFSET_COMMIT and OFFSET_FETCH are answered from task 6. */
    private static final String USUALLY = "Usually ch06 task 6: OFFSET_FETCH is answered by replaying the offsets log"
            + " (GroupOffsetsLog.committedOffsets), so a replay that never ends keeps the answer from coming";

    /** Runs a klog command against the broker, bounded: a broker that never answers fails the test, saying why. */
    private <T> T bounded(String what, ThrowingSupplier<T> command) {
        return assertTimeoutPreemptively(COMMAND_BOUND, command, () -> what + " did not finish within " + COMMAND_BOUND
                + ": it waited for the broker's answer. " + USUALLY + " (broker log:\n" + log() + ")");
    }

    private String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    private void start() throws IOException {
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0).withStartNowMs(NOW_MS), log);
    }

    @Test
    void aGroupResumesAtItsCommittedOffsetAfterTheConsumerAndAfterTheBrokerRestarts() throws Exception {
        start();
        StringBuilder events = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            events.append("event-").append(i).append('\n');
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int produced = bounded("klog produce", () -> new ProduceCommand(new ByteArrayInputStream(
                events.toString().getBytes(StandardCharsets.UTF_8)))
                .run(List.of("--port", Integer.toString(broker.port()), "--partition", "events-0", "--batch", "7",
                        "--now-ms", Long.toString(NOW_MS)), new PrintStream(new ByteArrayOutputStream(), true,
                        StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertThat(produced).as("produce (stderr: %s)", err).isZero();

        assertThat(firstOffsets(consumeAsGroup())).as("a new group starts at the beginning (broker log:%n%s)", log())
                .containsExactly(0L, 9L);
        assertThat(firstOffsets(consumeAsGroup())).as("the second run starts at the committed offset 10, not at"
                + " the beginning, though the batch it fetches starts at 7 (broker log:%n%s)", log())
                .containsExactly(10L, 19L);
        broker.close();
        start();
        assertThat(firstOffsets(consumeAsGroup())).as("the commit survives a broker restart: it is in the group"
                + " offsets log (broker log:%n%s)", log()).containsExactly(20L, 29L);
        assertThat(Files.isDirectory(tmp.resolve("data").resolve(GroupCoordinator.OFFSETS_PARTITION)))
                .as("the commits live in the internal partition %s", GroupCoordinator.OFFSETS_PARTITION).isTrue();
        assertThat(broker.configs().value(GroupCoordinator.OFFSETS_PARTITION, "cleanup.policy"))
                .as("as Kafka's __consumer_offsets, the offsets partition is compacted: one commit per key stays")
                .isEqualTo("compact");
    }

    @Test
    void offsetFetchAnswersMinusOneForAGroupThatNeverCommittedAndTheLatestCommitOtherwise() throws Exception {
        start();
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, broker.port(), 10_000)) {
            assertThat(fetch(client, "g", "orders-0")).as("no commit yet: -1, as Kafka answers (broker log:%n%s)",
                    log()).isEqualTo(new OffsetFetch.Response(ErrorCode.NONE, OffsetFetch.NO_OFFSET));
            assertThat(commit(client, "g", "orders-0", 5)).isEqualTo(ErrorCode.NONE);
            assertThat(commit(client, "g", "orders-0", 8)).isEqualTo(ErrorCode.NONE);
            assertThat(commit(client, "other", "orders-0", 2)).isEqualTo(ErrorCode.NONE);

            assertThat(fetch(client, "g", "orders-0").offset()).as("the latest commit of (g, orders, 0) wins")
                    .isEqualTo(8);
            assertThat(fetch(client, "g", "orders-1").offset()).as("another partition has its own offset")
                    .isEqualTo(OffsetFetch.NO_OFFSET);
            assertThat(commit(client, "", "orders-0", 1)).as("a group without a name is an invalid request")
                    .isEqualTo(ErrorCode.INVALID_REQUEST);
            assertThat(commit(client, "g", "orders", 1)).as("a partition name is topic-number")
                    .isEqualTo(ErrorCode.INVALID_REQUEST);
            assertThat(commit(client, "g", "orders-0", -1)).as("a committed offset is not negative")
                    .isEqualTo(ErrorCode.INVALID_REQUEST);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no answer within the client's 10 s read timeout. " + USUALLY + "; broker log:\n"
                    + log(), e);
        } catch (IOException e) {
            throw new AssertionError("the broker closed the connection instead of answering; its log:\n" + log(), e);
        }
    }

    private CliRun consumeAsGroup() {
        return bounded("klog consume --group g", () -> CliRun.of(Klog::run, "consume", "--port",
                Integer.toString(broker.port()), "--partition", "events-0", "--group", "g", "--max", "10",
                "--wait-ms", "0"));
    }

    /** The first and last offsets printed. */
    private List<Long> firstOffsets(CliRun run) {
        List<Long> offsets = run.lines().stream().map(l -> Long.parseLong(l.split("\t")[0])).toList();
        assertThat(offsets).as("ten records (status %d, stderr: %s; broker log:%n%s)", run.status(), run.err(), log())
                .hasSize(10);
        return List.of(offsets.get(0), offsets.get(9));
    }

    private static ErrorCode commit(BrokerClient client, String group, String partition, long offset) throws IOException {
        return OffsetCommit.Response.decode(client.call(ApiKeys.OFFSET_COMMIT,
                new OffsetCommit.Request(group, partition, offset).encode())).error();
    }

    private static OffsetFetch.Response fetch(BrokerClient client, String group, String partition) throws IOException {
        return OffsetFetch.Response.decode(client.call(ApiKeys.OFFSET_FETCH,
                new OffsetFetch.Request(group, partition).encode()));
    }
}
