package kaenlog.reliability.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.cluster.Checkpoints;
import kaenlog.cluster.PartitionState;
import kaenlog.reliability.Ledger;
import kaenlog.reliability.LogContents;
import kaenlog.replication.LeaderEpochCache;

/**
 * The eight invariants, held against what a scenario left: the producers' ledger, what a
 * consumer was served, the high watermarks each replica checkpointed, every state ZooKeeper's
 * transaction log holds, each broker's own log, and every replica's segment files and epoch
 * checkpoint read from disk after the heal. Each violation names the offset, the epoch and the
 * broker it is about.
 * <ol>
 * <li>every acknowledged record is readable from the final leader below its high watermark, at the
 *     acknowledged offset, in a batch with the producer's CRC;</li>
 * <li>no (producer id, sequence) twice in any replica's log; offsets dense and increasing;</li>
 * <li>the batch at an acknowledged offset carries an epoch no later than the last one the
 *     acknowledging broker was made leader of before the answer (a fenced leader's write, cut and
 *     replaced by its successor, carries the successor's epoch);</li>
 * <li>after the heal every replica is in the ISR and holds the same batches (offset, epoch, CRC)
 *     and the same epoch checkpoint (its entries below the log end: an epoch a leader began and
 *     wrote nothing in is dropped at load, by Kafka as by kaen-log);</li>
 * <li>each replica's checkpointed high watermark never falls, across its restarts; the high
 *     watermark one life of a broker served never falls; every record a consumer was served is in
 *     the final log at the same offset;</li>
 * <li>one leader per epoch (by ZooKeeper and by each broker's own account), leader epochs never
 *     fall, the controller epoch rises by one per election and never falls, leader in ISR, ISR
 *     within the replicas;</li>
 * <li>no acknowledgement while the ISR, as written in ZooKeeper, was below min.insync.replicas
 *     the whole time the request was out;</li>
 * <li>a new leader within the session timeout plus 5 s of each fault that took the leader away.</li>
 * </ol>
 */
public final class ClusterChecker {
    private static final Pattern LEADS = Pattern.compile("cluster: broker (\\d+) leads "
            + Pattern.quote(ClusterHarness.PARTITION) + " at leader epoch (\\d+)");
    private static final int SAMPLES = 4;
    /** The bound: the session timeout plus 5 s. */
    static final long NEW_LEADER_SLACK_MS = 5_000;

    /** A fault the scenario injected, and the leader at that moment. */
    public record Fault(String what, int broker, long atMs, int leaderBefore, boolean takesLeaderAway) {
    }

    /** One replica as its files hold it after the heal. */
    public record ReplicaFiles(int broker, List<BatchHeader> batches, List<LeaderEpochCache.EpochEntry> epochs,
                               long leo) {
        /** Reads broker {@code broker}'s copy of the partition from its data directory. */
        public static ReplicaFiles read(int broker, Path brokerDir) throws IOException {
            Path dir = brokerDir.resolve(ClusterHarness.PARTITION);
            List<BatchHeader> headers = new ArrayList<>();
            for (RecordBatch batch : LogContents.readSegments(dir).batches()) {
                headers.add(batch.header());
            }
            long leo = headers.isEmpty() ? 0 : headers.get(headers.size() - 1).nextOffset();
            return new ReplicaFiles(broker, headers, Checkpoints.readLeaderEpochs(dir), leo);
        }

        /** The epoch checkpoint without the epochs that hold no record (they start at or past the log end). */
        List<LeaderEpochCache.EpochEntry> epochsWithRecords() {
            return epochs.stream().filter(e -> e.startOffset() < leo).toList();
        }

        BatchHeader batchAt(long offset) {
            for (BatchHeader b : batches) {
                if (b.baseOffset() <= offset && offset <= b.lastOffset()) {
                    return b;
                }
            }
            return null;
        }
    }

