package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.nio.file.Files;
import java.util.stream.Stream;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.BrokerConfig;
import kaenlog.demo.batch.DumpCommand;
import kaenlog.testkit.FaultInjectingProxy;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Task 6: the real Kafka clients (kafka-clients 4.1.1, which no one here wrote) against
 * your broker's Kafka port. Everything they send goes through your parse and answer, chapter 7's
 * idempotence and chapter 3's log.
 */
@Order(6)
@Timeout(180)
class RealClientsTest {
    private static final int RECORDS = 10_000;
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final long PROXY_SEED = 9;
    private static final double DROP_RATE = 0.25;
    private static final int ACK_SECONDS = 90;

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private KafkaPortFixture kafka;

    @BeforeEach
    void start() throws Exception {
        kafka = KafkaPortFixture.start(BrokerConfig.of(dir.resolve("data")), brokerLog);
    }

    @AfterEach
    void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void anIdempotentKafkaProducerSendsTenThousandRecordsAndAKafkaConsumerReadsThemBackInOrder() throws Exception {
        produce(kafka.port());
        List<ConsumerRecord<String, String>> read = consume(kafka.port());
        assertThat(read).as("every record the producer sent, read back by KafkaConsumer.assign() from the beginning"
                + " within 40 polls of 250 ms that bring nothing (Fetch is given: a record acknowledged but not read"
                + " was usually written to another partition than it was answered for, task 6 (RealClientsTest)); broker log:%n%s",
                brokerLog).hasSize(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            ConsumerRecord<String, String> r = read.get(i);
            assertThat(r.offset()).as("record %d sits at offset %d: the leader assigns offsets in order", i, i)
                    .isEqualTo(i);
            assertThat(r.key()).as("offset %d's key", i).isEqualTo("key-" + i % 10);
            assertThat(r.value()).as("offset %d's value", i).isEqualTo("value-" + i);
            Header header = r.headers().lastHeader("n");
            assertThat(header).as("offset %d keeps its header 'n'", i).isNotNull();
            assertThat(new String(header.value(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i));
        }
    }

    @Test
    void answersLostOnTheWayStillLeaveEveryRecordExactlyOnce() throws Exception {
        try (FaultInjectingProxy proxy = new FaultInjectingProxy("127.0.0.1", kafka.port(),
                FaultInjectingProxy.Faults.lostAnswers(PROXY_SEED, DROP_RATE))) {
            kafka.listener.advertise("127.0.0.1", proxy.port());
            produce(proxy.port());
            assertThat(proxy.responsesDropped()).as("the proxy must really have lost answers for this test to mean"
                    + " anything").isPositive();
            kafka.listener.advertise("127.0.0.1", kafka.port());
        }
        List<ConsumerRecord<String, String>> read = consume(kafka.port());
        List<String> values = new ArrayList<>();
        read.forEach(r -> values.add(r.value()));
        assertThat(values).as("lost answers make the producer resend; chapter 7's window answers each resend as a"
                + " duplicate, so every value is in the log exactly once, in order").hasSize(RECORDS)
                .doesNotHaveDuplicates();
        for (int i = 0; i < RECORDS; i++) {
            assertThat(values.get(i)).as("offset %d", i).isEqualTo("value-" + i);
        }
    }

    /**
     * The topic's partitions, made before a raw produce names them: on the Kafka port a produce
     * creates nothing (Kafka creates partitions by CreateTopics or Metadata's auto-create alone).
     */
    private void createTopic(String topic, int partitions) throws Exception {
        for (int p = 0; p < partitions; p++) {
            kafka.broker.partition(Backend.partitionName(topic, p));
        }
        kafka.broker.partitionsDone();
    }

    @Test
    void aProduceWithAcksZeroIsWrittenButNeverAnswered() throws Exception {
        createTopic("quiet", 1);
        KafkaApis apis = new KafkaApis(new Backend(kafka.broker), "127.0.0.1", kafka.port(), new PrintStream(brokerLog));
        assertThat(apis.handle(produceFrame((short) 0, 5, "quiet", 0, 2)))
                .as("acks=0 is never answered: the client expects no answer, and would take one for the next request's")
                .isEmpty();
        ProduceResponseData.PartitionProduceResponse next = partition(answer(apis, produceFrame((short) 1, 6, "quiet", 0, 1),
                6), "quiet", 0);
        assertThat(next.baseOffset())
                .as("an acks=0 batch is written all the same (only its answer is left out): its 2 records sit at offsets"
                        + " 0 and 1, so the acks=1 batch after it lands at 2").isEqualTo(2L);
    }

    @Test
    void eachPartitionIsWrittenAndAnsweredUnderItsOwnTopicAndIndex() throws Exception {
        createTopic("alpha", 2);
        createTopic("beta", 1);
        KafkaApis apis = new KafkaApis(new Backend(kafka.broker), "127.0.0.1", kafka.port(), new PrintStream(brokerLog));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName("alpha").setPartitionData(List.of(
                partitionData(0, 1), partitionData(1, 2))));
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName("beta").setPartitionData(List.of(
                partitionData(0, 3))));
        ProduceResponseData answer = answer(apis, frame(new ProduceRequest(data, (short) 8), 7), 7);
        assertThat(topic(answer, "alpha").partitionResponses())
                .extracting(ProduceResponseData.PartitionProduceResponse::index)
                .as("alpha is answered under its own topic: its partitions 0 and 1, no other").containsExactly(0, 1);
        assertThat(topic(answer, "beta").partitionResponses())
                .extracting(ProduceResponseData.PartitionProduceResponse::index)
                .as("beta is answered under its own topic: its partition 0, no other").containsExactly(0);
        for (String topic : List.of("alpha", "beta")) {
            for (ProduceResponseData.PartitionProduceResponse p : topic(answer, topic).partitionResponses()) {
                assertThat(p.errorCode()).as("%s-%d: error 0", topic, p.index()).isZero();
                assertThat(p.baseOffset()).as("%s-%d is a partition of its own, new: its first batch lands at offset 0"
                        + " (one kaen-log produce per partition, each to its own topic and index)", topic, p.index())
                        .isZero();
            }
        }
    }

    @Test
    void aKaenLogErrorIsAnsweredInKafkasCode() throws Exception {
        createTopic("broken", 1);
        KafkaApis apis = new KafkaApis(new Backend(kafka.broker), "127.0.0.1", kafka.port(), new PrintStream(brokerLog));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(0L, null, "intact".getBytes(StandardCharsets.UTF_8)));
        ByteBuffer corrupt = records.buffer().duplicate();
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 1)); // the value's last byte: CRC breaks
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName("broken").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0)
                        .setRecords(MemoryRecords.readableRecords(corrupt)))));
        ProduceResponseData.PartitionProduceResponse p = partition(answer(apis, frame(new ProduceRequest(data,
                (short) 8), 8), 8), "broken", 0);
        assertThat(p.errorCode())
                .as("a batch whose CRC does not match is refused by kaen-log as CORRUPT_BATCH (its own number, 4) and"
                        + " answered in Kafka's code: CORRUPT_MESSAGE (2); on this port a client reads Kafka's numbers only")
                .isEqualTo(KafkaErrors.CORRUPT_MESSAGE);
    }

    @Test
    void acksOtherThanZeroOneOrAllAreAnsweredInvalidRequiredAcks() throws Exception {
        createTopic("strict", 1);
        KafkaApis apis = new KafkaApis(new Backend(kafka.broker), "127.0.0.1", kafka.port(), new PrintStream(brokerLog));
        ProduceResponseData.PartitionProduceResponse p = partition(answer(apis, produceFrame((short) 2, 9, "strict", 0, 1),
                9), "strict", 0);
        assertThat(Errors.forCode(p.errorCode()))
                .as("acks=2 (librdkafka lets request.required.acks be any number) is not 0, 1 or all: Kafka's"
                        + " ReplicaManager answers each partition INVALID_REQUIRED_ACKS (21), and writes nothing")
                .isEqualTo(Errors.INVALID_REQUIRED_ACKS);
        assertThat(new Backend(kafka.broker).startAndHighWatermark(Backend.partitionName("strict", 0))[1])
                .as("nothing was written").isZero();
    }

    // ---- a model judges: any request over topics that exist or not, in Kafka's codes ------------

    /** One partition entry of a request: its index, how many records, and whether its batch's CRC is broken. */
    record Entry(int index, int records, boolean corrupt) {
        @Override
        public String toString() {
            return index + ": " + records + " record(s)" + (corrupt ? ", CRC broken" : "");
        }
    }

    /** One topic of a request (by its number in the try) and its entries; {@code partitions} it has (0: it does not exist). */
    record TopicEntry(int topic, int partitions, List<Entry> entries) {
        @Override
        public String toString() {
            return "topic " + topic + (partitions == 0 ? " (does not exist)" : " (" + partitions + " partitions)") + " "
                    + entries;
        }
    }

    record Request(short acks, short version, List<TopicEntry> topics) {
        @Override
        public String toString() {
            return "Produce v" + version + " acks " + acks + " " + topics;
        }
    }

    /**
     * acks 1, all or 0 (and now and then a value Kafka does not know); one to three distinct topics, each
     * existing with one to three partitions or not at all; one to three distinct partition indexes per topic, some
     * beyond the topic's, each a batch of one to three records, one time in six with its CRC broken.
     */
    static Gen<Request> requests() {
        return c -> {
            short acks = c.oneIn(10) ? (short) (c.oneIn(2) ? 2 : -2) : new short[] {1, -1, 0}[c.belowInt(3)];
            List<TopicEntry> topics = new ArrayList<>();
            for (int t = 0, count = 1 + c.belowInt(3); t < count; t++) {
                int partitions = c.oneIn(5) ? 0 : 1 + c.belowInt(3);
                List<Entry> entries = new ArrayList<>();
                List<Integer> indexes = new ArrayList<>(List.of(0, 1, 2, 3));
                for (int p = 0, n = 1 + c.belowInt(3); p < n; p++) {
                    entries.add(new Entry(indexes.remove(c.belowInt(indexes.size())), 1 + c.belowInt(3), c.oneIn(6)));
                }
                topics.add(new TopicEntry(t, partitions, entries));
            }
            return new Request(acks, (short) (3 + c.belowInt(6)), topics);
        };
    }

    private final AtomicInteger tries = new AtomicInteger();

    @Test
    void anyRequestIsWrittenAndAnsweredAsTheModelSaysInKafkasCodes() throws Exception {
        KafkaApis apis = new KafkaApis(new Backend(kafka.broker), "127.0.0.1", kafka.port(), new PrintStream(brokerLog));
        // each try asks the broker: shrinking stops within 200 replays, so a failure comes within seconds
        Property.forAll(requests()).tries(30).shrinkBudget(200).check(r -> {
            String prefix = "p" + tries.incrementAndGet() + "-";
            ProduceRequestData data = new ProduceRequestData().setAcks(r.acks()).setTimeoutMs(1_000);
            List<String> expected = new ArrayList<>();
            java.util.Map<String, Long> logEnds = new java.util.TreeMap<>();
            boolean closed = false; // acks=0: a partition whose produce fails closes the connection there
            for (TopicEntry t : r.topics()) {
                String topic = prefix + t.topic();
                if (t.partitions() > 0) {
                    createTopic(topic, t.partitions());
                }
                List<ProduceRequestData.PartitionProduceData> partitions = new ArrayList<>();
                List<String> answers = new ArrayList<>();
                for (Entry e : t.entries()) {
                    ByteBuffer bytes = ((MemoryRecords) partitionData(e.index(), e.records()).records()).buffer().duplicate();
                    if (e.corrupt()) {
                        bytes.put(bytes.limit() - 1, (byte) (bytes.get(bytes.limit() - 1) ^ 1));
                    }
                    partitions.add(new ProduceRequestData.PartitionProduceData().setIndex(e.index())
                            .setRecords(MemoryRecords.readableRecords(bytes)));
                    boolean exists = e.index() < t.partitions();
                    Errors error = !exists ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                            : r.acks() != 0 && r.acks() != 1 && r.acks() != -1 ? Errors.INVALID_REQUIRED_ACKS
                            : e.corrupt() ? Errors.CORRUPT_MESSAGE : Errors.NONE;
                    long base = error == Errors.NONE ? 0 : -1; // every partition is new: its first batch lands at 0
                    answers.add(e.index() + " " + error + " base_offset " + base
                            + (r.version() >= 5 ? " log_start_offset " + base : ""));
                    if (exists) {
                        logEnds.put(Backend.partitionName(topic, e.index()),
                                error == Errors.NONE && !closed ? (long) e.records() : 0L);
                        closed |= r.acks() == 0 && error != Errors.NONE;
                    }
                }
                data.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(partitions));
                expected.add(topic + " " + answers);
            }
            byte[] frame = KafkaFrames.frame(new ProduceRequest(data, r.version()), ApiKeys.PRODUCE, 11);
            Judge.Outcome handled = Judge.Outcome.of(() -> apis.handle(frame));
            Object yours;
            if (handled.refused()) {
                yours = handled.refusal() instanceof kaenlog.broker.CloseConnectionException ? "the connection closed"
                        : handled.toString();
            } else {
                @SuppressWarnings("unchecked")
                java.util.Optional<byte[]> answer = (java.util.Optional<byte[]>) handled.value();
                yours = answer.map(bytes -> {
                    ProduceResponseData d = ((ProduceResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(bytes),
                            new RequestHeader(ApiKeys.PRODUCE, r.version(), "c", 11))).data();
                    List<String> topics = new ArrayList<>();
                    d.responses().forEach(t -> topics.add(t.name() + " " + t.partitionResponses().stream()
                            .map(p -> p.index() + " " + Errors.forCode(p.errorCode()) + " base_offset " + p.baseOffset()
                                    + (r.version() >= 5 ? " log_start_offset " + p.logStartOffset() : ""))
                            .toList()));
                    return (Object) topics;
                }).orElse("no answer");
            }
            Object kafkas = r.acks() != 0 ? expected : closed ? "the connection closed" : "no answer";
            String rule = "each partition is written through its own kaen-log produce and answered under its own topic and"
                    + " index, in the request's order, its error in Kafka's codes; acks=0 is never answered, yet written (a"
                    + " failed acks=0 produce closes the connection instead)";
            Judge.agree("this request, prefix " + prefix, "answer", yours,
                    "Errors, with this test's model of the partitions, give", kafkas, rule);
            java.util.Map<String, Long> written = new java.util.TreeMap<>();
            for (String name : logEnds.keySet()) {
                written.put(name, new Backend(kafka.broker).startAndHighWatermark(name)[1]);
            }
            Judge.agree("this request, prefix " + prefix, "log end offsets after it", written,
                    "Errors, with this test's model of the partitions, give", logEnds, rule);
        });
    }

    private static ProduceRequestData.PartitionProduceData partitionData(int index, int records) {
        SimpleRecord[] batch = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            batch[i] = new SimpleRecord(0L, null, ("r" + i).getBytes(StandardCharsets.UTF_8));
        }
        return new ProduceRequestData.PartitionProduceData().setIndex(index)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, batch));
    }

    private static byte[] produceFrame(short acks, int correlationId, String topic, int index, int records) {
        ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(1_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic)
                .setPartitionData(List.of(partitionData(index, records))));
        return frame(new ProduceRequest(data, (short) 8), correlationId);
    }

    private static byte[] frame(ProduceRequest request, int correlationId) {
        return KafkaFrames.frame(request, ApiKeys.PRODUCE, correlationId);
    }

    /** The answer, read by kafka-clients as the client that sent the request would read it. */
    private static ProduceResponseData answer(KafkaApis apis, byte[] frame, int correlationId) throws Exception {
        byte[] answer = apis.handle(frame).orElseThrow(() -> new AssertionError("an acks=1 Produce must be answered"));
        return ((ProduceResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(answer),
                new RequestHeader(ApiKeys.PRODUCE, (short) 8, "c", correlationId))).data();
    }

    private static ProduceResponseData.PartitionProduceResponse partition(ProduceResponseData answer, String topic,
                                                                          int index) {
        return topic(answer, topic).partitionResponses().stream().filter(p -> p.index() == index).findFirst()
                .orElseThrow(() -> new AssertionError("the answer has no partition " + index + " for " + topic));
    }

    private static ProduceResponseData.TopicProduceResponse topic(ProduceResponseData answer, String name) {
        return answer.responses().stream().filter(t -> name.equals(t.name())).findFirst()
                .orElseThrow(() -> new AssertionError("the answer has no topic " + name));
    }

    /**
     * compression.type as people set it: kafka-clients compresses each batch (gzip from the JDK,
     * snappy-java, lz4-java, zstd-jni), the broker validates the records inside and stores the
     * batch as sent (Kafka's compression.type=producer), and a consumer inflates it again.
     */
    @ParameterizedTest
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void aCompressingKafkaProducerIsStoredAsSentAndReadBack(String codec) throws Exception {
        int records = 2_000;
        String topic = "compressed-" + codec;
        produce(kafka.port(), topic, records, codec);
        List<ConsumerRecord<String, String>> read = consume(kafka.port(), new TopicPartition(topic, 0), records);
        assertThat(read).as("every record a %s producer sent, read back by a KafkaConsumer; broker log:%n%s",
                codec, brokerLog).hasSize(records);
        for (int i = 0; i < records; i++) {
            assertThat(read.get(i).value()).as("%s: offset %d", codec, i).isEqualTo("value-" + i);
        }
        List<Integer> codecs = storedCodecs(topic);
        assertThat(codecs).as("%s: the batches on disk keep the producer's codec (attribute bits 0-2)", codec)
                .isNotEmpty().containsOnly(kaenlog.batch.Compression.named(codec).id());
        assertThat(dumpLogSegments(topic))
                .as("%s: Kafka's DumpLogSegments reads our segment and names the codec", codec)
                .contains("compresscodec: " + codec).doesNotContain("isvalid: false");
    }

    /**
     * kcat (librdkafka 2.0.2, Debian's kcat 1.7.1) with -z compresses with every codec, as against
     * Kafka 4.1.1: the table lists Produce from v0, which librdkafka asks for before it compresses
     * with gzip, snappy or lz4 (ApiKeyTableTest has its rule). Each batch is stored as kcat sent it,
     * snappy as one raw block without xerial's framing, and read back by a KafkaConsumer, by Kafka's
     * DumpLogSegments and by {@code klog dump}. Skips when kcat is not installed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void kcatCompressesWithEveryCodecAndItsBatchesAreStoredAsSent(String codec) throws Exception {
        Assumptions.assumeTrue(onPath("kcat"), "kcat is not installed (apt-get install -y kcat): skipped");
        String topic = "kcat-" + codec;
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            lines.append("a line that repeats itself, so that compressing it pays ").append(i).append('\n');
        }
        Process kcat = new ProcessBuilder("kcat", "-b", "127.0.0.1:" + kafka.port(), "-P", "-t", topic, "-p", "0",
                "-z", codec, "-X", "linger.ms=50", "-d", "msg").redirectErrorStream(true).start();
        kcat.getOutputStream().write(lines.toString().getBytes(StandardCharsets.UTF_8));
        kcat.getOutputStream().close();
        byte[] said = kcat.getInputStream().readAllBytes();
        assertThat(kcat.waitFor(60, TimeUnit.SECONDS)).as("kcat -z %s finished", codec).isTrue();
        String output = new String(said, StandardCharsets.UTF_8);
        assertThat(kcat.exitValue()).as("kcat -z %s exit status; its output:%n%s%nbroker log:%n%s", codec, output,
                brokerLog).isZero();
        assertThat(output).as("kcat -z %s: librdkafka found what it wants in the ApiVersions answer (Produce from"
                + " v0; for lz4 FindCoordinator v0; for zstd Produce v7 and Fetch v10)", codec)
                .doesNotContain("does not support compression type");
        // librdkafka sends a batch plain when compressing makes it larger (rd_kafka_msgset_writer_compress):
        // a lone short line that left early (a slow machine) may be such a batch, against Kafka as here
        assertThat(storedCodecs(topic, 2)).as("kcat -z %s: every stored batch of more than one line carries the"
                + " codec kcat compressed it with (attribute bits 0-2); kcat said:%n%s", codec, output)
                .isNotEmpty().containsOnly(kaenlog.batch.Compression.named(codec).id());
        if (codec.equals("snappy")) {
            assertThat(firstSnappyRecordsByte(topic)).as("kcat -z snappy: stored as sent, one raw snappy block (its"
                    + " first byte a length), not re-framed as xerial's stream (0x82)").isNotEqualTo((byte) 0x82);
        }
        assertThat(consume(kafka.port(), new TopicPartition(topic, 0), 500))
                .as("kcat -z %s: all 500 lines read back by a KafkaConsumer", codec).hasSize(500);
        assertThat(dumpLogSegments(topic)).as("kcat -z %s, per Kafka's DumpLogSegments", codec)
                .contains("compresscodec: " + codec).doesNotContain("isvalid: false");
        assertThat(klogDump(topic)).as("kcat -z %s, per klog dump", codec)
                .contains("compresscodec: " + codec).contains("payload: a line that repeats itself, so that"
                        + " compressing it pays 499");
    }

    /** The first byte after the header of the first stored snappy batch: where its compressed records start. */
    private byte firstSnappyRecordsByte(String topic) throws Exception {
        for (ByteBuffer batch : RecordBatch.sliceAll(ByteBuffer.wrap(Files.readAllBytes(segments(topic).get(0))))) {
            if ((batch.getShort(BatchHeader.ATTRIBUTES_OFFSET) & BatchHeader.COMPRESSION_CODEC_MASK)
                    == kaenlog.batch.Compression.SNAPPY.id()) {
                return batch.get(BatchHeader.SIZE);
            }
        }
        throw new AssertionError("no snappy batch stored for " + topic);
    }

    /** {@code klog dump} (chapter 1's) of the topic's first segment: its output, once it succeeded. */
    private String klogDump(String topic) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new DumpCommand().run(List.of(segments(topic).get(0).toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).as("klog dump of %s exits 0; it said:%n%s", topic, err).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }

    private static boolean onPath(String command) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, command)));
    }

    private List<Path> segments(String topic) throws Exception {
        try (Stream<Path> files = Files.walk(dir.resolve("data"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")
                    && f.getParent().getFileName().toString().startsWith(topic)).sorted().toList();
        }
    }

    /** Attribute bits 0-2 of every batch the broker stored for the topic, read from its segment files. */
    private List<Integer> storedCodecs(String topic) throws Exception {
        return storedCodecs(topic, 1);
    }

    /** The same, of the batches of at least {@code minRecords} records only. */
    private List<Integer> storedCodecs(String topic, int minRecords) throws Exception {
        List<Integer> codecs = new ArrayList<>();
        for (Path segment : segments(topic)) {
            for (ByteBuffer batch : RecordBatch.sliceAll(ByteBuffer.wrap(Files.readAllBytes(segment)))) {
                if (BatchHeader.readFrom(batch.duplicate()).recordCount() >= minRecords) {
                    codecs.add(batch.getShort(BatchHeader.ATTRIBUTES_OFFSET) & BatchHeader.COMPRESSION_CODEC_MASK);
                }
            }
        }
        return codecs;
    }

    /** kafka.tools.DumpLogSegments --files on the topic's first segment, run in its own JVM; its output. */
    private String dumpLogSegments(String topic) throws Exception {
        List<Path> segments = segments(topic);
        assertThat(segments).as("the broker wrote a segment for %s", topic).isNotEmpty();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process dump = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "kafka.tools.DumpLogSegments", "--files", segments.get(0).toString())
                .redirectErrorStream(true).start();
        byte[] out = dump.getInputStream().readAllBytes();
        assertThat(dump.waitFor(60, TimeUnit.SECONDS)).as("DumpLogSegments finished").isTrue();
        return new String(out, StandardCharsets.UTF_8);
    }

    private static void produce(int port) throws Exception {
        Properties config = KafkaPortFixture.producerConfig(port);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        config.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 20);
        config.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 20);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                ProducerRecord<String, String> record = new ProducerRecord<>("orders", 0, "key-" + i % 10, "value-" + i);
                record.headers().add("n", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(record));
            }
            producer.flush();
            for (int i = 0; i < RECORDS; i++) {
                assertThat(acknowledged(sent.get(i), i).offset()).as("the producer's record %d was acknowledged at"
                        + " offset %d", i, i).isEqualTo(i);
            }
        }
    }

    /**
     * The producer's answer for one record, waited for at most {@value #ACK_SECONDS} seconds (the
     * delivery timeout is 60): a failure says which record and what usually causes it.
     */
    private static RecordMetadata acknowledged(Future<RecordMetadata> future, int i) throws InterruptedException {
        try {
            return future.get(ACK_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the producer's record " + i + " got no acknowledgement within " + ACK_SECONDS
                    + " s: its Produce request was never answered, or answered in a way the client could not match"
                    + " (usually task 6 (RealClientsTest): an acks=all request must be answered, every partition under its own topic"
                    + " and index)", e);
        } catch (ExecutionException e) {
            throw new AssertionError("the producer's record " + i + " was refused or timed out (" + e.getCause()
                    + "): usually task 6 (RealClientsTest), an error in kaen-log's numbers instead of Kafka's, or an answer the client"
                    + " cannot match, or task 5 (ProduceRequestTest), the request read from the wrong bytes", e);
        }
    }

    private static void produce(int port, String topic, int records, String codec) throws Exception {
        Properties config = KafkaPortFixture.producerConfig(port);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, "key-" + i % 10, "value-" + i)));
            }
            producer.flush();
            for (int i = 0; i < records; i++) {
                assertThat(sent.get(i).get(30, TimeUnit.SECONDS).offset())
                        .as("%s producer: record %d acknowledged at offset %d", codec, i, i).isEqualTo(i);
            }
        }
    }

    private static List<ConsumerRecord<String, String>> consume(int port) {
        return consume(port, ORDERS, RECORDS);
    }

    private static List<ConsumerRecord<String, String>> consume(int port, TopicPartition partition, int records) {
        Properties config = KafkaPortFixture.consumerConfig(port);
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long emptyPolls = 0;
            while (read.size() < records && emptyPolls < 40) {
                int before = read.size();
                consumer.poll(Duration.ofMillis(250)).forEach(read::add);
                emptyPolls = read.size() == before ? emptyPolls + 1 : 0;
            }
        }
        return read;
    }
}
