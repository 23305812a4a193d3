package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import kaenlog.broker.Broker;
import kaenlog.broker.PartitionLimitException;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * What the Kafka listener uses of the kaen-log broker beside it: the broker's own request path
 * ({@link Broker#handle}: the same handlers that answer kaen-log's port, so a Kafka produce is
 * judged by chapter 7's idempotence and written by chapter 3's log) and its partitions. There is
 * no second storage path: a Kafka request is translated into kaen-log's, answered, and the answer
 * translated back.
 *
 * <p>Names: Kafka's topic {@code orders}, partition 0, is kaen-log's partition {@code orders-0}.
 */
public final class Backend {
    private final Broker broker;

    public Backend(Broker broker) {
        this.broker = broker;
    }

    /** kaen-log's partition name for Kafka's topic and partition ({@link PartitionNames#name}). */
    public static String partitionName(String topic, int partition) {
        return PartitionNames.name(topic, partition);
    }

    /** kaen-log's produce for one partition; empty for acks=0, which is never answered. */
    public Optional<ProduceResponse> produce(ProduceRequest request) throws IOException {
        return call(kaenlog.wire.ApiKeys.PRODUCE, request.encode()).map(ProduceResponse::decode);
    }

    /** kaen-log's fetch for one partition (it parks like any kaen-log fetch when there is nothing yet). */
    public FetchResponse fetch(FetchRequest request) throws IOException {
        return call(kaenlog.wire.ApiKeys.FETCH, request.encode()).map(FetchResponse::decode)
                .orElseThrow(() -> new IOException("the fetch handler gave no answer"));
    }

    /** Any other kaen-log request, by its kaen-log api key (chapter 7's INIT_PRODUCER_ID, say). */
    public Optional<byte[]> call(short kaenlogApiKey, byte[] body) throws IOException {
        return broker.handle(kaenlogApiKey, body);
    }

    /** The log start offset and high watermark of an existing partition. */
    public long[] startAndHighWatermark(String partition) throws IOException {
        return broker.existingPartition(partition)
                .orElseThrow(() -> new IOException("partition " + partition + " does not exist"))
                .locked(log -> new long[] {log.logStartOffset(), log.highWatermark()});
    }

    /**
     * A lookup by time in an existing partition (chapter 3's time index): the earliest record whose
     * timestamp is at or after {@code timestamp}, or for {@link ListOffsets#MAX_TIMESTAMP} the first
     * record holding the largest timestamp; empty when there is none below the high watermark (what a
     * consumer may fetch bounds what it is told, as Kafka's ReplicaManager does with lastFetchableOffset).
     */
    public Optional<kaenlog.log.Segment.TimestampAndOffset> offsetForTimestamp(String partition, long timestamp)
            throws IOException {
        return broker.existingPartition(partition)
                .orElseThrow(() -> new IOException("partition " + partition + " does not exist"))
                .locked(log -> (timestamp == ListOffsets.MAX_TIMESTAMP ? log.largestTimestamp()
                        : log.offsetForTimestamp(timestamp)).filter(found -> found.offset() < log.highWatermark()));
    }

    /**
     * Creates a topic Metadata was asked for: Kafka's {@code auto.create.topics.enable} (default true)
     * with {@code num.partitions} partitions (default 1), and returns their count; 0 when the broker's config forbids it or
     * when a partition would go over {@code max.partitions}: then nothing of the topic is left on disk.
     */
    public int autoCreate(String topic) throws IOException {
        if (!Boolean.parseBoolean(broker.configs().brokerValue(KafkaConfigKeys.AUTO_CREATE_TOPICS_ENABLE))) {
            return 0;
        }
        int partitions = (int) broker.configs().brokerLong(KafkaConfigKeys.NUM_PARTITIONS);
        for (int p = 0; p < partitions; p++) {
            try {
                broker.partition(partitionName(topic, p));
                broker.partitionsDone();
            } catch (PartitionLimitException full) {
                broker.refusedCreation(full.getMessage());
                for (int created = 0; created < p; created++) {
                    broker.removeIfEmpty(partitionName(topic, created));
                }
                return 0;
            }
        }
        return partitions;
    }

    /**
     * The partitions this request used so far are done with: the broker may close them again to stay
     * under max.open.partitions. A Kafka request names many partitions; without this, one request
     * naming 10,000 of them would hold all 10,000 open (and 20,000 files) until it is answered.
     */
    public void partitionsDone() {
        broker.partitionsDone();
    }

    /** Every topic with its partition numbers, read from the data directory; internal ones ({@code __}) left out. */
    public Map<String, TreeSet<Integer>> topics() throws IOException {
        Map<String, TreeSet<Integer>> topics = new TreeMap<>();
        Path dataDir = broker.config().dataDir();
        if (!Files.isDirectory(dataDir)) {
            return topics;
        }
        try (Stream<Path> dirs = Files.list(dataDir)) {
            dirs.filter(Files::isDirectory).map(dir -> dir.getFileName().toString())
                    .filter(name -> !PartitionNames.isInternal(name))
                    .flatMap(name -> PartitionNames.parse(name).stream())
                    .forEach(p -> topics.computeIfAbsent(p.topic(), t -> new TreeSet<>()).add(p.partition()));
        }
        return topics;
    }

    /** The partition of this kaen-log name, if it exists (looking creates nothing). */
    public Optional<kaenlog.broker.Partition> existingPartition(String name) throws IOException {
        return broker.existingPartition(name);
    }

    /** The broker's fetch.max.bytes: the most one Fetch answer carries (but for one batch). */
    public int fetchMaxBytes() {
        return (int) broker.configs().brokerLong(KafkaConfigKeys.FETCH_MAX_BYTES);
    }

    /** Looking creates nothing: only a produce (or Metadata's auto-creation) makes a partition. */
    public boolean exists(String topic, int partition) throws IOException {
        return broker.existingPartition(partitionName(topic, partition)).isPresent();
    }
}
