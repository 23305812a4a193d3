package kaenlog.kafkawire;

import static kaenlog.kafkawire.KafkaFrames.frame;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.ConnectionLimits;
import kaenlog.broker.LogConfigKeys;
import kaenlog.broker.PartitionConfigs;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One Kafka request names as many partitions as it likes (given code around your Produce,
 * task 6 (RealClientsTest)): a produce creates nothing (Kafka creates partitions by CreateTopics or
 * Metadata's auto-create alone), what one request opens stays under {@code max.open.partitions}, and
 * Metadata's auto-create follows {@code auto.create.topics.enable} and {@code num.partitions} under
 * {@code max.partitions}, checked at each creation. Runs after the tasks.
 */
@Order(11)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BoundedKafkaPortTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    private Broker start(PartitionConfigs configs, ConnectionLimits limits) throws IOException {
        return Broker.start(BrokerConfig.of(dir.resolve("data")).withConfigs(configs), limits,
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
    }

    private List<String> partitionDirs() throws IOException {
        try (Stream<Path> entries = Files.list(dir.resolve("data"))) {
            return entries.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** One request over a real connection (so the broker's per-request bookkeeping runs), its answer's body. */
    private static ByteBuffer roundTrip(int port, byte[] frame) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            return KafkaFrames.roundTrip(socket, frame);
        }
    }

    /** A Produce v8 naming partitions 0..9 of {@code topic}, each with one record, sent over a real connection. */
    private static Map<Integer, Short> produceToTenPartitions(KafkaListener listener, String topic) throws IOException {
        List<ProduceRequestData.PartitionProduceData> partitions = new ArrayList<>();
        for (int p = 0; p < 10; p++) {
            partitions.add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(0L, null, "v".getBytes()))));
        }
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(partitions));
        ProduceRequest request = new ProduceRequest(data, (short) 8);
        ProduceResponseData answer = ((ProduceResponse) AbstractResponse.parseResponse(
                roundTrip(listener.port(), frame(request, ApiKeys.PRODUCE, 1)),
                new RequestHeader(ApiKeys.PRODUCE, (short) 8, "c", 1))).data();
        Map<Integer, Short> errors = new TreeMap<>();
        answer.responses().forEach(t -> t.partitionResponses().forEach(p -> errors.put(p.index(), p.errorCode())));
        return errors;
    }

    /** On this thread first, naming no partition (it creates nothing): a task not written yet fails here as itself. */
    private void produceNamingNoPartition(Broker broker, KafkaListener listener) throws IOException {
        ProduceRequestData none = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1_000);
        none.topicData().add(new ProduceRequestData.TopicProduceData().setName("wide"));
        new KafkaApis(new Backend(broker), "127.0.0.1", listener.port(), new PrintStream(brokerLog))
                .handle(frame(new ProduceRequest(none, (short) 8), ApiKeys.PRODUCE, 0));
    }

    @Test
    void aProduceToPartitionsThatDoNotExistIsUnknownTopicOrPartitionAndCreatesNothing() throws IOException {
        try (Broker broker = start(PartitionConfigs.load(), ConnectionLimits.defaults());
             KafkaListener listener = KafkaListener.start(broker, "127.0.0.1", 0, new PrintStream(brokerLog))) {
            produceNamingNoPartition(broker, listener);
            Map<Integer, Short> errors = produceToTenPartitions(listener, "never-created");
            assertThat(errors.values()).as("Kafka creates partitions only by CreateTopics or Metadata's auto-create:"
                    + " a produce naming ten partitions of an unknown topic gets UNKNOWN_TOPIC_OR_PARTITION (3) for"
                    + " each (one request naming 10,000 created 10,000 directories); broker log:%n%s",
                    brokerLog.toString(StandardCharsets.UTF_8)).hasSize(10).containsOnly((short) 3);
            assertThat(partitionDirs()).as("the produce created nothing on disk").noneMatch(d -> d.startsWith("never"));
        }
    }

    @Test
    void oneProduceNamingManyPartitionsOpensAtMostMaxOpenPartitions() throws IOException {
        PartitionConfigs configs = PartitionConfigs.load().with(KafkaConfigKeys.NUM_PARTITIONS + "=10");
        try (Broker broker = start(configs, ConnectionLimits.defaults().withMaxOpenPartitions(2));
             KafkaListener listener = KafkaListener.start(broker, "127.0.0.1", 0, new PrintStream(brokerLog))) {
            produceNamingNoPartition(broker, listener);
            KafkaApis apis = new KafkaApis(new Backend(broker), "127.0.0.1", listener.port(), new PrintStream(brokerLog));
            assertThat(metadata(apis, List.of("wide")).topics()).as("Metadata auto-creates 'wide' with num.partitions=10")
                    .singleElement().satisfies(t -> assertThat(t.partitions()).hasSize(10));
            Map<Integer, Short> errors = produceToTenPartitions(listener, "wide");
            assertThat(errors.values()).as("each of the ten partitions is written in the one request; broker log:%n%s",
                    brokerLog.toString(StandardCharsets.UTF_8)).hasSize(10).containsOnly((short) 0);
            assertThat(broker.openPartitionCount()).as("max.open.partitions=2 holds within one request: each"
                    + " partition is done with once answered, so the broker may close it (one request naming 10,000"
                    + " kept 20,000 files open)").isLessThanOrEqualTo(2);
        }
    }

    @Test
    void aNegativePartitionIsUnknownAndNeverAnotherTopicsPartition() throws IOException {
        PartitionConfigs configs = PartitionConfigs.load().with(KafkaConfigKeys.NUM_PARTITIONS + "=6");
        try (Broker broker = start(configs, ConnectionLimits.defaults());
             KafkaListener listener = KafkaListener.start(broker, "127.0.0.1", 0, new PrintStream(brokerLog))) {
            produceNamingNoPartition(broker, listener);
            KafkaApis apis = new KafkaApis(new Backend(broker), "127.0.0.1", listener.port(), new PrintStream(brokerLog));
            assertThat(metadata(apis, List.of("alias-")).topics()).as("setup: topic 'alias-' with partitions 0..5")
                    .singleElement().satisfies(t -> assertThat(t.partitions()).hasSize(6));
            ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1_000);
            data.topicData().add(new ProduceRequestData.TopicProduceData().setName("alias").setPartitionData(List.of(
                    new ProduceRequestData.PartitionProduceData().setIndex(-5).setRecords(MemoryRecords.withRecords(
                            Compression.NONE, new SimpleRecord(0L, null, "stray".getBytes()))))));
            ProduceResponseData answer = ((ProduceResponse) AbstractResponse.parseResponse(
                    roundTrip(listener.port(), frame(new ProduceRequest(data, (short) 8), ApiKeys.PRODUCE, 3)),
                    new RequestHeader(ApiKeys.PRODUCE, (short) 8, "c", 3))).data();
            assertThat(answer.responses()).singleElement().satisfies(t -> assertThat(t.partitionResponses())
                    .singleElement().satisfies(p -> assertThat(p.errorCode()).as("topic 'alias' partition -5 does not"
                            + " exist: UNKNOWN_TOPIC_OR_PARTITION (3), not a write to the directory 'alias--5', which"
                            + " is topic 'alias-' partition 5").isEqualTo((short) 3)));
            assertThat(new Backend(broker).startAndHighWatermark("alias--5")[1])
                    .as("topic 'alias-' partition 5 holds nothing").isZero();
        }
    }

    private static MetadataResponseData metadata(KafkaApis apis, List<String> topics) throws IOException {
        MetadataRequest request = new MetadataRequest.Builder(topics, true).build((short) 8);
        byte[] answer = apis.handle(frame(request, ApiKeys.METADATA, 2)).orElseThrow();
        return ((MetadataResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(answer),
                new RequestHeader(ApiKeys.METADATA, (short) 8, "c", 2))).data();
    }

    @Test
    void metadataAutoCreatesNumPartitionsPerTopicUnderMaxPartitionsAndNothingOfATopicItCannotFinish()
            throws IOException {
        PartitionConfigs configs = PartitionConfigs.load().with(LogConfigKeys.MAX_PARTITIONS + "=5")
                .with(KafkaConfigKeys.NUM_PARTITIONS + "=2");
        try (Broker broker = start(configs, ConnectionLimits.defaults())) {
            KafkaApis apis = new KafkaApis(new Backend(broker), "127.0.0.1", 9092, new PrintStream(brokerLog));
            MetadataResponseData answer = metadata(apis, List.of("t0", "t1", "t2", "t3"));
            Map<String, Short> errors = new TreeMap<>();
            Map<String, Integer> counts = new TreeMap<>();
            answer.topics().forEach(t -> {
                errors.put(t.name(), t.errorCode());
                counts.put(t.name(), t.partitions().size());
            });
            assertThat(errors).as("num.partitions=2 under max.partitions=5: t0 and t1 are created whole; t2 and t3"
                    + " would go over, are answered UNKNOWN_TOPIC_OR_PARTITION (3)")
                    .isEqualTo(new TreeMap<>(Map.of("t0", (short) 0, "t1", (short) 0, "t2", (short) 3, "t3", (short) 3)));
            assertThat(counts.get("t0")).as("a created topic has num.partitions partitions").isEqualTo(2);
            assertThat(partitionDirs()).as("a topic that could not be created whole leaves nothing on disk")
                    .containsExactly("t0-0", "t0-1", "t1-0", "t1-1");
        }
    }

    @Test
    void metadataCreatesNothingWhenAutoCreateTopicsIsDisabled() throws IOException {
        PartitionConfigs configs = PartitionConfigs.load().with(KafkaConfigKeys.AUTO_CREATE_TOPICS_ENABLE + "=false");
        try (Broker broker = start(configs, ConnectionLimits.defaults())) {
            KafkaApis apis = new KafkaApis(new Backend(broker), "127.0.0.1", 9092, new PrintStream(brokerLog));
            MetadataResponseData answer = metadata(apis, List.of("absent"));
            assertThat(answer.topics()).as("auto.create.topics.enable=false: an unknown topic is"
                    + " UNKNOWN_TOPIC_OR_PARTITION (3) and is not created").singleElement()
                    .satisfies(t -> assertThat(t.errorCode()).isEqualTo((short) 3));
            assertThat(partitionDirs()).as("nothing is created").isEmpty();
        }
    }
}
