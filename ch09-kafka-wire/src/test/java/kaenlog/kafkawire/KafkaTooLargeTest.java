package kaenlog.kafkawire;

import static kaenlog.kafkawire.KafkaFrames.frame;
import static kaenlog.kafkawire.KafkaFrames.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.InitProducerIdHandler;
import kaenlog.wire.PartitionNames;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Too large is an answer on the Kafka port too (given code around your Produce,
 * task 6 (RealClientsTest)): a batch over {@code message.max.bytes} is MESSAGE_TOO_LARGE (10) for its
 * partition while the others of the request are written, and a kafka-clients producer whose
 * {@code max.request.size} is larger than the broker's limit fails that record at once with
 * RecordTooLargeException instead of reconnecting until its delivery timeout. A damaged producer-id
 * log is an answer as well. Runs after the tasks.
 */
@Order(13)
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class KafkaTooLargeTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    private String log() {
        return brokerLog.toString(StandardCharsets.UTF_8);
    }

    private Broker start(BrokerConfig config) throws IOException {
        return Broker.start(config, new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
    }

    private KafkaListener listen(Broker broker) throws IOException {
        return KafkaListener.start(broker, "127.0.0.1", 0, new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
    }

    private static Properties producerConfig(int port, boolean idempotent) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 << 20);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, idempotent);
        config.put(ProducerConfig.ACKS_CONFIG, idempotent ? "all" : "1");
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return config;
    }

    @Test
    void aKafkaProducerWithALargerMaxRequestSizeGetsRecordTooLargeAtOnce() throws Exception {
        try (Broker broker = start(BrokerConfig.of(dir.resolve("data")));
             KafkaListener listener = listen(broker)) {
            Preflight.run(broker);
            for (boolean idempotent : new boolean[] {true, false}) {
                String topic = idempotent ? "big-idempotent" : "big-plain";
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(listener.port(),
                        idempotent))) {
                    producer.send(new ProducerRecord<>(topic, new byte[10])).get(30, TimeUnit.SECONDS);
                    long startNs = System.nanoTime();
                    Future<RecordMetadata> big = producer.send(new ProducerRecord<>(topic, new byte[2 << 20]));
                    Throwable failed = catchThrowable(() -> big.get(60, TimeUnit.SECONDS));
                    long tookMs = (System.nanoTime() - startNs) / 1_000_000;
                    System.out.println("a 2 MiB record, max.request.size 4 MiB, enable.idempotence=" + idempotent
                            + ": " + failed + " after " + tookMs + " ms");
                    assertThat(failed).as("a 2 MiB record (max.request.size 4 MiB, message.max.bytes 1048588,"
                            + " enable.idempotence=%s) fails with RecordTooLargeException, the broker's"
                            + " MESSAGE_TOO_LARGE; broker log:%n%s", idempotent, log())
                            .isInstanceOf(ExecutionException.class)
                            .hasCauseInstanceOf(RecordTooLargeException.class);
                    assertThat(tookMs).as("at once, not after reconnecting until delivery.timeout.ms (30 s here)")
                            .isLessThan(10_000);
                    if (!idempotent) {
                        // An idempotent kafka-clients producer bumps its epoch after a failed batch (KIP-360)
                        // and starts again at sequence 0, which chapter 7's judge does not take yet.
                        assertThat(producer.send(new ProducerRecord<>(topic, new byte[10])).get(30, TimeUnit.SECONDS)
                                .offset()).as("and the producer goes on: the next record is written after the first")
                                .isEqualTo(1);
                    }
                }
            }
        }
    }

    @Test
    void aBatchOverMessageMaxBytesIsMessageTooLargeForItsPartitionOnlyInTheSameRequest() throws IOException {
        try (Broker broker = start(BrokerConfig.of(dir.resolve("data")));
             KafkaListener listener = listen(broker);
             Socket socket = new Socket("127.0.0.1", listener.port())) {
            Preflight.run(broker);
            socket.setSoTimeout(30_000);
            // a produce on the Kafka port creates nothing (Kafka's rule): the two partitions are made first
            broker.partition(Backend.partitionName("mixed", 0));
            broker.partition(Backend.partitionName("mixed", 1));
            broker.partitionsDone();
            ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1_000);
            ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("mixed");
            topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(0L, null, new byte[1_500_000]))));
            topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(1).setRecords(
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(0L, null, "ok".getBytes()))));
            data.topicData().add(topic);
            ProduceRequest request = new ProduceRequest(data, (short) 8);
            ProduceResponseData answer = ((ProduceResponse) AbstractResponse.parseResponse(
                    roundTrip(socket, frame(request, ApiKeys.PRODUCE, 1)),
                    new RequestHeader(ApiKeys.PRODUCE, (short) 8, "c", 1))).data();
            Map<Integer, Short> errors = new TreeMap<>();
            answer.responses().forEach(t -> t.partitionResponses().forEach(p -> errors.put(p.index(), p.errorCode())));
            assertThat(errors).as("one request, a 1.5 MB batch for partition 0 and a small one for partition 1:"
                    + " MESSAGE_TOO_LARGE (10) for the first, the second written; broker log:%n%s", log())
                    .isEqualTo(Map.of(0, Errors.MESSAGE_TOO_LARGE.code(), 1, Errors.NONE.code()));
        }
    }

    @Test
    @kaenlog.testkit.PassesOnSkeleton("the frame limit is the broker's own given code, read before any exercise runs")
    void aFrameOverSocketRequestMaxBytesClosesTheConnectionWithOneLine() throws IOException {
        try (Broker broker = start(BrokerConfig.of(dir.resolve("data")));
             KafkaListener listener = listen(broker);
             Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(broker.config().maxFrameBytes() + 1);
            out.flush();
            assertThat(socket.getInputStream().read()).as("over socket.request.max.bytes: closed, as Kafka's"
                    + " NetworkReceive does (InvalidReceiveException)").isEqualTo(-1);
            assertThat(log().lines().filter(l -> l.contains("socket.request.max.bytes")).count())
                    .as("one line naming the limit; broker log:%n%s", log()).isEqualTo(1);
        }
    }

    @Test
    void aDamagedProducerIdLogIsAnAnswerToInitProducerIdNotADroppedConnection() throws IOException {
        Path data = dir.resolve("data");
        InitProducerIdRequest init = new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                .setTransactionalId(null).setTransactionTimeoutMs(Integer.MAX_VALUE)).build((short) 1);
        try (Broker broker = start(BrokerConfig.of(data)); KafkaListener listener = listen(broker);
             Socket socket = new Socket("127.0.0.1", listener.port())) {
            Preflight.run(broker);
            socket.setSoTimeout(30_000);
            roundTrip(socket, frame(init, ApiKeys.INIT_PRODUCER_ID, 1));
        }
        try (Stream<Path> files = Files.list(PartitionNames.resolve(data, InitProducerIdHandler.PARTITION))) {
            Path segment = files.filter(f -> f.toString().endsWith(".log")).findFirst().orElseThrow();
            byte[] bytes = Files.readAllBytes(segment);
            bytes[bytes.length - 2] ^= 0x40; // the last batch's CRC no longer holds
            Files.write(segment, bytes);
        }
        try (Broker broker = start(BrokerConfig.of(data)); KafkaListener listener = listen(broker);
             Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(30_000);
            InitProducerIdResponse answer = InitProducerIdResponse.parse(new org.apache.kafka.common.protocol
                    .ByteBufferAccessor(skipCorrelationId(roundTrip(socket, frame(init, ApiKeys.INIT_PRODUCER_ID, 2)))),
                    (short) 1);
            assertThat(Errors.forCode(answer.data().errorCode()))
                    .as("Kafka has no CORRUPT_PRODUCER_ID_RECORD: the producer-id log this broker cannot read is"
                            + " KAFKA_STORAGE_ERROR (56), and no id; broker log:%n%s", log())
                    .isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(answer.data().producerId()).as("no id is handed out").isEqualTo(-1);
        }
    }

    private static ByteBuffer skipCorrelationId(ByteBuffer response) {
        response.getInt();
        return response;
    }
}