    /** Everything a scenario left behind. */
    public record Evidence(ClusterLedger ledger, ClusterObserver observer, ZkHistory history,
                           Map<Integer, List<List<String>>> brokerLogs, Map<Integer, ReplicaFiles> replicas,
                           List<LogContents.Entry> finalRead, int finalLeader, List<Integer> finalIsr,
                           List<Fault> faults, List<Integer> assignment, int minIsr, int sessionTimeoutMs) {
    }

    /** What the checker found. */
    public record Verdict(long acknowledged, long readBack, long lost, long duplicated, long renumbered,
                          long fencedAcks, long newLeaderMaxMs, SortedMap<Integer, Long> violations,
                          List<String> samples) {
        public boolean ok() {
            return violations.values().stream().allMatch(n -> n == 0);
        }

        /** "1:0 2:0 ... 8:0", the count of violations of each invariant. */
        public String counts() {
            StringBuilder text = new StringBuilder();
            violations.forEach((n, count) -> text.append(text.isEmpty() ? "" : " ").append(n).append(':').append(count));
            return text.toString();
        }
    }

    private final Evidence evidence;
    private final SortedMap<Integer, Long> violations = new TreeMap<>();
    private final List<String> samples = new ArrayList<>();
    private final Map<Integer, Integer> sampled = new HashMap<>();
    private long fencedAcks;

    private ClusterChecker(Evidence evidence) {
        this.evidence = evidence;
        for (int i = 1; i <= 8; i++) {
            violations.put(i, 0L);
        }
    }

    public static Verdict check(Evidence evidence) {
        return new ClusterChecker(evidence).run();
    }

    private Verdict run() {
        Ledger.Audit audit = evidence.ledger().ledger().audit(Map.of(ClusterHarness.PARTITION, evidence.finalRead()));
        ReplicaFiles leader = evidence.replicas().get(evidence.finalLeader());
        acknowledgedAreReadable(audit, leader);
        noDuplicatesDenseOffsets(audit);
        epochsOfAcknowledgements(leader);
        replicasConverged(leader);
        highWatermarksAndServedPrefix();
        oneLeaderPerEpoch();
        noAckUnderMinIsr();
        long newLeaderMaxMs = newLeaders();
        return new Verdict(audit.ackedRecords(), audit.ackedRecords() - audit.lost() - audit.misplaced(), audit.lost(),
                audit.duplicates(), audit.misplaced(), fencedAcks, newLeaderMaxMs, violations, samples);
    }

    private void violation(int invariant, String what) {
        violations(invariant, 1, List.of(what));
    }

    /** {@code count} violations of {@code invariant}, of which {@code examples} name a few. */
    private void violations(int invariant, long count, List<String> examples) {
        violations.merge(invariant, count, Long::sum);
        for (String what : examples) {
            if (sampled.merge(invariant, 1, Integer::sum) <= SAMPLES) {
                samples.add(invariant + " " + what);
            }
        }
    }

    /** 1: at the acknowledged offset, below the final leader's HW, with the producer's bytes. */
    private void acknowledgedAreReadable(Ledger.Audit audit, ReplicaFiles leader) {
        violations(1, audit.lost() + audit.misplaced(), audit.problems().stream()
                .filter(p -> p.startsWith("acknowledged") || p.startsWith("a batch of"))
                .map(p -> p + " (final leader: broker " + evidence.finalLeader() + ")").toList());
        if (leader == null) {
            violation(1, "the final leader " + evidence.finalLeader() + " has no files to read");
            return;
        }
        for (ClusterLedger.Ack ack : evidence.ledger().acks()) {
            if (ack.producerId() < 0) {
                continue; // kafka-clients: its batches are not known here, only its records (checked above)
            }
            BatchHeader batch = leader.batchAt(ack.baseOffset());
            if (batch == null || batch.baseOffset() != ack.baseOffset() || batch.crc() != ack.crc()
                    || batch.recordCount() != ack.count()) {
                violation(1, "the batch acknowledged at offset " + ack.baseOffset() + " by broker " + ack.broker()
                        + " (crc " + Integer.toHexString(ack.crc()) + ", " + ack.count() + " records) is "
                        + (batch == null ? "not in" : "not the one at offset " + batch.baseOffset() + " (crc "
                        + Integer.toHexString(batch.crc()) + ", epoch " + batch.partitionLeaderEpoch() + ") of")
                        + " the final leader broker " + evidence.finalLeader() + "'s log");
            }
        }
    }

