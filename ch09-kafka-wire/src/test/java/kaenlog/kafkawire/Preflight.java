package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import kaenlog.broker.Broker;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * The requests a client starts with, handed to the dispatcher in-process before a whole-chapter
 * test touches a socket: an exercise not written yet fails here, as its TODO (what the progressive
 * gate asks of a test no task names), not as a client waiting for answers that never come or a
 * connection the broker closed.
 */
final class Preflight {
    private Preflight() {
    }

    /**
     * ApiVersions v3, then a Produce v8 (acks=1, then acks=all) of one record to partition preflight-0,
     * which no one made: it is answered UNKNOWN_TOPIC_OR_PARTITION and creates nothing (on the Kafka port a
     * produce creates no partition), so the broker holds only the partitions the test makes.
     */
    static void run(Broker broker) throws IOException {
        // the address Metadata would advertise: neither request asks for it
        KafkaApis apis = new KafkaApis(new Backend(broker), "127.0.0.1", 9092,
                new PrintStream(OutputStream.nullOutputStream()));
        ApiVersionsRequest versions = new ApiVersionsRequest(new ApiVersionsRequestData()
                .setClientSoftwareName("preflight").setClientSoftwareVersion("1"), (short) 3);
        assertThat(apis.handle(KafkaFrames.frame(versions, ApiKeys.API_VERSIONS, 1)))
                .as("ApiVersions v3 is answered").isPresent();
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName("preflight").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(
                        Compression.NONE, new SimpleRecord(0L, null, "x".getBytes(StandardCharsets.UTF_8)))))));
        assertThat(apis.handle(KafkaFrames.frame(new ProduceRequest(data, (short) 8), ApiKeys.PRODUCE, 2)))
                .as("Produce v8 with acks=1 is answered").isPresent();
        data.setAcks((short) -1);
        assertThat(apis.handle(KafkaFrames.frame(new ProduceRequest(data, (short) 8), ApiKeys.PRODUCE, 3)))
                .as("Produce v8 with acks=all (-1, what the real clients send) is answered: only acks=0 is never"
                        + " answered").isPresent();
    }
}
