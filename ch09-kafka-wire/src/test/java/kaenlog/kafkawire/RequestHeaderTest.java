package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 3: the request header, v1 or v2 by the request's version, and which response header goes
 * back. kafka-clients 4.1.1 writes the requests and is the judge of the versions.
 */
@Order(3)
class RequestHeaderTest {

    @Test
    void aClassicRequestHasHeaderV1AndTheBodyStartsRightAfterClientId() {
        MetadataRequest request = new MetadataRequest(new MetadataRequestData().setTopics(null)
                .setAllowAutoTopicCreation(false), (short) 8);
        ByteBuffer bytes = request.serializeWithHeader(new RequestHeader(ApiKeys.METADATA, (short) 8, "my-client", 42));
        KafkaReader in = new KafkaReader(bytes);
        kaenlog.kafkawire.RequestHeader header = kaenlog.kafkawire.RequestHeader.parse(in);
        assertThat(header.apiKey()).as("Metadata is Kafka's api key 3").isEqualTo((short) 3);
        assertThat(header.apiVersion()).as("the version the client wrote").isEqualTo((short) 8);
        assertThat(header.correlationId()).as("the correlation id the client will match the answer with")
                .isEqualTo(42);
        assertThat(header.clientId()).as("client_id, a classic nullable string").isEqualTo("my-client");
        assertThat(in.arrayLength("topics")).as("Metadata v8 is not flexible: header v1 has no tagged fields, so the"
                + " body's first field (topics, null = every topic) follows client_id at once").isEqualTo(-1);
    }

    @Test
    void aFlexibleRequestHasHeaderV2WhoseClientIdIsStillAClassicString() {
        ApiVersionsRequest request = new ApiVersionsRequest(new ApiVersionsRequestData()
                .setClientSoftwareName("kcat").setClientSoftwareVersion("1.7"), (short) 3);
        ByteBuffer bytes = request.serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "c", 7));
        KafkaReader in = new KafkaReader(bytes);
        kaenlog.kafkawire.RequestHeader header = kaenlog.kafkawire.RequestHeader.parse(in);
        assertThat(header.clientId()).as("header v2 keeps client_id as an int16-length string (reading it as a compact"
                + " string takes 00 01 for length 0 and loses the next byte)").isEqualTo("c");
        assertThat(header.correlationId()).isEqualTo(7);
        assertThat(in.compactString("client_software_name"))
                .as("ApiVersions v3 is flexible: header v2 ends with tagged fields, which must be skipped before the"
                        + " body's compact strings").isEqualTo("kcat");
    }

    @Test
    void eachVersionUsesTheHeaderKafkaClientsUses() {
        for (ApiKey key : ApiKey.values()) {
            ApiKeys kafka = ApiKeys.forId(key.id);
            for (short v = key.minVersion; v <= key.maxVersion + 1; v++) {
                assertThat(key.requestHeaderVersion(v))
                        .as("%s v%d: request header v2 exactly for flexible versions (kafka-clients says %d)", key, v,
                                kafka.requestHeaderVersion(v))
                        .isEqualTo(kafka.requestHeaderVersion(v));
                assertThat(key.responseHeaderVersion(v))
                        .as("%s v%d: response header v1 for flexible versions, but ApiVersions always v0 (kafka-clients"
                                + " says %d)", key, v, kafka.responseHeaderVersion(v))
                        .isEqualTo(kafka.responseHeaderVersion(v));
            }
        }
    }

    @Test
    void anUnknownApiKeyIsReadAsHeaderV1SoItsCorrelationIdCanBeAnswered() {
        byte[] bytes = new KafkaWriter().int16(999).int16(0).int32(5).nullableString(null).toByteArray();
        kaenlog.kafkawire.RequestHeader header = kaenlog.kafkawire.RequestHeader.parse(new KafkaReader(bytes));
        assertThat(header.key()).as("999 is no api key this listener knows").isNull();
        assertThat(header.correlationId()).as("still read: the UNSUPPORTED_VERSION answer carries it").isEqualTo(5);
        assertThat(header.clientId()).as("a null client_id is -1 as an int16").isNull();
        assertThat(header.supported()).isFalse();
    }

    @Test
    void theBodyStartsExactlyWhereKafkaClientsHeaderEnds() {
        for (ApiKey key : ApiKey.values()) {
            for (short v = key.minVersion; v <= key.maxVersion + 1; v++) {
                RequestHeader kafka = new RequestHeader(ApiKeys.forId(key.id), v, "client-1", 17);
                if (kafka.headerVersion() >= 2) {
                    // a tagged field this broker does not know (tag 7, three bytes): skipped by its size
                    kafka.data().unknownTaggedFields().add(new RawTaggedField(7, new byte[] {1, 2, 3}));
                }
                ObjectSerializationCache cache = new ObjectSerializationCache();
                int size = kafka.data().size(cache, kafka.headerVersion());
                ByteBuffer bytes = ByteBuffer.allocate(size + 2);
                kafka.data().write(new ByteBufferAccessor(bytes), cache, kafka.headerVersion());
                bytes.putShort((short) 0).flip(); // the body's first two bytes, which the header must leave alone
                KafkaReader in = new KafkaReader(bytes);
                kaenlog.kafkawire.RequestHeader.parse(in);
                assertThat(in.position())
                        .as("%s v%d has request header v%d, %d bytes: the body starts right after it (client_id is a"
                                + " classic int16-length string in both versions; header v2, and only v2, then ends with"
                                + " tagged fields, each skipped by its size)", key, v, kafka.headerVersion(), size)
                        .isEqualTo(size);
            }
        }
    }

    @Test
    void anUnknownApiKeysHeaderEndsRightAfterClientId() {
        byte[] bytes = new KafkaWriter().int16(999).int16(0).int32(5).nullableString("c").int16(0).toByteArray();
        KafkaReader in = new KafkaReader(bytes);
        kaenlog.kafkawire.RequestHeader.parse(in);
        assertThat(in.position())
                .as("an api key this listener does not know has no known flexible versions: it is read as header v1,"
                        + " which ends with client_id (11 bytes here), and no byte of what follows is taken for a tagged"
                        + " field count")
                .isEqualTo(11);
    }
}