    /** 2: no (producer id, sequence) twice, no value twice, offsets dense and increasing, in every replica. */
    private void noDuplicatesDenseOffsets(Ledger.Audit audit) {
        violations(2, audit.duplicates() + audit.outOfOrder() + audit.partialBatches() + audit.strangers(),
                audit.problems().stream().filter(p -> !p.startsWith("acknowledged") && !p.startsWith("a batch of"))
                        .toList());
        for (ReplicaFiles replica : evidence.replicas().values()) {
            Map<Long, List<long[]>> sequences = new HashMap<>();
            long expected = replica.batches().isEmpty() ? 0 : replica.batches().get(0).baseOffset();
            for (BatchHeader b : replica.batches()) {
                if (b.baseOffset() != expected) {
                    violation(2, "broker " + replica.broker() + ": a batch at offset " + b.baseOffset() + " after one"
                            + " ending at " + (expected - 1) + " (epoch " + b.partitionLeaderEpoch() + ")");
                }
                expected = b.nextOffset();
                if (b.producerId() < 0) {
                    continue;
                }
                for (long[] seen : sequences.computeIfAbsent(b.producerId(), p -> new ArrayList<>())) {
                    if (b.baseSequence() <= seen[1] && seen[0] <= b.lastSequence()) {
                        violation(2, "broker " + replica.broker() + ": producer " + b.producerId() + "'s sequences "
                                + b.baseSequence() + ".." + b.lastSequence() + " at offset " + b.baseOffset()
                                + " were already written at offset " + seen[2]);
                    }
                }
                sequences.get(b.producerId()).add(new long[] {b.baseSequence(), b.lastSequence(), b.baseOffset()});
            }
        }
    }

    /** 3: the batch at an acknowledged offset carries an epoch its acknowledging broker had been given. */
    private void epochsOfAcknowledgements(ReplicaFiles leader) {
        if (leader == null) {
            return;
        }
        ZkHistory history = evidence.history();
        for (ClusterLedger.Ack ack : evidence.ledger().acks()) {
            BatchHeader batch = leader.batchAt(ack.baseOffset());
            if (batch == null) {
                continue; // invariant 1's
            }
            int ackEpoch = ack.broker() >= 0 ? history.latestEpochLedBy(ack.broker(), ack.ackedAtMs())
                    : history.latestEpochAt(ack.ackedAtMs());
            if (batch.partitionLeaderEpoch() < 0) {
                fencedAcks += ack.count();
                violation(3, "the batch acknowledged at offset " + ack.baseOffset() + " by broker " + ack.broker()
                        + " carries no leader epoch (-1): its leader did not stamp the epoch it led at");
            } else if (ackEpoch < 0) {
                fencedAcks += ack.count();
                violation(3, "broker " + ack.broker() + " acknowledged offset " + ack.baseOffset()
                        + " before ZooKeeper ever made it leader");
            } else if (batch.partitionLeaderEpoch() > ackEpoch) {
                fencedAcks += ack.count();
                violation(3, "offset " + ack.baseOffset() + " was acknowledged by broker " + ack.broker() + " as leader"
                        + " of epoch " + ackEpoch + ", but the final log holds a batch of epoch "
                        + batch.partitionLeaderEpoch() + " (leader " + history.leaderOf(batch.partitionLeaderEpoch())
                        + ") there: a fenced leader's acknowledgement");
            }
        }
    }

