package kaenlog.reliability;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import kaenlog.reliability.BoundedBroker.Probe;
import kaenlog.reliability.ResponsePath.Resources;
import kaenlog.reliability.ResponsePath.Sampler;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * Scenario 8 (#36, the group coordinator on the Kafka port): each attack of the table, one
 * client at a time, against {@code klog serve --kafka-port} at {@code -Xmx128m} <b>without</b>
 * {@code -XX:+ExitOnOutOfMemoryError} (what the attacker found: a broker that runs out of
 * memory there lives on, serving no one), while a well-behaved client produces and consumes on the
 * kaen-log port. Requests are written and answers read by kafka-clients 4.1.1's message classes.
 *
 * <ol>
 * <li>8a OffsetCommit floods: 1,000 partitions of a topic nobody created, a 32,000-byte group id;</li>
 * <li>8b JoinGroups with 32,000-byte group ids, each a new group;</li>
 * <li>8c 10,000 JoinGroups with new group ids, never used again: does a new group join afterwards?</li>
 * <li>8d DescribeGroups naming one large Stable group many times;</li>
 * <li>8e newlines and ESC in group ids and client (so member) ids, and refused joins by the thousand:
 *     what reaches the broker's log;</li>
 * <li>8f an OutOfMemoryError the bounds missed (max.group.bytes set far above the heap): the process
 *     must stop with a clear last line, never live on serving no one.</li>
 * </ol>
 */
public final class GroupCoordinatorAttacks {
    static final String FORGED = "FORGED LINE: the broker says all is well";
    static final char ESC = '\u001b';
    /** The session timeout of the attackers' members: group.min.session.timeout.ms, Kafka's 6 s. */
    static final int SESSION_MS = 6_000;
    private static final String TOPIC = "good";

    /**
     * The sizes.
     *
     * @param commits       OffsetCommit requests in 8a
     * @param partitions    partitions each of them names
     * @param hugeIdChars   the length of a huge group id (8a, 8b, 8e)
     * @param hugeJoins     JoinGroups with a huge new group id (8b)
     * @param maxGroups     the broker's max.groups in 8c (its default is 10,000)
     * @param oneShot       JoinGroups with a small new group id (8c), past max.groups
     * @param describeTimes how many times 8d's DescribeGroups names its group
     * @param memberBytes   the metadata and the assignment of 8d's member, each
     * @param refusedJoins  refused JoinGroups with huge, forged group ids (8e)
     */
    public record Config(int commits, int partitions, int hugeIdChars, int hugeJoins, int maxGroups, int oneShot,
                         int describeTimes, int memberBytes, int refusedJoins) {
        public static Config full() {
            return new Config(20, 1_000, 32_000, 5_000, 10_000, 10_500, 40, 3 << 20, 2_000);
        }

        /** The tests' sizes: every bound hit, 8b's and 8c's floods smaller. */
        public static Config quick() {
            return new Config(20, 1_000, 32_000, 1_500, 1_000, 1_050, 40, 3 << 20, 500);
        }
    }

    /** The figures of every attack, a probe each. */
    public record Result(List<Probe> probes) implements ProbeFigures {
        public Result {
            probes = List.copyOf(probes);
        }

        @Override
        public String title() {
            return "8 the group coordinator (#36): Kafka port, -Xmx128m without ExitOnOutOfMemoryError,"
                    + " a well-behaved client meanwhile";
        }
    }

    private GroupCoordinatorAttacks() {
    }

    /**
     * Scenario 8 alone, its rows and details ({@code --quick}: the tests' sizes; {@code --only 8f}:
     * the rows whose names start so); exit 0 when every row held.
     */
    public static void main(String[] args) throws IOException {
        List<String> flags = List.of(args);
        Config config = flags.contains("--quick") ? Config.quick() : Config.full();
        String only = flags.contains("--only") ? flags.get(flags.indexOf("--only") + 1) : "";
        Path root = Files.createTempDirectory("kaenlog-group-coordinator");
        Result result;
        try {
            result = run(root, BrokerProcess.Options.ofThisClasspath(), config, only);
        } finally {
            Directories.deleteTree(root);
        }
        for (Figures.Row row : result.rows()) {
            System.out.printf("%-60s %7d %7d %7d  %s%n", row.scenario(), row.runs(), row.records(),
                    row.faultsInjected(), result.ok(row) ? "ok" : "FAILED");
        }
        System.out.println(result.title() + ":");
        result.details().forEach(line -> System.out.println("  " + line));
        System.exit(result.ok() ? 0 : 1);
    }

    public static Result run(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        return run(dir, options, config, "");
    }

    /** The rows whose names start with {@code only} ("" for all). */
    static Result run(Path dir, BrokerProcess.Options options, Config config, String only) throws IOException {
        record Row(String name, Attack attack) {
        }
        List<Row> rows = List.of(new Row("8a", GroupCoordinatorAttacks::offsetCommitFlood),
                new Row("8b", GroupCoordinatorAttacks::hugeGroupIds), new Row("8c", GroupCoordinatorAttacks::oneShotGroups),
                new Row("8d", GroupCoordinatorAttacks::describeAmplified), new Row("8e", GroupCoordinatorAttacks::forgedLines),
                new Row("8f", GroupCoordinatorAttacks::outOfMemoryStops));
        List<Probe> probes = new ArrayList<>();
        for (Row row : rows) {
            if (row.name().startsWith(only)) {
                probes.add(row.attack().run(Files.createDirectories(dir.resolve(row.name())), options, config));
            }
        }
        return new Result(probes);
    }

    private interface Attack {
        Probe run(Path dir, BrokerProcess.Options options, Config config) throws IOException;
    }

    private static BrokerProcess start(Path dir, BrokerProcess.Options options, String... configs) throws IOException {
        List<String> args = new ArrayList<>(List.of("--kafka-port", "0", "--config",
                "group.initial.rebalance.delay.ms=0"));
        for (String c : configs) {
            args.addAll(List.of("--config", c));
        }
        return BrokerProcess.start(dir, options.withMaxHeap("128m").withoutExitOnOutOfMemoryError()
                .plusServeArgs(args.toArray(String[]::new)));
    }

    // ---- 8a OffsetCommit floods -----------------------------------------------------------------------

    private static Probe offsetCommitFlood(Path dir, BrokerProcess.Options options, Config config)
            throws IOException {
        try (BrokerProcess broker = start(dir, options)) {
            int kafkaPort = broker.kafkaPort();
            Watch watch = new Watch(broker);
            long fetchBefore = goodGroupFetchMs(broker, kafkaPort);
            String group = huge("flood", config.hugeIdChars());
            Map<String, Integer> answers = new TreeMap<>();
            int sent = 0;
            long requestBytes = 0;
            try (KafkaConnection c = KafkaConnection.open(broker.host(), kafkaPort, 20_000)) {
                for (int i = 0; i < config.commits(); i++) {
                    OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId(group)
                            .setGenerationIdOrMemberEpoch(-1).setMemberId("");
                    OffsetCommitRequestData.OffsetCommitRequestTopic topic =
                            new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("ghost");
                    for (int p = 0; p < config.partitions(); p++) {
                        topic.partitions().add(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(p).setCommittedOffset(i));
                    }
                    commit.topics().add(topic);
                    OffsetCommitResponseData answer = c.send(ApiKeys.OFFSET_COMMIT, (short) 7, commit);
                    requestBytes += c.lastRequestBytes();
                    sent++;
                    answer.topics().forEach(t -> t.partitions().forEach(p -> answers.merge(
                            Errors.forCode(p.errorCode()).name(), 1, Integer::sum)));
                }
            } catch (IOException | RuntimeException e) {
                answers.merge("no answer (" + e.getClass().getSimpleName() + ")", 1, Integer::sum);
            }
            long offsetsBytes = bytesUnder(dir.resolve("__consumer_offsets-0"));
            long fetchAfter = goodGroupFetchMs(broker, kafkaPort);
            boolean joins = newGroupJoins(broker, kafkaPort, "after-flood");
            watch.end(broker);
            boolean ok = watch.held(broker) && joins
                    && answers.getOrDefault("UNKNOWN_TOPIC_OR_PARTITION", 0) == sent * config.partitions()
                    && offsetsBytes < (1 << 20) && fetchAfter >= 0 && fetchAfter < 1_000;
            return watch.probe("8a OffsetCommit flood: unknown partitions, 32,000-byte group id", broker, sent,
                    (long) sent * config.partitions(), ok,
                    sent + " OffsetCommit v7 (generation -1) of one " + config.hugeIdChars() + "-char group, each naming "
                            + config.partitions() + " partitions of topic 'ghost', which nobody created ("
                            + requestBytes + " bytes of requests): answers per partition " + answers,
                    "__consumer_offsets-0 on disk afterwards: " + offsetsBytes + " bytes; a well-behaved group's"
                            + " OffsetFetch took " + fetchBefore + " ms before the flood, " + fetchAfter + " ms after",
                    "a new group joined afterwards (JoinGroup, JoinGroup, SyncGroup): " + (joins ? "yes" : "NO"));
        }
    }

    // ---- 8b JoinGroups with huge group ids ---------------------------------------------------------------

    private static Probe hugeGroupIds(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        try (BrokerProcess broker = start(dir, options)) {
            int kafkaPort = broker.kafkaPort();
            Watch watch = new Watch(broker);
            Map<String, Integer> answers = new TreeMap<>();
            int sent = 0;
            long startNanos = System.nanoTime();
            try (KafkaConnection c = KafkaConnection.open(broker.host(), kafkaPort, 20_000)) {
                for (int i = 0; i < config.hugeJoins(); i++) {
                    JoinGroupResponseData answer = c.send(ApiKeys.JOIN_GROUP, (short) 5,
                            join(huge("join" + i + "-", config.hugeIdChars()), ""));
                    sent++;
                    answers.merge(Errors.forCode(answer.errorCode()).name(), 1, Integer::sum);
                }
            } catch (IOException | RuntimeException e) {
                answers.merge("no answer (" + e.getClass().getSimpleName() + ")", 1, Integer::sum);
            }
            long floodMs = (System.nanoTime() - startNanos) / 1_000_000;
            // the ids handed out expire after their session timeout; then their groups are empty
            Deadline.pause(SESSION_MS + 2_000L);
            boolean joins = newGroupJoins(broker, kafkaPort, "after-huge-ids");
            watch.end(broker);
            boolean ok = watch.held(broker) && joins
                    && sent == config.hugeJoins() && watch.top.rssKb() < 400 * 1024;
            return watch.probe("8b JoinGroup with 32,000-byte group ids", broker, sent, config.hugeJoins(), ok,
                    config.hugeJoins() + " JoinGroup v5 on one connection, each naming a new " + config.hugeIdChars()
                            + "-char group (session " + SESSION_MS + " ms): " + sent + " answered in " + floodMs
                            + " ms, " + answers,
                    "a new group joined " + (SESSION_MS + 2_000) + " ms later: " + (joins ? "yes" : "NO"));
        }
    }

    // ---- 8c one-shot groups past max.groups ------------------------------------------------------------

    private static Probe oneShotGroups(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        try (BrokerProcess broker = start(dir, options, "max.groups=" + config.maxGroups())) {
            int kafkaPort = broker.kafkaPort();
            Watch watch = new Watch(broker);
            Map<String, Integer> answers = new TreeMap<>();
            int groupsAfter;
            try (KafkaConnection c = KafkaConnection.open(broker.host(), kafkaPort, 20_000)) {
                for (int i = 0; i < config.oneShot(); i++) {
                    JoinGroupResponseData answer = c.send(ApiKeys.JOIN_GROUP, (short) 5, join("oneshot-" + i, ""));
                    answers.merge(Errors.forCode(answer.errorCode()).name(), 1, Integer::sum);
                }
                Deadline.pause(SESSION_MS + 2_000L);
                ListGroupsResponseData listed = c.send(ApiKeys.LIST_GROUPS, (short) 2, new ListGroupsRequestData());
                groupsAfter = listed.groups().size();
            }
            boolean joins = newGroupJoins(broker, kafkaPort, "after-one-shots");
            watch.end(broker);
            boolean ok = broker.isAlive() && watch.served() && joins && groupsAfter == 0;
            return watch.probe("8c one-shot groups past max.groups, then a new group", broker, config.oneShot(),
                    config.oneShot(), ok,
                    config.oneShot() + " JoinGroup v5, each a new group never used again (its id handed out with"
                            + " MEMBER_ID_REQUIRED, session " + SESSION_MS + " ms), max.groups " + config.maxGroups() + ": "
                            + answers,
                    (SESSION_MS + 2_000) + " ms later the coordinator lists " + groupsAfter + " group(s); a new group"
                            + " joined: " + (joins ? "yes" : "NO (until a restart)"));
        }
    }

    // ---- 8d DescribeGroups amplification -----------------------------------------------------------------

    private static Probe describeAmplified(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        try (BrokerProcess broker = start(dir, options)) {
            int kafkaPort = broker.kafkaPort();
            Watch watch = new Watch(broker);
            byte[] blob = new byte[config.memberBytes()];
            Arrays.fill(blob, (byte) 'm');
            String stable = "large";
            String formed = stableGroup(broker, kafkaPort, stable, blob);
            long requestBytes = -1;
            long answerBytes = -1;
            String failure = null;
            try (KafkaConnection c = KafkaConnection.open(broker.host(), kafkaPort, 30_000)) {
                DescribeGroupsRequestData describe = new DescribeGroupsRequestData();
                for (int i = 0; i < config.describeTimes(); i++) {
                    describe.groups().add(stable);
                }
                answerBytes = c.sendAndSkipAnswer(ApiKeys.DESCRIBE_GROUPS, (short) 4, describe);
                requestBytes = c.lastRequestBytes();
            } catch (IOException | RuntimeException e) {
                failure = e.toString();
            }
            watch.end(broker);
            boolean ok = watch.held(broker) && formed == null
                    && answerBytes > 2L * config.memberBytes() && answerBytes < 2L * config.memberBytes() + 4096;
            return watch.probe("8d DescribeGroups naming one large group many times", broker, 1, 1, ok,
                    "a Stable group of one member whose metadata and assignment are " + config.memberBytes()
                            + " bytes each" + (formed == null ? "" : " (NOT formed: " + formed + ")")
                            + "; one DescribeGroups v4 naming it " + config.describeTimes() + " times (" + requestBytes
                            + " bytes): " + (failure == null ? "answered with " + answerBytes + " bytes"
                            : "no answer (" + failure + ")"));
        }
    }

    // ---- 8e forged lines and refusals by the thousand ----------------------------------------------------

    private static Probe forgedLines(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        int maxGroups = 10;
        try (BrokerProcess broker = start(dir, options, "max.groups=" + maxGroups)) {
            int kafkaPort = broker.kafkaPort();
            Watch watch = new Watch(broker);
            long logBefore = logBytes(broker.log());
            String forgedId = "g\n" + FORGED + " " + ESC + "[31m";
            int refused = 0;
            long startNanos = System.nanoTime();
            try (KafkaConnection member = KafkaConnection.open(broker.host(), kafkaPort, 20_000,
                    "evil\n" + FORGED + ESC + "[2J")) {
                // a member whose id carries the client id: silent for its session, the coordinator removes it
                JoinGroupResponseData first = member.send(ApiKeys.JOIN_GROUP, (short) 5, join(forgedId, ""));
                member.send(ApiKeys.JOIN_GROUP, (short) 5, join(forgedId, first.memberId()));
                for (int i = 1; i < maxGroups; i++) {
                    member.send(ApiKeys.JOIN_GROUP, (short) 5, join("filler-" + i, ""));
                }
                String hugeForged = huge("x\n" + FORGED + ESC + "[1m", config.hugeIdChars());
                for (int i = 0; i < config.refusedJoins(); i++) {
                    JoinGroupResponseData answer = member.send(ApiKeys.JOIN_GROUP, (short) 5,
                            join(hugeForged + i, ""));
                    if (answer.errorCode() != Errors.MEMBER_ID_REQUIRED.code()) {
                        refused++;
                    }
                }
            }
            long seconds = Math.max(1, (System.nanoTime() - startNanos) / 1_000_000_000L);
            // the member's session passes without a heartbeat: the line that removes it names it
            boolean expired = broker.awaitLog(l -> l.contains("no heartbeat"), SESSION_MS + 5_000L);
            Deadline.pause(1_000);
            watch.end(broker);
            List<String> log = broker.log();
            long grew = logBytes(log) - logBefore;
            long forged = log.stream().filter(l -> l.startsWith(FORGED)).count();
            long escapes = log.stream().filter(l -> l.indexOf(ESC) >= 0).count();
            long longest = log.stream().mapToLong(String::length).max().orElse(0);
            boolean ok = broker.isAlive() && watch.served() && expired && forged == 0 && escapes == 0
                    && longest < 1_000 && grew < 200_000;
            return watch.probe("8e newlines and ESC in group and member ids, refusals", broker,
                    config.refusedJoins() + maxGroups, config.refusedJoins() + 2L, ok,
                    "a member of a group whose id holds a newline, '" + FORGED + "' and ESC [31m, its client id"
                            + " (so its member id) a newline and ESC [2J, silent until its session passed; "
                            + config.refusedJoins() + " JoinGroups of new " + config.hugeIdChars() + "-char groups"
                            + " with a newline and ESC, past --config max.groups=" + maxGroups + ": " + refused
                            + " refused in " + seconds + " s",
                    "the broker's log grew by " + grew + " bytes; forged lines: " + forged + ", lines with a raw ESC: "
                            + escapes + ", longest line " + longest + " chars; the silent member's removal "
                            + (expired ? "logged" : "NOT logged within " + (SESSION_MS + 5_000) + " ms"));
        }
    }

    // ---- 8f an OutOfMemoryError the bounds missed --------------------------------------------------------

    private static Probe outOfMemoryStops(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        // max.group.bytes far above the heap: the bound no longer protects it
        try (BrokerProcess broker = start(dir, options, "max.group.bytes=4294967296")) {
            int kafkaPort = broker.kafkaPort();
            Map<String, Integer> answers = new TreeMap<>();
            try (KafkaConnection c = KafkaConnection.open(broker.host(), kafkaPort, 20_000)) {
                for (int i = 0; i < 3 * config.hugeJoins() && broker.isAlive(); i++) {
                    JoinGroupRequestData join = join(huge("oom" + i + "-", config.hugeIdChars()), "");
                    // a session of 5 minutes: the ids handed out stay, and so do their groups
                    JoinGroupResponseData answer = c.send(ApiKeys.JOIN_GROUP, (short) 5, join.setSessionTimeoutMs(300_000));
                    answers.merge(Errors.forCode(answer.errorCode()).name(), 1, Integer::sum);
                }
            } catch (IOException | RuntimeException e) {
                answers.merge("no answer (" + e.getClass().getSimpleName() + ")", 1, Integer::sum);
            }
            boolean exited = Deadline.in(30_000).await(() -> !broker.isAlive());
            List<String> deaths = deaths(broker);
            boolean served = !exited && newGroupJoins(broker, kafkaPort, "after-oom");
            List<String> log = broker.log();
            String last = log.isEmpty() ? "(none)" : log.get(log.size() - 1);
            int status = exited ? broker.kill() : -1;
            boolean ok = exited && status == 3 && last.contains("OutOfMemoryError") && last.startsWith("klog serve:");
            return new Probe("8f an OutOfMemoryError the bounds missed", 1, -1, 1, 0, ok, List.of(
                    "--config max.group.bytes=4294967296 (far above the -Xmx128m heap), then JoinGroups of new "
                            + config.hugeIdChars() + "-char groups (session 300000 ms) until the broker gave way: "
                            + answers,
                    exited ? "the process stopped (exit status " + status + "), its last line: '"
                            + (last.length() > 300 ? last.substring(0, 300) + "..." : last) + "'"
                            : "the process is still ALIVE after " + (deaths.isEmpty() ? "no thread died"
                            : "its threads died: " + deaths) + "; a new group " + (served ? "could still join (what"
                            + " else died with them is not known: a supervisor sees a live process)"
                            : "could NOT join: alive, serving no one")));
        }
    }

    // ---- the parts -----------------------------------------------------------------------------------

    /** {@code prefix} padded with 'g' to {@code chars} characters. */
    static String huge(String prefix, int chars) {
        StringBuilder s = new StringBuilder(chars).append(prefix);
        while (s.length() < chars) {
            s.append('g');
        }
        return s.toString();
    }

    private static JoinGroupRequestData join(String group, String memberId) {
        return join(group, memberId, new byte[] {0, 1});
    }

    private static JoinGroupRequestData join(String group, String memberId, byte[] metadata) {
        JoinGroupRequestData join = new JoinGroupRequestData().setGroupId(group).setSessionTimeoutMs(SESSION_MS)
                .setRebalanceTimeoutMs(30_000).setMemberId(memberId).setProtocolType("consumer");
        join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                .setMetadata(metadata));
        return join;
    }

    /**
     * Forms a Stable group of one member (JoinGroup for an id, JoinGroup with it, SyncGroup with
     * {@code blob} as its assignment, its metadata {@code blob} too); null when it became Stable,
     * else what went wrong.
     */
    private static String stableGroup(BrokerProcess broker, int kafkaPort, String group, byte[] blob) {
        try (KafkaConnection c = KafkaConnection.open(broker.host(), kafkaPort, 30_000)) {
            JoinGroupRequestData join = join(group, "", blob);
            JoinGroupResponseData first = c.send(ApiKeys.JOIN_GROUP, (short) 5, join);
            join.setMemberId(first.memberId());
            JoinGroupResponseData joined = c.send(ApiKeys.JOIN_GROUP, (short) 5, join);
            if (joined.errorCode() != 0) {
                return "JoinGroup " + Errors.forCode(joined.errorCode());
            }
            SyncGroupRequestData sync = new SyncGroupRequestData().setGroupId(group)
                    .setGenerationId(joined.generationId()).setMemberId(joined.memberId());
            sync.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                    .setMemberId(joined.memberId()).setAssignment(blob));
            SyncGroupResponseData synced = c.send(ApiKeys.SYNC_GROUP, (short) 3, sync);
            return synced.errorCode() == 0 ? null : "SyncGroup " + Errors.forCode(synced.errorCode());
        } catch (IOException | RuntimeException e) {
            return e.toString();
        }
    }

    /** A new group forms: JoinGroup (MEMBER_ID_REQUIRED), JoinGroup with the id, SyncGroup; false on any error. */
    private static boolean newGroupJoins(BrokerProcess broker, int kafkaPort, String group) {
        return stableGroup(broker, kafkaPort, group, new byte[] {0, 1}) == null;
    }

    /** How long a well-behaved group's OffsetFetch of its one committed partition took (ms), -1 if it failed. */
    private static long goodGroupFetchMs(BrokerProcess broker, int kafkaPort) {
        try (KafkaConnection c = KafkaConnection.open(broker.host(), kafkaPort, 20_000)) {
            OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId("well-behaved")
                    .setGenerationIdOrMemberEpoch(-1).setMemberId("");
            commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TOPIC)
                    .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(0).setCommittedOffset(1))));
            c.send(ApiKeys.OFFSET_COMMIT, (short) 7, commit);
            OffsetFetchRequestData fetch = new OffsetFetchRequestData().setGroupId("well-behaved");
            fetch.topics().add(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(TOPIC)
                    .setPartitionIndexes(List.of(0)));
            c.send(ApiKeys.OFFSET_FETCH, (short) 5, fetch); // the first one loads classes: timed is the second
            long start = System.nanoTime();
            OffsetFetchResponseData answer = c.send(ApiKeys.OFFSET_FETCH, (short) 5, fetch);
            long ms = (System.nanoTime() - start) / 1_000_000;
            return answer.errorCode() == 0 ? ms : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Lines saying a thread died or ran out of memory. */
    static List<String> deaths(BrokerProcess broker) {
        return broker.log().stream().filter(l -> l.contains("OutOfMemoryError") || l.contains("Exception in thread")
                || l.contains("ticker stopped")).limit(5).map(l -> l.length() > 160 ? l.substring(0, 160) + "..." : l)
                .toList();
    }

    static long logBytes(List<String> log) {
        return log.stream().mapToLong(l -> l.getBytes(StandardCharsets.UTF_8).length + 1L).sum();
    }

    private static long bytesUnder(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** What watches a broker under attack: a well-behaved client, its resources before, at the peak, after. */
    private static final class Watch {
        final Ledger ledger = new Ledger();
        final SteadyClient good;
        final Resources before;
        final Sampler peak;
        Resources top;
        Resources after;

        Watch(BrokerProcess broker) {
            good = BoundedBroker.steadyClient(broker, ledger);
            before = Resources.of(broker);
            peak = Sampler.start(broker);
        }

        /** The client's last rounds, then the figures. */
        void end(BrokerProcess broker) {
            good.awaitRounds(3, 30_000);
            good.stop();
            top = peak.stop();
            after = Resources.of(broker);
        }

        boolean served() {
            return good.failure == null;
        }

        /** Alive, the client served, no thread dead. */
        boolean held(BrokerProcess broker) {
            return broker.isAlive() && served() && deaths(broker).isEmpty();
        }

        /** The row: its lines, then the broker's resources and what the well-behaved client saw. */
        Probe probe(String name, BrokerProcess broker, long runs, long faults, boolean ok, String... lines) {
            List<String> details = new ArrayList<>(List.of(lines));
            details.add(resources(broker));
            details.add(good.summary());
            return new Probe(name, runs, ledger.ackedRecords(), faults, 0, ok, details);
        }

        String resources(BrokerProcess broker) {
            List<String> deaths = deaths(broker);
            return "broker: " + before.and(top, after) + (broker.isAlive() ? "" : "; the broker DIED")
                    + "; threads that died: " + (deaths.isEmpty() ? "none" : deaths);
        }
    }

    /** One connection to the Kafka port; requests written and answers read by kafka-clients' message classes. */
    static final class KafkaConnection implements Closeable {
        private final Socket socket;
        private final DataOutputStream out;
        private final DataInputStream in;
        private final String clientId;
        private int correlationId;
        private long lastRequestBytes;

        private KafkaConnection(Socket socket, String clientId) throws IOException {
            this.socket = socket;
            this.clientId = clientId;
            this.out = new DataOutputStream(socket.getOutputStream());
            this.in = new DataInputStream(socket.getInputStream());
        }

        static KafkaConnection open(String host, int port, int timeoutMs) throws IOException {
            return open(host, port, timeoutMs, "reliability");
        }

        static KafkaConnection open(String host, int port, int timeoutMs, String clientId) throws IOException {
            Socket s = new Socket();
            s.connect(new InetSocketAddress(host, port), SteadyClient.SOCKET_TIMEOUT_MS);
            s.setSoTimeout(timeoutMs);
            s.setTcpNoDelay(true); // as every Kafka client: a request is not held back waiting for an ack
            return new KafkaConnection(s, clientId);
        }

        /** The request's bytes, its header first. */
        private RequestHeader write(ApiKeys key, short version, ApiMessage data) throws IOException {
            RequestHeader header = new RequestHeader(key, version, clientId, ++correlationId);
            ByteBuffer request = RequestUtils.serialize(header.data(), header.headerVersion(), data, version);
            byte[] frame = new byte[4 + request.remaining()];
            ByteBuffer.wrap(frame).putInt(request.remaining()).put(request);
            lastRequestBytes = frame.length - 4;
            out.write(frame); // one write: the length and the request leave together
            out.flush();
            return header;
        }

        @SuppressWarnings("unchecked")
        <T extends ApiMessage> T send(ApiKeys key, short version, ApiMessage data) throws IOException {
            RequestHeader header = write(key, version, data);
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            return (T) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header).data();
        }

        /** Sends the request and reads its answer through without keeping it; the answer's size. */
        long sendAndSkipAnswer(ApiKeys key, short version, ApiMessage data) throws IOException {
            write(key, version, data);
            return ResponsePath.drainOneFrame(in) - 4;
        }

        long lastRequestBytes() {
            return lastRequestBytes;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
