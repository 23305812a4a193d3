package kaenlog.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A rolling restart of a static member (KIP-345), measured as a user sees it: two kafka-clients
 * 4.1.1 consumers of one group, each with its {@code group.instance.id} ("a" and "b"), share a
 * topic of 6 partitions into which a producer writes one record per partition every 20 ms; "b" is
 * closed (a static member sends no LeaveGroup) and a new consumer with the same instance id starts
 * at once. Printed: whether a rebalance happened (the generation "a" sees before and after, and
 * whether its partitions were revoked), how long "a"'s partitions went without a record read
 * (the longest gap), and how long "b"'s went (from its last read before the close to the first read
 * after it, by whoever owns them then). Kafka 4.1.1: no rebalance, "a" reads on, "b"'s partitions
 * idle about as long as the restart takes.
 *
 * <p>Arguments: {@code BOOTSTRAP|--both [--session-ms MS (10000)] [--after-ms MS (25000)]}; with
 * {@code --both} it starts {@code klog serve --kafka-port} and Kafka 4.1.1 (one KRaft node), each a
 * process of its own as {@link EndToEndBench} starts them, and measures both:
 * {@code bench/kafka-wire/run --static-restart}.
 */
public final class StaticRestartBench {
    static final String TOPIC = "static-restart";
    static final int PARTITIONS = 6;
    static final long PRODUCE_EVERY_MS = 20;

    private StaticRestartBench() {
    }

    /** What one consumer saw: reads per partition (wall time), revocations, generations. */
    static final class Seen {
        final Map<Integer, List<Long>> reads = new ConcurrentHashMap<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final AtomicInteger revocations = new AtomicInteger();
        volatile Set<Integer> assignment = Set.of();
        volatile int generation = -1;
    }

    /** One consumer on a thread of its own, polling until {@code stop}. */
    static final class Member implements AutoCloseable {
        final String name;
        final Seen seen;
        final Thread thread;
        volatile boolean stop;
        volatile Throwable failure;

        Member(String bootstrap, String group, String instanceId, int sessionMs, Seen seen) {
            this.name = instanceId;
            this.seen = seen;
            Properties config = new Properties();
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
            config.put(ConsumerConfig.CLIENT_ID_CONFIG, "static-" + instanceId);
            config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionMs);
            config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
            config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            thread = new Thread(() -> run(config), "consumer-" + instanceId);
            thread.setDaemon(true); // a failed measurement ends the process, consumers and all
            thread.start();
        }