    /** 4: after the heal, every replica in the ISR, with the same batches and the same epochs. */
    private void replicasConverged(ReplicaFiles leader) {
        List<Integer> all = evidence.assignment();
        if (!evidence.finalIsr().containsAll(all)) {
            violation(4, "after the heal the ISR is " + evidence.finalIsr() + ", not every replica " + all);
        }
        if (leader == null) {
            return;
        }
        for (ReplicaFiles replica : evidence.replicas().values()) {
            if (replica.broker() == leader.broker() || !evidence.finalIsr().contains(replica.broker())) {
                continue;
            }
            int n = Math.min(replica.batches().size(), leader.batches().size());
            for (int i = 0; i < n; i++) {
                BatchHeader mine = replica.batches().get(i);
                BatchHeader theirs = leader.batches().get(i);
                if (mine.baseOffset() != theirs.baseOffset() || mine.crc() != theirs.crc()
                        || mine.partitionLeaderEpoch() != theirs.partitionLeaderEpoch()) {
                    violation(4, "broker " + replica.broker() + "'s batch " + i + " (offset " + mine.baseOffset()
                            + ", epoch " + mine.partitionLeaderEpoch() + ", crc " + Integer.toHexString(mine.crc())
                            + ") differs from the leader broker " + leader.broker() + "'s (offset " + theirs.baseOffset()
                            + ", epoch " + theirs.partitionLeaderEpoch() + ", crc " + Integer.toHexString(theirs.crc())
                            + "): divergent logs");
                    break;
                }
            }
            if (replica.batches().size() != leader.batches().size()) {
                violation(4, "broker " + replica.broker() + " holds " + replica.batches().size() + " batches (LEO "
                        + replica.leo() + "), the leader broker " + leader.broker() + " " + leader.batches().size()
                        + " (LEO " + leader.leo() + ")");
            }
            if (!replica.epochsWithRecords().equals(leader.epochsWithRecords())) {
                violation(4, "broker " + replica.broker() + "'s epochs " + replica.epochsWithRecords()
                        + " differ from the leader broker " + leader.broker() + "'s " + leader.epochsWithRecords());
            }
        }
    }

    /** 5: checkpointed HWs never fall, a life's served HWs never fall, the served prefix is all there. */
    private void highWatermarksAndServedPrefix() {
        ClusterObserver observer = evidence.observer();
        observer.checkpointedHighWatermarks().forEach((broker, hws) -> {
            for (int i = 1; i < hws.size(); i++) {
                if (hws.get(i) < hws.get(i - 1)) {
                    violation(5, "broker " + broker + "'s checkpointed high watermark went from " + hws.get(i - 1)
                            + " back to " + hws.get(i));
                }
            }
        });
        observer.servedHighWatermarks().forEach((broker, lives) -> lives.forEach((life, hws) -> {
            for (int i = 1; i < hws.size(); i++) {
                if (hws.get(i) < hws.get(i - 1)) {
                    violation(5, "broker " + broker + " (life " + life + ") served a consumer high watermark "
                            + hws.get(i - 1) + ", then " + hws.get(i));
                    break;
                }
            }
        }));
        Map<Long, String> finalLog = new HashMap<>();
        evidence.finalRead().forEach(e -> finalLog.put(e.offset(), e.value()));
        observer.served().forEach((offset, value) -> {
            if (!value.equals(finalLog.get(offset))) {
                violation(5, "offset " + offset + " was served to a consumer as '" + value + "', the final log holds "
                        + (finalLog.containsKey(offset) ? "'" + finalLog.get(offset) + "'" : "nothing") + " there");
            }
        });
        observer.problems().forEach(p -> violation(5, p));
    }

