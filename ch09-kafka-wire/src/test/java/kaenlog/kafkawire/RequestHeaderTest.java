package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
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

    // ---- Kafka judges: any header of any request, as kafka-clients writes and reads it ----------

    /** A request header as a client writes it (tagged fields Kafka does not know included), then a few body bytes. */
    record Header(short apiKey, short apiVersion, int correlationId, String clientId, RequestHeaderData data,
                  short headerVersion, byte[] body) {
        @Override
        public String toString() {
            return "api_key " + apiKey + " (" + ApiKey.of(apiKey).map(Enum::name).orElse(kafkaKey(apiKey)
                    .map(k -> k + ", which this listener does not answer").orElse("unknown to Kafka")) + ") v"
                    + apiVersion + ", correlation_id " + correlationId + ", client_id " + Property.show(clientId)
                    + ", header v" + headerVersion + (data.unknownTaggedFields().isEmpty() ? ""
                    : " with tagged fields " + data.unknownTaggedFields().stream().map(f -> "tag " + f.tag() + " ("
                    + f.size() + " bytes)").toList());
        }
    }

    /** Mostly the api keys this listener answers, at versions around their range; now and then another of Kafka's, or none. */
    static Gen<Header> headers() {
        return c -> {
            short apiKey;
            short version;
            if (!c.oneIn(5)) {
                ApiKey key = ApiKey.values()[c.belowInt(ApiKey.values().length)];
                apiKey = key.id;
                version = Gens.ints(key.minVersion - 1, ApiKeys.forId(key.id).latestVersion() + 1).generate(c).shortValue();
            } else {
                apiKey = c.oneIn(2) ? ApiKeys.values()[c.belowInt(ApiKeys.values().length)].id
                        : Gens.ints(Short.MIN_VALUE, Short.MAX_VALUE).generate(c).shortValue();
                version = Gens.ints(0, 20).generate(c).shortValue();
            }
            int correlationId = Gens.ints().generate(c);
            String clientId = KafkaMessages.text(4).generate(c);
            short headerVersion = kafkaKey(apiKey).map(k -> k.requestHeaderVersion(version)).orElse((short) 1);
            RequestHeaderData data = new RequestHeaderData().setRequestApiKey(apiKey).setRequestApiVersion(version)
                    .setCorrelationId(correlationId).setClientId(clientId);
            if (headerVersion >= 2) {
                data.unknownTaggedFields().addAll(KafkaMessages.unknownTaggedFields().generate(c));
            }
            return new Header(apiKey, version, correlationId, clientId, data, headerVersion, Gens.bytes(0, 3).generate(c));
        };
    }

    @Test
    void anyHeaderIsReadAsKafkasRequestHeaderDataReadsIt() {
        Property.forAll(headers().flatMap(h -> c -> new Object[] {h, KafkaMessages.maybeDamaged(c, concat(
                KafkaMessages.write(h.data(), h.headerVersion()), h.body()))})).tries(400)
                .show(x -> x[0] + "\n  the bytes (the body's first bytes after the header) " + x[1])
                .check(x -> {
                    Header h = (Header) x[0];
                    KafkaMessages.Sent sent = (KafkaMessages.Sent) x[1];
                    byte[] bytes = sent.bytes();
                    Judge.Outcome yours = Judge.Outcome.of(() -> {
                        KafkaReader in = new KafkaReader(bytes);
                        kaenlog.kafkawire.RequestHeader header = kaenlog.kafkawire.RequestHeader.parse(in);
                        return fields(header.apiKey(), header.apiVersion(), header.correlationId(), header.clientId())
                                + ", the body at byte " + in.position();
                    });
                    short[] readAs = {1};
                    Judge.Outcome kafkas = Judge.Outcome.of(() -> {
                        ByteBuffer in = ByteBuffer.wrap(bytes);
                        // as RequestHeader.parse: the api key and version first, then the header at their version; a
                        // key this listener does not answer is read as header v1 (its correlation id answered, then
                        // the connection closed), even one Kafka reads as v2
                        short apiKey = in.getShort(0);
                        short apiVersion = in.getShort(2);
                        readAs[0] = ApiKey.of(apiKey).isPresent() ? ApiKeys.forId(apiKey).requestHeaderVersion(apiVersion) : 1;
                        RequestHeaderData d = new RequestHeaderData(new ByteBufferAccessor(in), readAs[0]);
                        return fields(d.requestApiKey(), d.requestApiVersion(), d.correlationId(), d.clientId())
                                + ", the body at byte " + in.position();
                    });
                    KafkaMessages.refusedWithATypedError(yours, "these bytes of a request header");
                    KafkaMessages.agree(sent, "these bytes of a request header", "reading", yours,
                            "RequestHeaderData reads (header v" + readAs[0] + ")", kafkas,
                            "api_key, api_version, correlation_id, then client_id, a CLASSIC nullable string (int16 length)"
                                    + " in both header versions; header v2, and only v2 (a flexible version of a key this"
                                    + " listener knows; any other key is read as v1), then ends with tagged fields, skipped by"
                                    + " their sizes");
                    ApiKey.of(h.apiKey()).ifPresent(key -> {
                        Judge.agree(key + " v" + h.apiVersion(), "request header version",
                                key.requestHeaderVersion(h.apiVersion()), "ApiKeys.requestHeaderVersion says",
                                ApiKeys.forId(key.id).requestHeaderVersion(h.apiVersion()),
                                "request header v2 exactly for the flexible versions, v1 before");
                        Judge.agree(key + " v" + h.apiVersion(), "response header version",
                                key.responseHeaderVersion(h.apiVersion()), "ApiKeys.responseHeaderVersion says",
                                ApiKeys.forId(key.id).responseHeaderVersion(h.apiVersion()),
                                "response header v1 for the flexible versions, v0 before; ApiVersions' is always v0");
                    });
                });
    }

    /** Kafka's api key of this number, if kafka-clients 4.1.1 has one (ZooKeeper-era ones such as 4..7 it no longer knows). */
    static java.util.Optional<ApiKeys> kafkaKey(short id) {
        try {
            ApiKeys key = ApiKeys.forId(id);
            key.requestHeaderVersion((short) 0);
            return java.util.Optional.of(key);
        } catch (IllegalArgumentException | org.apache.kafka.common.errors.UnsupportedVersionException e) {
            return java.util.Optional.empty();
        }
    }

    private static String fields(short apiKey, short apiVersion, int correlationId, String clientId) {
        return "api_key " + apiKey + ", api_version " + apiVersion + ", correlation_id " + correlationId + ", client_id "
                + Property.show(clientId);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
