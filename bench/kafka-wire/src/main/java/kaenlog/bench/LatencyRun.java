package kaenlog.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One latency run of {@link LatencyBench}, a JVM of its own (the client, the same for every
 * broker): a kafka-clients producer sends records at a fixed rate to partition 0 of a topic while a
 * kafka-clients consumer in this JVM reads them back, as the OpenMessaging Benchmark's workers do.
 *
 * <p>Each record has an intended send time on a uniform schedule (record i at start + i / rate,
 * OMB's {@code UniformRateLimiter}), carried in its first 8 bytes as this JVM's {@code nanoTime}.
 * Publish latency is from that intended time to the producer's acknowledgement (its callback);
 * end-to-end latency from that intended time to the consumer's {@code poll} returning the record.
 * Measuring from the intended time, not from the moment {@code send} returned, counts the time a
 * stalled producer (a full buffer, a slow broker) made the next records wait: coordinated omission.
 * OMB records the two parts apart (publish latency from the send, "publish delay" from the intended
 * time to the send); their sum per record is what is measured here, and the largest delay is printed.
 *
 * <p>Records whose intended time falls in the warm-up go to no histogram; then {@code seconds} of
 * records are measured, in microseconds (HdrHistogram, 3 significant digits). Prints one line,
 * {@code result publish P50 P99 P999 MAX e2e P50 P99 P999 MAX sent N acked N received N failed N
 * behindMaxUs N gcMaxPauseUs N gcCount N}, latencies in microseconds; exits 1 if a record failed
 * or was not received within 60 s of the last send.
 *
 * <p>Arguments: bootstrap, topic, records per second, warm-up seconds, measured seconds, record bytes.
 */
public final class LatencyRun {
    /** Longer than any latency worth recording: a value above it is recorded as this (and is obvious). */
    private static final long HIGHEST_US = TimeUnit.MINUTES.toMicros(10);
    private static final long DRAIN_NS = TimeUnit.SECONDS.toNanos(60);

    private LatencyRun() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        double rate = Double.parseDouble(args[2]);
        long warmupNs = TimeUnit.SECONDS.toNanos(Long.parseLong(args[3]));
        long measureNs = TimeUnit.SECONDS.toNanos(Long.parseLong(args[4]));
        int bytes = Integer.parseInt(args[5]);
        TopicPartition partition = new TopicPartition(topic, 0);

        Histogram publish = new SynchronizedHistogram(HIGHEST_US, 3);
        Histogram endToEnd = new Histogram(HIGHEST_US, 3);
        GcPauses gc = new GcPauses();
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<Exception> firstFailure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(bootstrap));
             KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(bootstrap))) {
            producer.partitionsFor(topic); // metadata before the schedule starts
            consumer.assign(List.of(partition));
            consumer.seekToEnd(List.of(partition));
            consumer.position(partition); // the consumer reads from here: only this run's records
            Receiver receiver = new Receiver(consumer, endToEnd);

            long intervalNs = Math.round(TimeUnit.SECONDS.toNanos(1) / rate);
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            long measureFrom = start + warmupNs;
            long end = measureFrom + measureNs;
            receiver.window(measureFrom, end);
            Thread reader = new Thread(receiver, "latency-consumer");
            reader.start();
            byte[] value = new byte[Math.max(bytes, Long.BYTES)];
            for (int i = Long.BYTES; i < value.length; i++) {
                value[i] = (byte) ('a' + i % 26);
            }
            ByteBuffer stamp = ByteBuffer.wrap(value);
            long sent = 0;
            long measuredSent = 0;
            long behindMaxNs = 0;
            for (long i = 0; ; i++) {
                long intended = start + i * intervalNs;
                if (intended >= end) {
                    break;
                }
                sleepUntil(intended);
                boolean measured = intended >= measureFrom;
                if (measured) {
                    behindMaxNs = Math.max(behindMaxNs, System.nanoTime() - intended);
                    if (measuredSent == 0) {
                        gc.reset();
                    }
                    measuredSent++;
                }
                stamp.putLong(0, intended);
                // send() copies the value into its batch before it returns: the array is reused.
                producer.send(new ProducerRecord<>(topic, 0, null, value), (metadata, error) -> {
                    if (error != null) {
                        failed.incrementAndGet();
                        firstFailure.compareAndSet(null, error);
                    } else if (measured) {
                        publish.recordValue(Math.min(HIGHEST_US, (System.nanoTime() - intended) / 1_000));
                        acked.incrementAndGet();
                    }
                });
                sent++;
            }
            producer.flush();
            long gcMaxPauseUs = gc.maxPauseUs();
            long gcCount = gc.count();
            receiver.awaitAll(measuredSent, System.nanoTime() + DRAIN_NS);
            reader.join();
            System.out.printf("result publish %s e2e %s sent %d acked %d received %d failed %d behindMaxUs %d"
                            + " gcMaxPauseUs %d gcCount %d%n", percentiles(publish), percentiles(endToEnd),
                    measuredSent, acked.get(), receiver.received(), failed.get(), behindMaxNs / 1_000, gcMaxPauseUs,
                    gcCount);
            if (failed.get() > 0) {
                System.out.println("first failure: " + firstFailure.get());
                System.exit(1);
            }
            if (receiver.received() < measuredSent) {
                System.out.println("only " + receiver.received() + " of " + measuredSent + " records received");
                System.exit(1);
            }
            System.out.flush();
            if (sent == 0) {
                System.exit(1);
            }
        }
    }

    private static String percentiles(Histogram h) {
        return h.getValueAtPercentile(50) + " " + h.getValueAtPercentile(99) + " " + h.getValueAtPercentile(99.9) + " "
                + h.getMaxValue();
    }

    /** OMB's {@code uninterruptibleSleepNs}: park until the intended time (a late start sends at once). */
    private static void sleepUntil(long intended) {
        long left;
        while ((left = intended - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /** OMB's kafka-latency.yaml: acks=all, linger.ms 1, batch.size 128 KiB; idempotent (the default with acks=all). */
    static Properties producerConfig(String bootstrap) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 131_072);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return config;
    }

    /** OMB's kafka-latency.yaml: no auto commit, max.partition.fetch.bytes 10 MiB; fetch.min.bytes 1 and fetch.max.wait.ms 500 (defaults). */
    static Properties consumerConfig(String bootstrap) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 10_485_760);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return config;
    }

    /** The consumer's thread: every record's end-to-end latency, from the intended time in its first 8 bytes. */
    private static final class Receiver implements Runnable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Histogram endToEnd;
        private final AtomicLong received = new AtomicLong();
        private volatile long measureFrom;
        private volatile long end;
        private volatile long expected = -1;
        private volatile long deadline;

        Receiver(KafkaConsumer<byte[], byte[]> consumer, Histogram endToEnd) {
            this.consumer = consumer;
            this.endToEnd = endToEnd;
        }

        void window(long from, long until) {
            measureFrom = from;
            end = until;
        }

        void awaitAll(long count, long until) {
            deadline = until;
            expected = count;
        }

        long received() {
            return received.get();
        }

        @Override
        public void run() {
            while (expected < 0 || (received.get() < expected && System.nanoTime() < deadline)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    long intended = ByteBuffer.wrap(record.value()).getLong(0);
                    if (intended >= measureFrom && intended < end) {
                        endToEnd.recordValue(Math.min(HIGHEST_US, (now - intended) / 1_000));
                        received.incrementAndGet();
                    }
                }
            }
        }
    }

    /** This client's own collector pauses in the measured window: a floor under every broker's tail. */
    private static final class GcPauses {
        private final AtomicLong maxPauseMs = new AtomicLong();
        private final AtomicLong count = new AtomicLong();

        GcPauses() {
            for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
                ((NotificationEmitter) bean).addNotificationListener((notification, handback) -> {
                    if (notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                                (CompositeData) notification.getUserData());
                        if (!info.getGcName().contains("Concurrent")) { // a concurrent cycle is no pause
                            maxPauseMs.accumulateAndGet(info.getGcInfo().getDuration(), Math::max);
                            count.incrementAndGet();
                        }
                    }
                }, null, null);
            }
        }

        void reset() {
            maxPauseMs.set(0);
            count.set(0);
        }

        long maxPauseUs() {
            return maxPauseMs.get() * 1_000;
        }

        long count() {
            return count.get();
        }
    }
}