    /** 6: one leader per epoch, epochs and controller epochs never fall, leader in ISR within the replicas. */
    private void oneLeaderPerEpoch() {
        ZkHistory history = evidence.history();
        Map<Integer, Integer> leaderOf = new HashMap<>();
        int lastEpoch = -1;
        int lastControllerEpoch = -1;
        for (ZkHistory.StateVersion v : history.states()) {
            PartitionState s = v.state();
            if (s.leaderEpoch() < lastEpoch) {
                violation(6, "the leader epoch went from " + lastEpoch + " back to " + s.leaderEpoch() + " (zxid 0x"
                        + Long.toHexString(v.zxid()) + ")");
            }
            lastEpoch = Math.max(lastEpoch, s.leaderEpoch());
            Integer before = leaderOf.putIfAbsent(s.leaderEpoch(), s.leader());
            if (before != null && before != s.leader()) {
                violation(6, "epoch " + s.leaderEpoch() + " has two leaders in ZooKeeper: " + before + " and " + s.leader());
            }
            if (s.leader() != PartitionState.NO_LEADER && !s.isr().contains(s.leader())) {
                violation(6, "epoch " + s.leaderEpoch() + ": leader " + s.leader() + " is not in its ISR " + s.isr());
            }
            if (!evidence.assignment().containsAll(s.isr())) {
                violation(6, "epoch " + s.leaderEpoch() + ": ISR " + s.isr() + " is not within the replicas "
                        + evidence.assignment());
            }
            if (s.controllerEpoch() < lastControllerEpoch) {
                violation(6, "epoch " + s.leaderEpoch() + " was written with controller epoch " + s.controllerEpoch()
                        + " after one of " + lastControllerEpoch + ": a deposed controller's write");
            }
            lastControllerEpoch = Math.max(lastControllerEpoch, s.controllerEpoch());
        }
        int previous = -1;
        for (ZkHistory.ControllerEvent e : history.controllerEpochs()) {
            if (previous >= 0 && e.epoch() != previous + 1) {
                violation(6, "the controller epoch went from " + previous + " to " + e.epoch());
            }
            previous = e.epoch();
        }
        Map<Integer, Integer> claimed = new HashMap<>();
        evidence.brokerLogs().forEach((broker, lives) -> lives.forEach(log -> log.forEach(line -> {
            Matcher m = LEADS.matcher(line);
            if (!m.find()) {
                return;
            }
            int who = Integer.parseInt(m.group(1));
            int epoch = Integer.parseInt(m.group(2));
            Integer other = claimed.putIfAbsent(epoch, who);
            if (other != null && other != who) {
                violation(6, "brokers " + other + " and " + who + " each say they lead epoch " + epoch);
            }
            if (history.leaderOf(epoch) != who) {
                violation(6, "broker " + who + " says it leads epoch " + epoch + ", ZooKeeper says broker "
                        + history.leaderOf(epoch));
            }
        })));
    }

    /** 7: no acknowledgement while the written ISR was below min.insync.replicas all the time its request was out. */
    private void noAckUnderMinIsr() {
        ZkHistory history = evidence.history();
        for (ClusterLedger.Ack ack : evidence.ledger().acks()) {
            List<PartitionState> during = history.statesDuring(ack.sentAtMs(), ack.ackedAtMs());
            boolean everEnough = during.stream().anyMatch(s -> s.isr().size() >= evidence.minIsr());
            if (!during.isEmpty() && !everEnough) {
                violation(7, "offset " + ack.baseOffset() + " was acknowledged by broker " + ack.broker()
                        + " while the ISR was " + during.get(during.size() - 1).isr() + ", below min.insync.replicas "
                        + evidence.minIsr());
            }
        }
    }

    /** 8: a new leader within the session timeout + 5 s of each fault that took the leader away; the longest wait. */
    private long newLeaders() {
        long longest = -1;
        for (Fault fault : evidence.faults()) {
            if (!fault.takesLeaderAway()) {
                continue;
            }
            ZkHistory.StateVersion next = evidence.history().firstNewLeaderAfter(fault.atMs(), fault.leaderBefore());
            if (next == null) {
                violation(8, "no new leader after " + fault.what() + " of broker " + fault.broker() + " (leader "
                        + fault.leaderBefore() + ")");
                continue;
            }
            long waited = next.timeMs() - fault.atMs();
            longest = Math.max(longest, waited);
            if (waited > evidence.sessionTimeoutMs() + NEW_LEADER_SLACK_MS) {
                violation(8, "broker " + next.state().leader() + " led " + waited + " ms after " + fault.what()
                        + " of broker " + fault.broker() + ": more than the session timeout " + evidence.sessionTimeoutMs()
                        + " ms + 5 s");
            }
        }
        return longest;
    }
}
