package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.log.Segment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One offline partition, its neighbours served on the Kafka port (given code around your Produce,
 * task 6 (RealClientsTest)): every api that names partitions answers the offline one with its own
 * error and the others with their answers, in the same response, on a connection that stays open
 * (Kafka: a KafkaStorageException is a per-partition KAFKA_STORAGE_ERROR, 56). Runs after the tasks.
 */
@Order(12)
@Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OfflinePartitionKafkaTest {
    private static final String TOPIC = "mixed";
    private static final int HEALTHY = 0;
    private static final int BROKEN = 1;
    private static final int RECORDS = 50;
    private static final short KAFKA_STORAGE_ERROR = 56;
    private static final short LEADER_NOT_AVAILABLE = 5;

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
    private Broker broker;
    private KafkaListener listener;

    /** Both partitions written, a clean stop, partition 1 damaged so it cannot be opened, a restart. */
    @BeforeEach
    void startWithOneBrokenPartition() throws IOException {
        Path data = dir.resolve("data");
        broker = Broker.start(BrokerConfig.of(data), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
        Preflight.run(broker); // an exercise not written yet fails here, as its TODO
        // a produce on the Kafka port creates nothing (Kafka's rule): the two partitions are made first
        broker.partition(Backend.partitionName(TOPIC, HEALTHY));
        broker.partition(Backend.partitionName(TOPIC, BROKEN));
        broker.partitionsDone();
        ProduceResponse written = produce(RECORDS, 1);
        written.data().responses().forEach(t -> t.partitionResponses().forEach(p -> assertThat(p.errorCode())
                .as("setup: partition %d is written", p.index()).isZero()));
        listener.close();
        broker.close();
        Path broken = data.resolve(TOPIC + "-" + BROKEN);
        // A second segment claiming the first one's offsets: no write makes that, so the log refuses to open.
        Files.copy(broken.resolve(Segment.fileName(0, Segment.LOG_SUFFIX)), broken.resolve(Segment.fileName(1,
                Segment.LOG_SUFFIX)), StandardCopyOption.REPLACE_EXISTING);
        broker = Broker.start(BrokerConfig.of(data), log);
        listener = KafkaListener.start(broker, "127.0.0.1", 0, log);
        assertThat(brokerLog.toString(StandardCharsets.UTF_8)).as("setup: partition %s-%d is offline", TOPIC, BROKEN)
                .contains("partition " + TOPIC + "-" + BROKEN + " is offline");
    }

    @AfterEach
    void stop() {
        if (listener != null) {
            listener.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void aKafkaConsumerAssignedAHealthyAndAnOfflinePartitionReadsEveryRecordOfTheHealthyOne() {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> both = List.of(new TopicPartition(TOPIC, HEALTHY), new TopicPartition(TOPIC, BROKEN));
            consumer.assign(both);
            int emptyPolls = 0;
            while (read.size() < RECORDS && emptyPolls < 40) {
                int before = read.size();
                consumer.poll(Duration.ofMillis(250)).forEach(read::add);
                emptyPolls = read.size() == before ? emptyPolls + 1 : 0;
            }
        }
        assertThat(read).as("every record of %s-%d, read by a consumer assigned it and the offline %s-%d (one"
                        + " ListOffsets naming both once closed the connection: nothing was read, 98 reconnects in"
                        + " 12 s); broker log:%n%s", TOPIC, HEALTHY, TOPIC, BROKEN, brokerLog)
                .hasSize(RECORDS).allSatisfy(r -> assertThat(r.partition()).isEqualTo(HEALTHY));
    }

    @Test
    void listOffsetsFetchAndProduceAnswerTheOfflinePartitionWithItsErrorAndTheOtherWithItsAnswer()
            throws IOException {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(30_000);
            List<ListOffsetsRequestData.ListOffsetsPartition> targets = new ArrayList<>();
            for (int p : new int[] {HEALTHY, BROKEN}) {
                targets.add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(p)
                        .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP));
            }
            ListOffsetsRequest listOffsets = ListOffsetsRequest.Builder.forConsumer(false,
                    IsolationLevel.READ_UNCOMMITTED).setTargetTimes(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                    .setName(TOPIC).setPartitions(targets))).build((short) 7);
            Map<Integer, long[]> offsets = new TreeMap<>();
            ((ListOffsetsResponse) call(socket, listOffsets, ApiKeys.LIST_OFFSETS, 1)).topics()
                    .forEach(t -> t.partitions().forEach(p -> offsets.put(p.partitionIndex(),
                            new long[] {p.errorCode(), p.offset()})));
            assertThat(offsets.get(BROKEN)[0]).as("ListOffsets: the offline partition's KAFKA_STORAGE_ERROR")
                    .isEqualTo(KAFKA_STORAGE_ERROR);
            assertThat(offsets.get(HEALTHY)).as("ListOffsets: the healthy partition's end, in the same answer")
                    .containsExactly(0L, RECORDS);

            Map<TopicPartition, FetchRequest.PartitionData> fetches = new java.util.LinkedHashMap<>();
            for (int p : new int[] {BROKEN, HEALTHY}) {
                fetches.put(new TopicPartition(TOPIC, p), new FetchRequest.PartitionData(Uuid.ZERO_UUID, 0, -1,
                        1 << 20, java.util.Optional.empty()));
            }
            FetchRequest fetch = FetchRequest.Builder.forConsumer((short) 11, 0, 1, fetches).build((short) 11);
            Map<Integer, Integer> fetched = new TreeMap<>();
            Map<Integer, Short> fetchErrors = new TreeMap<>();
            ((FetchResponse) call(socket, fetch, ApiKeys.FETCH, 2)).data().responses().forEach(t ->
                    t.partitions().forEach(p -> {
                        fetchErrors.put(p.partitionIndex(), p.errorCode());
                        int count = 0;
                        for (var batch : ((MemoryRecords) p.records()).batches()) {
                            count += batch.countOrNull();
                        }
                        fetched.put(p.partitionIndex(), count);
                    }));
            assertThat(fetchErrors).as("Fetch: KAFKA_STORAGE_ERROR for the offline partition, none for the healthy one")
                    .containsEntry(BROKEN, KAFKA_STORAGE_ERROR).containsEntry(HEALTHY, (short) 0);
            assertThat(fetched.get(HEALTHY)).as("Fetch: the healthy partition's records").isEqualTo(RECORDS);

            Map<Integer, Short> produced = new TreeMap<>();
            ((ProduceResponse) call(socket, produceRequest(1), ApiKeys.PRODUCE, 3)).data().responses()
                    .forEach(t -> t.partitionResponses().forEach(p -> produced.put(p.index(), p.errorCode())));
            assertThat(produced).as("Produce: the offline partition refuses the write, the healthy one takes it")
                    .containsEntry(BROKEN, KAFKA_STORAGE_ERROR).containsEntry(HEALTHY, (short) 0);

            MetadataResponseData metadata = ((MetadataResponse) call(socket,
                    new MetadataRequest.Builder(List.of(TOPIC), false).build((short) 8), ApiKeys.METADATA, 4)).data();
            Map<Integer, MetadataResponseData.MetadataResponsePartition> partitions = new TreeMap<>();
            metadata.topics().forEach(t -> t.partitions().forEach(p -> partitions.put(p.partitionIndex(), p)));
            assertThat(partitions.get(HEALTHY).errorCode()).as("Metadata: the healthy partition, no error").isZero();
            assertThat(partitions.get(HEALTHY).leaderId()).as("Metadata: led by this broker").isEqualTo(Metadata.NODE_ID);
            MetadataResponseData.MetadataResponsePartition offline = partitions.get(BROKEN);
            assertThat(offline.errorCode()).as("Metadata: the offline partition has no leader (Kafka's MetadataCache:"
                    + " LEADER_NOT_AVAILABLE once its only replica's log dir is offline)").isEqualTo(LEADER_NOT_AVAILABLE);
            assertThat(offline.leaderId()).as("Metadata: leader -1 for the offline partition").isEqualTo(-1);
            assertThat(offline.offlineReplicas()).as("Metadata: its replica is listed offline").containsExactly(
                    Metadata.NODE_ID);
        }
    }

    private ProduceResponse produce(int healthyRecords, int brokenRecords) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(30_000);
            return (ProduceResponse) call(socket, produceRequest(healthyRecords, brokenRecords), ApiKeys.PRODUCE, 1);
        }
    }

    private static ProduceRequest produceRequest(int records) {
        return produceRequest(records, records);
    }

    private static ProduceRequest produceRequest(int healthyRecords, int brokenRecords) {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5_000);
        List<ProduceRequestData.PartitionProduceData> partitions = new ArrayList<>();
        partitions.add(new ProduceRequestData.PartitionProduceData().setIndex(HEALTHY).setRecords(records(healthyRecords)));
        partitions.add(new ProduceRequestData.PartitionProduceData().setIndex(BROKEN).setRecords(records(brokenRecords)));
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(TOPIC).setPartitionData(partitions));
        return new ProduceRequest(data, (short) 8);
    }

    private static MemoryRecords records(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /** One request on {@code socket} (kept open: the next call reuses it), its parsed answer. */
    private static AbstractResponse call(Socket socket, AbstractRequest request, ApiKeys key, int correlationId)
            throws IOException {
        RequestHeader header = new RequestHeader(key, request.version(), "offline-test", correlationId);
        ByteBuffer buffer = request.serializeWithHeader(header);
        byte[] frame = new byte[buffer.remaining()];
        buffer.get(frame);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] answer;
        try {
            answer = new byte[in.readInt()];
        } catch (java.io.EOFException closed) {
            throw new AssertionError(key + " naming a healthy and an offline partition: the broker closed the"
                    + " connection instead of answering each partition");
        }
        in.readFully(answer);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
    }
}
