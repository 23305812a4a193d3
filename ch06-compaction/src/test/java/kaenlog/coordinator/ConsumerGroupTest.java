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
import kaenlog.broker.PartitionConfigs;
import kaenlog.client.ProduceCommand;
import kaenlog.cli.Klog;
import kaenlog.groups.OffsetCommitKey;
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
 * offsets in the group offsets log of task 6 (GroupOffsetsLogTest), on the internal compacted partition
 * {@code __consumer_offsets-0}; {@code klog consume --group} resumes where it stopped, also after
 * the broker restarts; an admin's deletions (chapter 9's OffsetDelete and DeleteGroups) leave
 * tombstones.
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
    /** What usually keeps the broker from answering here: OFFSET_COMMIT and OFFSET_FETCH are answered from task 6 (GroupOffsetsLogTest). */
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
        broker.partition("orders-0");
        broker.partition("orders-1");
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

    @Test
    void aCommitForAPartitionNobodyCreatedIsRefusedAndWritesNothing() throws Exception {
        start();
        long endBefore = offsetsLogEnd();
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, broker.port(), 10_000)) {
            assertThat(commit(client, "g".repeat(30_000), "ghost-0", 1))
                    .as("a commit for a partition nobody produced to is UNKNOWN_PARTITION, as Kafka answers"
                            + " UNKNOWN_TOPIC_OR_PARTITION: the offsets log is not a store for anything a client names")
                    .isEqualTo(ErrorCode.UNKNOWN_PARTITION);
            assertThat(fetch(client, "g".repeat(30_000), "ghost-0").offset()).isEqualTo(OffsetFetch.NO_OFFSET);
        }
        assertThat(offsetsLogEnd()).as("nothing was written to %s", GroupCoordinator.OFFSETS_PARTITION)
                .isEqualTo(endBefore);
        assertThat(Files.exists(tmp.resolve("data").resolve("ghost-0"))).as("and no partition was created").isFalse();
    }

    @Test
    void committedOffsetsExpireAfterOffsetsRetentionMinutesLeavingTombstones() throws Exception {
        start();
        broker.partition("orders-0");
        assertThat(commitOnce("g", "orders-0", 5)).isEqualTo(ErrorCode.NONE);
        long endBefore = offsetsLogEnd();
        broker.advanceTime(7 * 86_400_000L - 1);
        broker.runDueTasks();
        assertThat(fetchOnce("g", "orders-0")).as("kept until offsets.retention.minutes"
                + " (10080) has passed since the commit of a group without members").isEqualTo(5);
        broker.advanceTime(600_000);
        broker.runDueTasks();
        assertThat(fetchOnce("g", "orders-0")).as("expired at the first retention check"
                + " after it (offsets.retention.check.interval.ms): OffsetFetch answers -1 (broker log:%n%s)", log())
                .isEqualTo(OffsetFetch.NO_OFFSET);
        assertThat(offsetsLogEnd()).as("its tombstone was appended").isEqualTo(endBefore + 1);
        assertThat(log()).as("the broker's log says what the expiry did")
                .contains("offsets-expiry " + GroupCoordinator.OFFSETS_PARTITION + ": expired 1 committed offset(s)"
                        + " of 1 group(s)");
        broker.close();
        start();
        assertThat(fetchOnce("g", "orders-0")).as("after a restart the log is read"
                + " again: the tombstone keeps the expired offset gone").isEqualTo(OffsetFetch.NO_OFFSET);
    }

    @Test
    void anAdminsDeletionWritesATombstoneForEachOffsetTheGroupHasAndForgetsIt() throws Exception {
        start();
        broker.partition("orders-0");
        broker.partition("orders-1");
        assertThat(commitOnce("g", "orders-0", 5)).isEqualTo(ErrorCode.NONE);
        assertThat(commitOnce("g", "orders-1", 7)).isEqualTo(ErrorCode.NONE);
        assertThat(commitOnce("other", "orders-0", 3)).isEqualTo(ErrorCode.NONE);
        GroupCoordinator coordinator = GroupCoordinator.of(broker);
        assertThat(coordinator.groups(broker)).as("the groups with committed offsets").containsExactly("g", "other");
        long endBefore = offsetsLogEnd();
        int deleted = coordinator.deleteOffsets(broker, "g", List.of(new OffsetCommitKey("g", "orders", 0),
                new OffsetCommitKey("g", "orders", 9)));
        assertThat(deleted).as("chapter 9's OffsetDelete of orders-0 and orders-9: only orders-0 had a commit")
                .isEqualTo(1);
        assertThat(offsetsLogEnd()).as("one tombstone, none for the offset the group never committed")
                .isEqualTo(endBefore + 1);
        assertThat(fetchOnce("g", "orders-0")).as("forgotten: OffsetFetch answers -1").isEqualTo(OffsetFetch.NO_OFFSET);
        assertThat(fetchOnce("g", "orders-1")).isEqualTo(7);
        assertThat(coordinator.deleteOffsets(broker, "g", null)).as("chapter 9's DeleteGroups: every offset the group"
                + " has left").isEqualTo(1);
        assertThat(coordinator.groups(broker)).containsExactly("other");
        broker.close();
        start();
        assertThat(fetchOnce("g", "orders-1")).as("after a restart the log is read again: the tombstones keep the"
                + " deleted offsets gone").isEqualTo(OffsetFetch.NO_OFFSET);
        assertThat(GroupCoordinator.of(broker).groups(broker)).containsExactly("other");
    }

    /** A commit on a connection of its own (moving the broker's time by days closes the idle ones). */
    private ErrorCode commitOnce(String group, String partition, long offset) throws IOException {
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, broker.port(), 10_000)) {
            return commit(client, group, partition, offset);
        }
    }

    /** The committed offset, asked on a connection of its own. */
    private long fetchOnce(String group, String partition) throws IOException {
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, broker.port(), 10_000)) {
            return fetch(client, group, partition).offset();
        }
    }

    @Test
    void whatTheCoordinatorHoldsIsBoundedByMaxCommittedOffsetBytes() throws Exception {
        broker = Broker.start(BrokerConfig.of(tmp.resolve("data")).withTickMs(0).withStartNowMs(NOW_MS)
                .withConfigs(PartitionConfigs.load().with(GroupCoordinator.MAX_OFFSET_BYTES + "=4096")), log);
        broker.partition("orders-0");
        try (BrokerClient client = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, broker.port(), 10_000)) {
            assertThat(commit(client, "small", "orders-0", 1)).isEqualTo(ErrorCode.NONE);
            assertThat(commit(client, "g".repeat(3_000), "orders-0", 1))
                    .as("a 3,000-character group would hold more than max.committed.offset.bytes (4096) in memory:"
                            + " refused, COORDINATOR_NOT_AVAILABLE (a client retries later)")
                    .isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
            assertThat(commit(client, "small", "orders-0", 2)).as("a commit that replaces one holds no more: taken")
                    .isEqualTo(ErrorCode.NONE);
        }
    }

    private long offsetsLogEnd() throws IOException {
        return broker.partition(GroupCoordinator.OFFSETS_PARTITION).locked(l -> l.logEndOffset());
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

    private ErrorCode commit(BrokerClient client, String group, String partition, long offset) throws IOException {
        byte[] request = new OffsetCommit.Request(group, partition, offset).encode();
        return OffsetCommit.Response.decode(answer(() -> client.call(ApiKeys.OFFSET_COMMIT, request))).error();
    }

    private OffsetFetch.Response fetch(BrokerClient client, String group, String partition) throws IOException {
        byte[] request = new OffsetFetch.Request(group, partition).encode();
        return OffsetFetch.Response.decode(answer(() -> client.call(ApiKeys.OFFSET_FETCH, request)));
    }

    private interface Call {
        byte[] answer() throws IOException;
    }

    /** The broker's answer; a connection it closed instead fails with its log, which says why. */
    private byte[] answer(Call call) throws IOException {
        try {
            return call.answer();
        } catch (java.io.EOFException closed) {
            throw new AssertionError("the broker closed the connection instead of answering. " + USUALLY
                    + "; broker log:\n" + log(), closed);
        }
    }
}
