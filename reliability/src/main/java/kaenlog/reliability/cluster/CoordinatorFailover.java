package kaenlog.reliability.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import kaenlog.cluster.PartitionState;
import kaenlog.reliability.Deadline;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The group's coordinator killed under load (#39): a consumer group's coordinator is the leader of
 * the group's {@code __consumer_offsets} partition ({@code Utils.abs(group.hashCode()) %
 * offsets.topic.num.partitions}, Kafka's {@code GroupMetadataManager.partitionFor}), its commits are
 * acks=all appends to that partition, and its next leader loads them. Two kafka-clients 4.1.1
 * consumers of one group, each bootstrapped on all three brokers' Kafka ports, read a topic of
 * {@value #PARTITIONS} partitions (rf 3, min ISR 2) that an idempotent acks=all kafka-clients producer
 * fills; each member commits synchronously what each poll returned before it polls again
 * ({@code max.poll.records} {@value #MAX_POLL_RECORDS}). Once a third of the records are read, the
 * coordinator's broker (the offsets partition's leader by ZooKeeper) gets SIGKILL; the group reads
 * on to the last record; then the broker is restarted. A prober asks every live broker's Kafka port
 * every {@value #SAMPLE_MS} ms whom FindCoordinator names and whether it answers the group's
 * OffsetFetch itself. The row's claims:
 * <ol>
 * <li>every acknowledged record is read by the group;</li>
 * <li>each record is read at the one offset its acknowledgement named (none written twice, none moved);</li>
 * <li>the records read more than once are at most those of the polls whose commit was not
 *     acknowledged, and at most members x max.poll.records: a member polls again only once its
 *     commit is answered, so each has at most one poll uncommitted when the coordinator dies;</li>
 * <li>one coordinator at any time: no probe finds two brokers answering the group's OffsetFetch, nor
 *     two live brokers naming different coordinators;</li>
 * <li>a new coordinator, named by FindCoordinator on every live broker and answering the group
 *     itself, within the session timeout plus 5 s of the kill, and it is the offsets partition's new
 *     leader in ZooKeeper;</li>
 * <li>no commit lost: the new coordinator's first OffsetFetch answer holds, for every partition, at
 *     least the offset whose commit was acknowledged before the kill;</li>
 * <li>the group's last commits reach every acknowledged record (the coordinator answers them after
 *     the restart).</li>
 * </ol>
 * The offsets topic has {@value #OFFSETS_PARTITIONS} partitions here ({@code
 * offsets.topic.num.partitions}; Kafka's default is 50), as chapter 10's CoordinatedGroupsTest
 * sets it: the row needs one partition's leader, not 150 replicas started on three processes
 * (measured at the tests' size: the test took 43 s with 50 partitions, 31 and 32 s with 5; the
 * claims held with both).
 */
final class CoordinatorFailover {
    static final String TOPIC = "payments";
    static final String GROUP = "payments-app";
    static final int PARTITIONS = 6;
    static final int MEMBERS = 2;
    static final int MAX_POLL_RECORDS = 100;
    static final int OFFSETS_PARTITIONS = 5;
    static final String OFFSETS_TOPIC = "__consumer_offsets";
    /** The broker configs the row adds to the harness's. */
    static final String[] BROKER_CONFIGS = {"offsets.topic.num.partitions=" + OFFSETS_PARTITIONS};
    private static final long SAMPLE_MS = 100;
    /** A member's commit waits this long for an answer (a failover takes the 4 s session and an election). */
    private static final long COMMIT_TIMEOUT_MS = 30_000;
    /** The producer's pace: 10 records every 50 ms, so that it still writes when the coordinator dies. */
    private static final int RECORDS_PER_TICK = 10;
    private static final long TICK_MS = 50;

    /** A record's place: partition and offset. */
    record Position(int partition, long offset) {
        @Override
        public String toString() {
            return TOPIC + "-" + partition + "@" + offset;
        }
    }

    /** What the producer was answered and what the group read, from every thread of the row. */
    private static final class Ledger {
        final Map<String, Position> acked = new ConcurrentHashMap<>();
        final AtomicLong failed = new AtomicLong();
        final AtomicReference<Exception> firstFailure = new AtomicReference<>();
        final Map<Position, Integer> reads = new ConcurrentHashMap<>();
        final Map<String, Set<Position>> readAt = new ConcurrentHashMap<>();
        /** Per partition, the highest offset whose commit a member had acknowledged. */
        final Map<Integer, Long> committed = new ConcurrentHashMap<>();
        final AtomicLong polls = new AtomicLong();
        final AtomicLong uncommittedPolls = new AtomicLong();
        final AtomicLong uncommittedRecords = new AtomicLong();
        final Map<String, Long> commitErrors = new ConcurrentHashMap<>();

        void read(ConsumerRecord<String, String> r) {
            Position at = new Position(r.partition(), r.offset());
            reads.merge(at, 1, Integer::sum);
            readAt.computeIfAbsent(r.value(), v -> ConcurrentHashMap.newKeySet()).add(at);
        }

        long distinctRead() {
            return reads.size();
        }

        long readAgain() {
            return reads.values().stream().mapToLong(n -> n - 1).sum();
        }
    }

    /** One probe of every live broker. */
    private record Sample(long atMs, String zooKeeper, SortedMap<Integer, CoordinatorProbe.Answer> answers) {
        Set<Integer> coordinating() {
            Set<Integer> acting = new HashSet<>();
            answers.forEach((broker, a) -> {
                if (a.coordinates()) {
                    acting.add(broker);
                }
            });
            return acting;
        }
    }

    private CoordinatorFailover() {
    }

    /** The row: runs the group through the kill, then the cluster's own end ({@link ClusterRun#finish}). */
    static ClusterRun.Outcome run(ClusterRun run, long n) throws IOException {
        ClusterHarness cluster = run.cluster();
        int offsetsPartition = Utils.abs(GROUP.hashCode()) % OFFSETS_PARTITIONS;
        String bootstrap = String.join(",", cluster.nodes().stream().map(b -> "127.0.0.1:" + b.kafkaPort()).toList());
        Ledger ledger = new Ledger();
        List<Sample> samples = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        List<AtomicReference<Set<Integer>>> assignments = new ArrayList<>();
        SortedMap<Integer, Long> violations = new TreeMap<>();
        List<String> samplesOfViolations = new ArrayList<>();
        long coordinatorMs = -1;
        int killed = -1;
        int next = -1;
        long startedAt = System.currentTimeMillis();
        try {
            createTopic(run, TOPIC, PARTITIONS);
            threads.add(start("coordinator-prober", () -> probe(cluster, offsetsPartition, samples, stop)));
            for (int m = 0; m < MEMBERS; m++) {
                AtomicReference<Set<Integer>> assigned = new AtomicReference<>(Set.of());
                assignments.add(assigned);
                threads.add(start("group-member-" + m, () -> member(run, bootstrap, ledger, assigned, stop)));
            }
            boolean shared = Deadline.in(ClusterRun.WAIT_MS).await(() -> sharedOut(assignments));
            run.expect(shared, "both members joined and share the " + PARTITIONS + " partitions before the producer"
                    + " starts: " + assignments.stream().map(AtomicReference::get).toList());
            threads.add(start("group-producer", () -> produce(bootstrap, n, ledger, stop)));

            run.expect(Deadline.in(ClusterRun.WAIT_MS).await(() -> ledger.distinctRead() >= n / 3),
                    "a third of " + n + " records read within " + ClusterRun.WAIT_MS + " ms: " + ledger.distinctRead());
            killed = cluster.state(OFFSETS_TOPIC, offsetsPartition).map(PartitionState::leader).orElse(-1);
            run.expect(killed > 0, "ZooKeeper names the leader of " + OFFSETS_TOPIC + "-" + offsetsPartition);
            Map<Integer, Long> beforeKill = new TreeMap<>(ledger.committed);
            long readAtKill = ledger.distinctRead();
            long ackedAtKill = ledger.acked.size();
            long killedAt = System.currentTimeMillis();
            if (killed > 0) {
                run.kill(killed);
            }
            int old = killed;
            AtomicReference<CoordinatorProbe.Answer> first = new AtomicReference<>();
            AtomicReference<Integer> named = new AtomicReference<>(-1);
            boolean moved = Deadline.in(ClusterRun.WAIT_MS).await(() -> {
                int leader = cluster.state(OFFSETS_TOPIC, offsetsPartition).map(PartitionState::leader).orElse(-1);
                if (leader < 0 || leader == old) {
                    return false;
                }
                Sample now = probeOnce(cluster, offsetsPartition);
                boolean allName = now.answers().values().stream().allMatch(a -> a.named() == leader);
                CoordinatorProbe.Answer its = now.answers().get(leader);
                if (allName && its != null && its.coordinates()) {
                    first.set(its);
                    named.set(leader);
                    return true;
                }
                Deadline.pause(20);
                return false;
            });
            if (moved) {
                next = named.get();
                coordinatorMs = System.currentTimeMillis() - killedAt;
            }
            long bound = cluster.config().sessionTimeoutMs() + ClusterChecker.NEW_LEADER_SLACK_MS;
            boolean newCoordinator = moved && coordinatorMs <= bound;
            violations.put(5, newCoordinator ? 0L : 1L);
            if (!newCoordinator) {
                samplesOfViolations.add("claim 5: " + (moved ? "broker " + next + " after " + coordinatorMs + " ms, over "
                        + bound : "no broker both led " + OFFSETS_TOPIC + "-" + offsetsPartition + " and was named by every"
                        + " live broker within " + ClusterRun.WAIT_MS + " ms"));
            }
            long lostCommits = 0;
            if (first.get() != null) {
                for (Map.Entry<Integer, Long> c : beforeKill.entrySet()) {
                    long answered = first.get().offsets().getOrDefault(c.getKey(), -1L);
                    if (answered < c.getValue()) {
                        lostCommits++;
                        samplesOfViolations.add("claim 6: " + TOPIC + "-" + c.getKey() + " committed at " + c.getValue()
                                + " before the kill; the new coordinator answers " + answered);
                    }
                }
            }
            violations.put(6, first.get() == null ? beforeKill.size() : lostCommits);

            boolean allRead = Deadline.in(ClusterRun.WAIT_MS).await(() -> producerDone(ledger, n)
                    && ledger.acked.keySet().stream().allMatch(ledger.readAt::containsKey));
            run.expect(allRead, "every acknowledged record read within " + ClusterRun.WAIT_MS + " ms of the new"
                    + " coordinator: " + ledger.distinctRead() + " read, " + ledger.acked.size() + " acknowledged");
            if (killed > 0) {
                run.restart(killed);
            }
            int restarted = killed;
            run.expect(Deadline.in(ClusterRun.WAIT_MS).await(() -> fullIsr(cluster, restarted, offsetsPartition)),
                    "broker " + killed + " back in the ISR of every " + TOPIC + " partition and of " + OFFSETS_TOPIC
                            + "-" + offsetsPartition);
            Deadline.pause(3 * SAMPLE_MS); // the prober sees the cluster whole again
            long lastCommitsMissing = lastCommitsMissing(cluster, offsetsPartition, ledger, samplesOfViolations);
            violations.put(7, lastCommitsMissing);

            stop.set(true);
            for (Thread t : threads) {
                t.join(ClusterRun.WAIT_MS);
                run.expect(!t.isAlive(), t.getName() + " stopped within " + ClusterRun.WAIT_MS + " ms");
            }
            long lost = ledger.acked.keySet().stream().filter(v -> !ledger.readAt.containsKey(v)).count();
            violations.put(1, lost);
            long written = ledger.readAt.values().stream().filter(at -> at.size() > 1).count();
            long renumbered = ledger.acked.entrySet().stream().filter(e -> ledger.readAt.getOrDefault(e.getKey(),
                    Set.of()).stream().anyMatch(at -> !at.equals(e.getValue()))).count();
            violations.put(2, written + renumbered);
            long again = ledger.readAgain();
            long allowed = Math.min((long) MEMBERS * MAX_POLL_RECORDS, ledger.uncommittedRecords.get());
            violations.put(3, Math.max(0, again - allowed));
            if (again > allowed) {
                samplesOfViolations.add("claim 3: " + again + " records read again, allowed " + allowed);
            }
            violations.put(4, oneCoordinator(cluster, samples, samplesOfViolations));

            run.note(String.format("group %s (coordinator: leader of %s-%d, Utils.abs(hashCode) %% %d), %d members,"
                            + " max.poll.records %d, a commitSync after each poll; %s: %d partitions, rf 3, min ISR 2",
                    GROUP, OFFSETS_TOPIC, offsetsPartition, OFFSETS_PARTITIONS, MEMBERS, MAX_POLL_RECORDS, TOPIC,
                    PARTITIONS));
            run.note(String.format("broker %d (the coordinator) SIGKILLed with %d of %d records read and %d acknowledged;"
                            + " broker %d coordinates %s after it, named by FindCoordinator on every live broker; broker %d"
                            + " restarted once all was read", killed, readAtKill, n, ackedAtKill, next,
                    coordinatorMs < 0 ? "-" : coordinatorMs + " ms", killed));
            run.note(String.format("read again: %d records (bound: the %d records of the %d polls whose commit was not"
                            + " acknowledged, and members x max.poll.records = %d); %d polls in all; commit errors %s",
                    again, ledger.uncommittedRecords.get(), ledger.uncommittedPolls.get(), MEMBERS * MAX_POLL_RECORDS,
                    ledger.polls.get(), new TreeMap<>(ledger.commitErrors)));
            run.note(String.format("commits acknowledged before the kill %s; the new coordinator's first answer %s",
                    beforeKill, first.get() == null ? "none" : first.get().offsets()));
            run.note(String.format("%d probes of every live broker (FindCoordinator, OffsetFetch); coordinators seen in"
                    + " turn %s; %s-%d by ZooKeeper in turn: %s", samples.size(), coordinatorsInTurn(samples),
                    OFFSETS_TOPIC, offsetsPartition, inTurn(samples, Sample::zooKeeper)));
            run.note(String.format("producer: %d acknowledged, %d failed after its retries%s; %d records read, %d"
                            + " written twice, %d at another offset; the group's run took %d ms", ledger.acked.size(),
                    ledger.failed.get(), ledger.firstFailure.get() == null ? "" : " (the first: "
                            + ledger.firstFailure.get() + ")", ledger.distinctRead(), written, renumbered,
                    System.currentTimeMillis() - startedAt));
            run.note("claims: 1 every acknowledged record read, 2 each at its acknowledged offset, written once, 3 read"
                    + " again at most the uncommitted polls, 4 one coordinator at any time, 5 a new one within the"
                    + " session + 5 s that leads the offsets partition, 6 no acknowledged commit lost, 7 the last commits"
                    + " reach every record; violations per claim " + violations);
            run.note("then every row's end: heal, ISR whole, replicas converged, and the checker's eight invariants on "
                    + ClusterHarness.PARTITION + ", which this row does not write to:");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            stop.set(true);
        }
        long lost = violations.getOrDefault(1, 0L);
        ClusterChecker.Verdict verdict = new ClusterChecker.Verdict(ledger.acked.size(), ledger.acked.size() - lost,
                lost, ledger.readAt.values().stream().filter(at -> at.size() > 1).count(),
                ledger.acked.entrySet().stream().filter(e -> ledger.readAt.getOrDefault(e.getKey(), Set.of()).stream()
                        .anyMatch(at -> !at.equals(e.getValue()))).count(), -1, coordinatorMs, violations,
                samplesOfViolations);
        return run.finishOwnRow(verdict, samplesOfViolations);
    }

    /** {@code topic}: {@code partitions} partitions of rf 3 and min ISR 2, their leaders brokers 1, 2, 3 in turn. */
    static void createTopic(ClusterRun run, String topic, int partitions) throws IOException {
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            int first = p % ClusterHarness.BROKERS;
            assignment.put(p, List.of(first + 1, (first + 1) % 3 + 1, (first + 2) % 3 + 1));
        }
        ClusterHarness cluster = run.cluster();
        cluster.createTopic(topic, assignment, 2);
        cluster.await("every partition of " + topic + " led, its ISR whole", () -> assignment.keySet().stream()
                .allMatch(p -> cluster.state(topic, p).map(s -> s.leader() > 0 && s.isr().size() == 3).orElse(false)),
                ClusterRun.WAIT_MS);
    }

    static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * A member: poll, note each record, commit what the poll returned (synchronously), poll again.
     * A commit the group refused (a rebalance, a coordinator that does not know the member) or that
     * timed out leaves its poll uncommitted: its records may be read again.
     */
    private static void member(ClusterRun run, String bootstrap, Ledger ledger, AtomicReference<Set<Integer>> assigned,
                               AtomicBoolean stop) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        config.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1_000);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        Deadline deadline = Deadline.in(10 * ClusterRun.WAIT_MS);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(TOPIC));
            while (!stop.get() && !deadline.passed()) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                assigned.set(consumer.assignment().stream().map(TopicPartition::partition)
                        .collect(java.util.stream.Collectors.toSet()));
                if (records.isEmpty()) {
                    continue;
                }
                ledger.polls.incrementAndGet();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (ConsumerRecord<String, String> r : records) {
                    ledger.read(r);
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                String error = commit(consumer, offsets);
                if (error == null) {
                    offsets.forEach((tp, o) -> ledger.committed.merge(tp.partition(), o.offset(), Math::max));
                } else {
                    ledger.uncommittedPolls.incrementAndGet();
                    ledger.uncommittedRecords.addAndGet(records.count());
                    ledger.commitErrors.merge(error, 1L, Long::sum);
                }
            }
        } catch (KafkaException | IllegalStateException e) {
            run.note("group member " + Thread.currentThread().getName() + " stopped: " + e);
        }
    }

    /** commitSync; null when acknowledged, else the kind of error. */
    private static String commit(KafkaConsumer<String, String> consumer, Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            consumer.commitSync(offsets, Duration.ofMillis(COMMIT_TIMEOUT_MS));
            return null;
        } catch (KafkaException refusedOrTimedOut) {
            // CommitFailedException (the group moved on without this poll), a TimeoutException, ...: counted by kind
            return refusedOrTimedOut.getClass().getSimpleName();
        }
    }

    /** kafka-clients' idempotent acks=all producer, paced, round-robin over the partitions. */
    private static void produce(String bootstrap, long n, Ledger ledger, AtomicBoolean stop) {
        Map<String, Object> config = KafkaClientsWorkload.producerConfig(bootstrap);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (long s = 0; s < n && !stop.get(); s++) {
                String value = GROUP + "-" + s;
                producer.send(new ProducerRecord<>(TOPIC, (int) (s % PARTITIONS), null, value), (m, error) -> {
                    if (error != null) {
                        ledger.failed.incrementAndGet();
                        ledger.firstFailure.compareAndSet(null, error);
                    } else {
                        ledger.acked.put(value, new Position(m.partition(), m.offset()));
                    }
                });
                if (s % RECORDS_PER_TICK == RECORDS_PER_TICK - 1) {
                    Deadline.pause(TICK_MS);
                }
            }
            producer.flush();
        } catch (KafkaException e) {
            ledger.firstFailure.compareAndSet(null, e);
        }
    }

    private static boolean producerDone(Ledger ledger, long n) {
        return ledger.acked.size() + ledger.failed.get() >= n;
    }

    private static boolean sharedOut(List<AtomicReference<Set<Integer>>> assignments) {
        Set<Integer> all = new HashSet<>();
        int sum = 0;
        for (AtomicReference<Set<Integer>> a : assignments) {
            if (a.get().isEmpty()) {
                return false;
            }
            all.addAll(a.get());
            sum += a.get().size();
        }
        return all.size() == PARTITIONS && sum == PARTITIONS;
    }

    /** Every {@value #SAMPLE_MS} ms, every live broker asked. */
    private static void probe(ClusterHarness cluster, int offsetsPartition, List<Sample> samples, AtomicBoolean stop) {
        Deadline deadline = Deadline.in(10 * ClusterRun.WAIT_MS);
        while (!stop.get() && !deadline.passed()) {
            samples.add(probeOnce(cluster, offsetsPartition));
            Deadline.pause(SAMPLE_MS);
        }
    }

    private static Sample probeOnce(ClusterHarness cluster, int offsetsPartition) {
        SortedMap<Integer, CoordinatorProbe.Answer> answers = new TreeMap<>();
        long at = System.currentTimeMillis();
        String zooKeeper = cluster.state(OFFSETS_TOPIC, offsetsPartition).map(st -> "leader " + st.leader()
                + " at epoch " + st.leaderEpoch() + ", ISR " + st.isr()).orElse("no state");
        for (ClusterHarness.Node node : cluster.nodes()) {
            if (node.life() == ClusterHarness.Life.RUNNING) {
                CoordinatorProbe.Answer a = CoordinatorProbe.ask(node.kafkaPort(), GROUP, TOPIC);
                if (a.offsetFetch() != null && node.life() == ClusterHarness.Life.RUNNING) {
                    answers.put(node.id(), a);
                }
            }
        }
        return new Sample(at, zooKeeper, answers);
    }

    /**
     * Claim 4: in no probe two brokers answer the group's OffsetFetch themselves, and no two live
     * brokers name two different live coordinators (a broker that has not yet learnt of the kill
     * may name the dead one: that names no second live coordinator).
     */
    private static long oneCoordinator(ClusterHarness cluster, List<Sample> samples, List<String> violations) {
        long bad = 0;
        synchronized (samples) {
            for (Sample s : samples) {
                Set<Integer> acting = s.coordinating();
                Set<Integer> named = new HashSet<>();
                s.answers().values().forEach(a -> {
                    if (a.named() > 0 && s.answers().containsKey(a.named())) {
                        named.add(a.named());
                    }
                });
                if (acting.size() > 1 || named.size() > 1) {
                    bad++;
                    if (violations.size() < 8) {
                        violations.add("claim 4: at +" + (s.atMs() - samples.get(0).atMs()) + " ms " + describe(s));
                    }
                }
            }
        }
        return bad;
    }

    /** Each broker's answers in a probe: "broker 1 names 3, OffsetFetch NOT_COORDINATOR; ...". */
    private static String describe(Sample s) {
        List<String> each = new ArrayList<>();
        s.answers().forEach((broker, a) -> each.add("broker " + broker + " names " + a.named() + ", OffsetFetch "
                + a.offsetFetch()));
        return String.join("; ", each) + " (ZooKeeper before the probe: " + s.zooKeeper() + ")";
    }

    /** The coordinators the probes saw, each once in the order seen (-: none answering the group). */
    private static List<String> coordinatorsInTurn(List<Sample> samples) {
        return inTurn(samples, s -> s.coordinating().isEmpty() ? "-" : s.coordinating().toString());
    }

    /** What {@code seen} says of each probe, a value again only when it changed. */
    private static List<String> inTurn(List<Sample> samples, java.util.function.Function<Sample, String> seen) {
        List<String> turns = new ArrayList<>();
        synchronized (samples) {
            for (Sample s : samples) {
                String now = seen.apply(s);
                if (turns.isEmpty() || !turns.get(turns.size() - 1).equals(now)) {
                    turns.add(now);
                }
            }
        }
        return turns;
    }

    private static boolean fullIsr(ClusterHarness cluster, int broker, int offsetsPartition) {
        for (int p = 0; p < PARTITIONS; p++) {
            if (!cluster.state(TOPIC, p).map(s -> s.isr().contains(broker)).orElse(false)) {
                return false;
            }
        }
        return cluster.state(OFFSETS_TOPIC, offsetsPartition).map(s -> s.isr().contains(broker)).orElse(false);
    }

    /**
     * Claim 7: the coordinator's answer now holds, for every partition, past the last acknowledged
     * record (the members commit each poll, so the last poll's commit covers it). Bounded wait: the
     * last commit may still be on its way.
     */
    private static long lastCommitsMissing(ClusterHarness cluster, int offsetsPartition, Ledger ledger,
                                           List<String> violations) {
        Map<Integer, Long> ends = new TreeMap<>();
        ledger.acked.values().forEach(at -> ends.merge(at.partition(), at.offset() + 1, Math::max));
        AtomicReference<Map<Integer, Long>> answered = new AtomicReference<>(Map.of());
        Deadline.in(10_000).await(() -> {
            Sample s = probeOnce(cluster, offsetsPartition);
            s.answers().values().stream().filter(CoordinatorProbe.Answer::coordinates).findFirst()
                    .ifPresent(a -> answered.set(a.offsets()));
            boolean reached = ends.entrySet().stream().allMatch(e -> answered.get().getOrDefault(e.getKey(), -1L)
                    >= e.getValue());
            if (!reached) {
                Deadline.pause(100);
            }
            return reached;
        });
        long missing = ends.entrySet().stream().filter(e -> answered.get().getOrDefault(e.getKey(), -1L) < e.getValue())
                .count();
        if (missing > 0) {
            violations.add("claim 7: the coordinator answers " + answered.get() + ", the partitions end at " + ends);
        }
        return missing;
    }
}
