package kaenlog.reliability.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import kaenlog.cluster.PartitionState;
import kaenlog.reliability.Deadline;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The transaction coordinator killed during a commit (#40, in the cluster): a transactional id's
 * coordinator is the leader of its {@code __transaction_state} partition ({@code Utils.abs(id.hashCode())
 * % transaction.state.log.num.partitions}, Kafka's {@code TransactionStateManager.partitionFor}), its
 * transitions are acks=all appends to that partition, and the partition's next leader loads them and
 * completes a PrepareCommit it finds. A kafka-clients 4.1.1 transactional producer, bootstrapped on the
 * three brokers' Kafka ports, runs {@value #TRANSACTIONS} transactions of {@value #RECORDS} records over
 * a topic of {@value #PARTITIONS} partitions led by the three brokers (rf 3, min ISR 2), every third one
 * aborted; a read_committed consumer reads the topic all along. When the producer calls
 * {@code commitTransaction()} on transaction {@value #KILLED_AT}, the coordinator's broker (the state
 * partition's leader by ZooKeeper) gets SIGKILL {@value #KILL_DELAY_MS} ms later, while the EndTxn, its
 * PrepareCommit or its markers are under way; the producer goes on; the broker is restarted once the
 * producer is done. The row's claims, the cluster checker's transaction invariants:
 * <ol>
 * <li>no read_committed reader ever reads a record of an aborted transaction;</li>
 * <li>no partial transaction: a transaction of which it reads one record, it reads whole;</li>
 * <li>every transaction whose commit was acknowledged is read whole, that of the kill too;</li>
 * <li>each record read at one offset, once;</li>
 * <li>a new coordinator, the state partition's new leader in ZooKeeper, within the session timeout
 *     plus 5 s of the kill.</li>
 * </ol>
 * {@code __transaction_state} has {@value #STATE_PARTITIONS} partitions here (Kafka's 50), as chapter
 * 11's ClusterTransactionsTest sets it.
 */
final class TxnCoordinatorFailover {
    static final String TOPIC = "txn-orders";
    static final String TRANSACTIONAL_ID = "orders-app";
    static final int PARTITIONS = 3;
    static final int TRANSACTIONS = 15;
    static final int RECORDS = 30;
    static final int KILLED_AT = 5;
    static final int STATE_PARTITIONS = 5;
    static final String STATE_TOPIC = "__transaction_state";
    static final long KILL_DELAY_MS = 10;
    /** The broker configs the row adds to the harness's. */
    static final String[] BROKER_CONFIGS = {"transaction.state.log.num.partitions=" + STATE_PARTITIONS};

    /** What the producer was answered and what the reader read, from every thread of the row. */
    private static final class Ledger {
        /** Transaction number -> its records' values, once its commit (or abort) was answered. */
        final Map<Integer, List<String>> committed = new ConcurrentHashMap<>();
        final Map<Integer, List<String>> aborted = new ConcurrentHashMap<>();
        /** Transactions whose end was not answered (an exception): either outcome may be read, but whole. */
        final Map<Integer, List<String>> uncertain = new ConcurrentHashMap<>();
        final AtomicReference<Exception> firstFailure = new AtomicReference<>();
        /** Value -> the offsets it was read at (partition:offset). */
        final Map<String, List<String>> readAt = new ConcurrentHashMap<>();
        final AtomicLong killCommitMs = new AtomicLong(-1);
        final AtomicBoolean done = new AtomicBoolean();
    }

    private TxnCoordinatorFailover() {
    }

    static ClusterRun.Outcome run(ClusterRun run) throws IOException {
        ClusterHarness cluster = run.cluster();
        int statePartition = Utils.abs(TRANSACTIONAL_ID.hashCode()) % STATE_PARTITIONS;
        String bootstrap = String.join(",", cluster.nodes().stream().map(b -> "127.0.0.1:" + b.kafkaPort()).toList());
        Ledger ledger = new Ledger();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch committing = new CountDownLatch(1);
        SortedMap<Integer, Long> violations = new TreeMap<>();
        List<String> samples = new ArrayList<>();
        long newCoordinatorMs = -1;
        int killed = -1;
        int next = -1;
        String loadLine = "none";
        List<Thread> threads = new ArrayList<>();
        try {
            CoordinatorFailover.createTopic(run, TOPIC, PARTITIONS);
            threads.add(CoordinatorFailover.start("txn-reader", () -> read(run, bootstrap, ledger, stop)));
            threads.add(CoordinatorFailover.start("txn-producer", () -> produce(run, bootstrap, ledger, committing)));
            run.expect(committing.await(ClusterRun.WAIT_MS, TimeUnit.MILLISECONDS), "the producer reached the commit"
                    + " of transaction " + KILLED_AT + " within " + ClusterRun.WAIT_MS + " ms");
            Deadline.pause(KILL_DELAY_MS);
            killed = cluster.state(STATE_TOPIC, statePartition).map(PartitionState::leader).orElse(-1);
            run.expect(killed > 0, "ZooKeeper names the leader of " + STATE_TOPIC + "-" + statePartition);
            long killedAt = System.currentTimeMillis();
            if (killed > 0) {
                run.kill(killed);
            }
            int old = killed;
            AtomicReference<Integer> leader = new AtomicReference<>(-1);
            boolean moved = Deadline.in(ClusterRun.WAIT_MS).await(() -> {
                int now = cluster.state(STATE_TOPIC, statePartition).map(PartitionState::leader).orElse(-1);
                leader.set(now);
                return now > 0 && now != old;
            });
            if (moved) {
                next = leader.get();
                newCoordinatorMs = System.currentTimeMillis() - killedAt;
            }
            long bound = cluster.config().sessionTimeoutMs() + ClusterChecker.NEW_LEADER_SLACK_MS;
            violations.put(5, moved && newCoordinatorMs <= bound ? 0L : 1L);
            if (violations.get(5) > 0) {
                samples.add("claim 5: " + (moved ? "broker " + next + " after " + newCoordinatorMs + " ms, over " + bound
                        : "no new leader of " + STATE_TOPIC + "-" + statePartition + " within " + ClusterRun.WAIT_MS + " ms"));
            }
            run.expect(Deadline.in(2 * ClusterRun.WAIT_MS).await(ledger.done::get), "the producer ran its "
                    + TRANSACTIONS + " transactions within " + 2 * ClusterRun.WAIT_MS + " ms");
            loadLine = loadLine(cluster, next, statePartition);
            if (killed > 0) {
                run.restart(killed);
            }
            run.expect(Deadline.in(ClusterRun.WAIT_MS).await(() -> ledger.committed.values().stream()
                    .flatMap(List::stream).allMatch(ledger.readAt::containsKey)), "the reader read every committed"
                    + " transaction within " + ClusterRun.WAIT_MS + " ms: " + ledger.readAt.size() + " records read");
            Deadline.pause(500); // a late aborted or partial record would come with the reader's next polls
            stop.set(true);
            for (Thread t : threads) {
                t.join(ClusterRun.WAIT_MS);
                run.expect(!t.isAlive(), t.getName() + " stopped within " + ClusterRun.WAIT_MS + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            stop.set(true);
        }
        long abortedRead = ledger.aborted.values().stream().flatMap(List::stream).filter(ledger.readAt::containsKey)
                .count();
        violations.put(1, abortedRead);
        if (abortedRead > 0) {
            samples.add("claim 1: " + abortedRead + " records of aborted transactions read");
        }
        long partial = 0;
        long unread = 0;
        for (Map<Integer, List<String>> outcome : List.of(ledger.committed, ledger.aborted, ledger.uncertain)) {
            for (Map.Entry<Integer, List<String>> t : outcome.entrySet()) {
                long seen = t.getValue().stream().filter(ledger.readAt::containsKey).count();
                if (seen > 0 && seen < t.getValue().size()) {
                    partial++;
                    samples.add("claim 2: transaction " + t.getKey() + " read in part, " + seen + " of " + RECORDS);
                }
                if (outcome == ledger.committed && seen < t.getValue().size()) {
                    unread++;
                    samples.add("claim 3: committed transaction " + t.getKey() + " read " + seen + " of " + RECORDS);
                }
            }
        }
        violations.put(2, partial);
        violations.put(3, unread + (ledger.committed.containsKey(KILLED_AT) ? 0 : 1));
        if (!ledger.committed.containsKey(KILLED_AT)) {
            samples.add("claim 3: the commit of transaction " + KILLED_AT + ", under way at the kill, was not acknowledged");
        }
        long twice = ledger.readAt.values().stream().filter(at -> at.size() > 1).count();
        violations.put(4, twice);
        long committedRecords = ledger.committed.values().stream().mapToLong(List::size).sum();
        run.note(String.format("transactional id %s (coordinator: leader of %s-%d, Utils.abs(hashCode) %% %d); %d"
                        + " transactions of %d records over %s's %d partitions (rf 3, min ISR 2, leaders 1, 2, 3), every"
                        + " third aborted; a read_committed consumer all along", TRANSACTIONAL_ID, STATE_TOPIC,
                statePartition, STATE_PARTITIONS, TRANSACTIONS, RECORDS, TOPIC, PARTITIONS));
        run.note(String.format("broker %d (the coordinator) SIGKILLed %d ms into the commit of transaction %d, which"
                        + " returned after %d ms; broker %d leads %s-%d %s after the kill; broker %d restarted once the"
                        + " producer was done", killed, KILL_DELAY_MS, KILLED_AT, ledger.killCommitMs.get(), next,
                STATE_TOPIC, statePartition, newCoordinatorMs < 0 ? "-" : newCoordinatorMs + " ms", killed));
        run.note("the new coordinator's log: " + loadLine);
        run.note(String.format("producer: %d committed, %d aborted, %d without an answer%s; read_committed read %d"
                        + " records (committed: %d), %d of aborted transactions, %d transactions in part, %d records twice",
                ledger.committed.size(), ledger.aborted.size(), ledger.uncertain.size(),
                ledger.firstFailure.get() == null ? "" : " (the first failure: " + ledger.firstFailure.get() + ")",
                ledger.readAt.size(), committedRecords, abortedRead, partial, twice));
        run.note("claims: 1 no record of an aborted transaction read, 2 no transaction read in part, 3 every acknowledged"
                + " commit read whole (that of the kill too), 4 each record read once, 5 a new coordinator within the"
                + " session + 5 s; violations per claim " + violations);
        run.note("then every row's end: heal, ISR whole, replicas converged, and the checker's eight invariants on "
                + ClusterHarness.PARTITION + ", which this row does not write to:");
        ClusterChecker.Verdict verdict = new ClusterChecker.Verdict(committedRecords, committedRecords - unread * RECORDS,
                unread * RECORDS, twice, 0, -1, newCoordinatorMs, violations, samples);
        return run.finishOwnRow(verdict, samples);
    }

    /**
     * The line in which broker {@code id} says it coordinates the state partition, and whether it found
     * a transaction prepared there (the kill came between PrepareCommit and the last marker) or none
     * (the kill came before the EndTxn was written, or after the commit was complete).
     */
    private static String loadLine(ClusterHarness cluster, int id, int statePartition) {
        if (id < 0) {
            return "none";
        }
        String wanted = "coordinates the transactions of " + STATE_TOPIC + "-" + statePartition + " ";
        for (List<String> life : cluster.node(id).logs()) {
            for (String line : life) {
                if (line.contains(wanted)) {
                    return line.trim();
                }
            }
        }
        return "none";
    }

    /**
     * The producer: each transaction's records over the partitions, then its commit (every third one
     * aborted, after a flush, so its records are in the log before the ABORT). It tells the killer as it
     * begins the commit of transaction {@value #KILLED_AT}. A transaction whose end throws is uncertain;
     * the producer aborts what it can and goes on with a new producer when the old one cannot.
     */
    private static void produce(ClusterRun run, String bootstrap, Ledger ledger, CountDownLatch committing) {
        KafkaProducer<String, String> producer = producer(bootstrap);
        try {
            producer.initTransactions();
            for (int t = 0; t < TRANSACTIONS; t++) {
                List<String> values = new ArrayList<>();
                boolean abort = t % 3 == 1;
                try {
                    producer.beginTransaction();
                    for (int i = 0; i < RECORDS; i++) {
                        String value = "t" + t + "-" + i;
                        values.add(value);
                        producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value));
                    }
                    if (abort) {
                        producer.flush();
                        producer.abortTransaction();
                        ledger.aborted.put(t, values);
                    } else {
                        long began = System.currentTimeMillis();
                        if (t == KILLED_AT) {
                            producer.flush();
                            committing.countDown();
                        }
                        producer.commitTransaction();
                        if (t == KILLED_AT) {
                            ledger.killCommitMs.set(System.currentTimeMillis() - began);
                        }
                        ledger.committed.put(t, values);
                    }
                } catch (KafkaException e) {
                    ledger.uncertain.put(t, values);
                    ledger.firstFailure.compareAndSet(null, e);
                    producer.close(Duration.ZERO);
                    producer = producer(bootstrap);
                    producer.initTransactions(); // fences and aborts what the old one left open
                }
            }
        } catch (KafkaException e) {
            ledger.firstFailure.compareAndSet(null, e);
            run.note("the transactional producer stopped: " + e);
        } finally {
            producer.close(Duration.ofSeconds(5));
            committing.countDown();
            ledger.done.set(true);
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Map<String, Object> config = KafkaClientsWorkload.producerConfig(bootstrap);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) ClusterRun.WAIT_MS);
        return new KafkaProducer<>(config);
    }

    /** A read_committed consumer of every partition from offset 0, until stopped: each value with where it was read. */
    private static void read(ClusterRun run, String bootstrap, Ledger ledger, AtomicBoolean stop) {
        Map<String, Object> config = new java.util.HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1_000);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(partitions);
            Deadline deadline = Deadline.in(10 * ClusterRun.WAIT_MS);
            while (!stop.get() && !deadline.passed()) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    ledger.readAt.computeIfAbsent(r.value(), v -> java.util.Collections.synchronizedList(new ArrayList<>()))
                            .add(r.partition() + ":" + r.offset());
                }
            }
        } catch (KafkaException | IllegalStateException e) {
            run.note("the read_committed reader stopped: " + e);
        }
    }
}
