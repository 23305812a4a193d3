package kaenlog.reliability;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The application {@link StreamsEosKill9} kills: Kafka Streams' word count with
 * {@code processing.guarantee=exactly_once_v2}, in a JVM of its own. Lines of {@value #INPUT} are
 * split into words, repartitioned by word, counted in a RocksDB store (its changelog made by Streams)
 * and every new count is sent to {@value #OUTPUT} (the store's cache is off). It says on stdout each
 * state it enters ({@value #STATE}RUNNING once its tasks run), the tasks it runs after each change of
 * state and whenever they change ({@value #TASKS}[0_0, 1_1]) and any error, and runs until it is killed, or closes cleanly on SIGTERM.
 *
 * <p>Arguments: {@code bootstrap stateDir instanceId}. The state directory is the same at every
 * restart: Streams keeps its process id there ({@code kafka-streams-process-metadata}, since the store
 * is persistent), so the restarted application's transactional id is the killed one's and its
 * InitProducerId fences it. {@code instanceId} makes its consumer a static member (KIP-345): the
 * restarted application takes the killed one's place in the group at once, without waiting out its
 * session; {@code -} makes it a dynamic member with a session of 6 s (the broker's
 * {@code group.min.session.timeout.ms}), found dead when it ends.
 */
public final class StreamsWordCountChild {
    static final String INPUT = "text-lines";
    static final String OUTPUT = "word-counts";
    static final String APPLICATION = "wordcount-eos";
    static final String STATE = "state ";
    static final String ERROR = "error ";
    static final String TASKS = "active tasks ";

    private StreamsWordCountChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(StreamsConfig.STATE_DIR_CONFIG, args[1]);
        if (args[2].equals("-")) { // a dynamic member, found dead at its session's end (group.min.session.timeout.ms)
            config.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6_000);
        } else {
            config.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), args[2]);
        }
        config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0); // every new count is sent
        config.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");

        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(INPUT)
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split(" ")))
                .groupBy((key, word) -> word)
                .count(Materialized.as("counts"))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), config);
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean rebalanced = new AtomicBoolean();
        streams.setStateListener((now, before) -> {
            say(STATE + now);
            rebalanced.set(true);
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                stopped.countDown();
            }
        });
        streams.setUncaughtExceptionHandler(e -> {
            say(ERROR + e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> streams.close(Duration.ofSeconds(20))));
        streams.start();
        String tasks = "";
        while (!stopped.await(100, TimeUnit.MILLISECONDS)) {
            if (streams.state() == KafkaStreams.State.RUNNING) {
                String now = activeTasks(streams);
                if (rebalanced.getAndSet(false) || !now.equals(tasks)) {
                    say(TASKS + now);
                    tasks = now;
                }
            }
        }
        if (streams.state() == KafkaStreams.State.ERROR) {
            System.exit(2);
        }
    }

    /** The tasks this instance runs, e.g. {@code [0_0, 1_1]} (sub-topology, partition). */
    private static String activeTasks(KafkaStreams streams) {
        try {
            return streams.metadataForLocalThreads().stream().flatMap(t -> t.activeTasks().stream())
                    .map(t -> t.taskId().toString()).sorted().toList().toString();
        } catch (IllegalStateException rebalancing) {
            return "";
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