        private void run(Properties config) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!partitions.isEmpty()) {
                            seen.revocations.incrementAndGet();
                            seen.events.add(System.currentTimeMillis() + " revoked " + numbers(partitions));
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        seen.events.add(System.currentTimeMillis() + " assigned " + numbers(partitions));
                    }
                });
                while (!stop) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(50))) {
                        seen.reads.computeIfAbsent(r.partition(), p -> new CopyOnWriteArrayList<>())
                                .add(System.currentTimeMillis());
                    }
                    seen.assignment = Set.copyOf(numbers(consumer.assignment()));
                    seen.generation = consumer.groupMetadata().generationId();
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(60_000);
        }
    }

    static TreeSet<Integer> numbers(Collection<TopicPartition> partitions) {
        TreeSet<Integer> numbers = new TreeSet<>();
        partitions.forEach(p -> numbers.add(p.partition()));
        return numbers;
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void run(String[] args) throws Exception {
        List<String> rest = List.of(args).subList(1, args.length);
        int sessionMs = flag(rest, "--session-ms", 10_000);
        int afterMs = flag(rest, "--after-ms", 25_000);
        if (!args[0].equals("--both")) {
            System.out.println(measure(args[0], sessionMs, afterMs));
            return;
        }
        java.nio.file.Path work = java.nio.file.Files.createTempDirectory("static-restart");
        java.nio.file.Path root = java.nio.file.Path.of(System.getProperty("bench.root", "."));
        for (boolean kafka : new boolean[] {false, true}) {
            EndToEndBench.Broker broker = kafka ? EndToEndBench.startKafka(System.getProperty("bench.classpath"), work, 1)
                    : EndToEndBench.startKlog(root, work);
            try {
                System.out.println("== " + broker.name() + " at " + broker.bootstrap());
                System.out.println(measure(broker.bootstrap(), sessionMs, afterMs));
            } finally {
                EndToEndBench.stop(broker);
            }
        }
    }

    static int flag(List<String> args, String name, int otherwise) {
        int at = args.indexOf(name);
        return at < 0 ? otherwise : Integer.parseInt(args.get(at + 1));
    }

    /** The scenario against {@code bootstrap}; its figures, one line each. */
    static String measure(String bootstrap, int sessionMs, int afterMs) throws Exception {
        createTopic(bootstrap);
        String group = "static-restart-" + System.currentTimeMillis();
        Properties producerConfig = new Properties();
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        Seen a = new Seen();
        Seen b = new Seen();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig);
             Member memberA = new Member(bootstrap, group, "a", sessionMs, a)) {
            Thread writer = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    for (int p = 0; p < PARTITIONS; p++) {
                        producer.send(new ProducerRecord<>(TOPIC, p, null, Long.toString(System.currentTimeMillis())));
                    }
                    try {
                        Thread.sleep(PRODUCE_EVERY_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "producer");
            writer.setDaemon(true);
            writer.start();
            Member memberB = new Member(bootstrap, group, "b", sessionMs, b);
            waitUntil(() -> a.assignment.size() == 3 && b.assignment.size() == 3, 180_000, "a and b own 3 each",
                    memberA, memberB);
            Thread.sleep(3_000); // both read for a while
            int generationBefore = a.generation;
            int revocationsBefore = a.revocations.get();
            Set<Integer> bOwned = b.assignment;
            Set<Integer> aOwned = a.assignment;
            long closeAt = System.currentTimeMillis();
            memberB.close(); // a static member leaves no LeaveGroup behind: the coordinator keeps its place
            long closedAt = System.currentTimeMillis();
            Seen b2 = new Seen();
            try (Member restarted = new Member(bootstrap, group, "b", sessionMs, b2)) {
                Thread.sleep(afterMs);
                check(memberA.failure == null && restarted.failure == null, "a consumer failed: "
                        + memberA.failure + " / " + restarted.failure);
                writer.interrupt();
                writer.join();
                List<String> out = new ArrayList<>();
                boolean rebalanced = a.generation != generationBefore || a.revocations.get() != revocationsBefore;
                out.add("group " + group + ", session.timeout.ms " + sessionMs + ", b closed and started again"
                        + " (closing took " + (closedAt - closeAt) + " ms)");
                out.add("rebalance: " + (rebalanced ? "yes" : "none") + " (a's generation " + generationBefore
                        + " -> " + a.generation + ", a's partitions revoked " + (a.revocations.get()
                        - revocationsBefore) + " time(s))");
                out.add("a's partitions " + new TreeSet<>(aOwned) + " idle at most " + longestGap(a, aOwned, closeAt, closeAt
                        + afterMs) + " ms (the longest time between two reads after b's close)");
                out.add("b's partitions " + new TreeSet<>(bOwned) + " idle " + idleAcross(b, List.of(b2, a), bOwned)
                        + " ms (from the old b's last read to their first read by the new b or by a)");
                out.add("after: a owns " + a.assignment + ", the new b owns " + b2.assignment + "; a saw "
                        + a.events.subList(Math.max(0, a.events.size() - 4), a.events.size()));
                return String.join("\n", out);
            }
        }
    }

    /** The longest time between two reads of any of {@code partitions} by {@code seen} in [from, to]. */
    static long longestGap(Seen seen, Set<Integer> partitions, long from, long to) {
        long longest = 0;
        for (int p : partitions) {
            long last = from;
            for (long t : seen.reads.getOrDefault(p, List.of())) {
                if (t < from) {
                    last = Math.max(last, t);
                    continue;
                }
                longest = Math.max(longest, t - last);
                last = t;
            }
            longest = Math.max(longest, to - last);
        }
        return longest;
    }

    /** The longest, over {@code partitions}, from {@code before}'s last read to the first read by one of {@code after}. */
    static long idleAcross(Seen before, List<Seen> after, Set<Integer> partitions) {
        long longest = 0;
        for (int p : partitions) {
            long lastBefore = before.reads.getOrDefault(p, List.of()).stream().mapToLong(t -> t).max()
                    .orElse(Long.MIN_VALUE);
            long firstAfter = Long.MAX_VALUE;
            for (Seen s : after) {
                for (long t : s.reads.getOrDefault(p, List.of())) {
                    if (t > lastBefore) {
                        firstAfter = Math.min(firstAfter, t);
                    }
                }
            }
            check(lastBefore != Long.MIN_VALUE && firstAfter != Long.MAX_VALUE, "partition " + p
                    + " was not read both before and after the restart");
            longest = Math.max(longest, firstAfter - lastBefore);
        }
        return longest;
    }

    private static void createTopic(String bootstrap) throws Exception {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(config)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
        } catch (ExecutionException e) {
            check(e.getCause() instanceof TopicExistsException, "createTopics: " + e.getCause());
        }
    }

    interface Condition {
        boolean holds();
    }

    private static void waitUntil(Condition condition, long ms, String what, Member... members)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + ms;
        while (!condition.holds()) {
            for (Member m : members) {
                check(m.failure == null, m.name + " failed: " + m.failure);
            }
            check(System.currentTimeMillis() < deadline, "not within " + ms + " ms: " + what);
            Thread.sleep(20);
        }
    }

    private static void check(boolean holds, String what) {
        if (!holds) {
            throw new IllegalStateException(what);
        }
    }
}
