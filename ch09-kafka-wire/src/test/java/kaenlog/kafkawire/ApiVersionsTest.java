package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.MalformedMessageException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 4: ApiVersions, parsed as kafka-clients writes it and answered so that kafka-clients can
 * read it — in every version from v0 to v3, and the v0 fallback for v4.
 */
@Order(4)
class ApiVersionsTest {
    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());

    @Test
    void aV3RequestCarriesTheClientsSoftwareNameAndVersion() {
        ByteBuffer bytes = new ApiVersionsRequest(new ApiVersionsRequestData().setClientSoftwareName("apache-kafka-java")
                .setClientSoftwareVersion("4.1.1"), (short) 3)
                .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "producer-1", 1));
        KafkaReader in = new KafkaReader(bytes);
        kaenlog.kafkawire.RequestHeader.parse(in);
        ApiVersions.Request request = parsed(in, (short) 3);
        assertThat(request.clientSoftwareName()).as("v3's first field, a compact string").isEqualTo("apache-kafka-java");
        assertThat(request.clientSoftwareVersion()).as("v3's second field, a compact string").isEqualTo("4.1.1");
    }

    @Test
    void requestsBeforeV3HaveAnEmptyBody() {
        for (short v = 0; v < 3; v++) {
            ByteBuffer bytes = new ApiVersionsRequest(new ApiVersionsRequestData(), v)
                    .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, v, "c", 1));
            KafkaReader in = new KafkaReader(bytes);
            kaenlog.kafkawire.RequestHeader.parse(in);
            assertThat(parsed(in, v).clientSoftwareName())
                    .as("ApiVersions v%d has no body: nothing to read, nothing left over", v).isNull();
        }
    }

    @Test
    void everyVersionsAnswerIsReadByKafkaClientsWithTheWholeTable() {
        for (short v = 0; v <= 3; v++) {
            ApiVersionsResponse response = parse(ApiVersions.response(v, KafkaErrors.NONE), v);
            assertThat(response.data().errorCode()).as("v%d: error_code 0", v).isEqualTo((short) 0);
            for (ApiKey key : ApiKey.answered()) {
                ApiVersion listed = response.data().apiKeys().find(key.id);
                assertThat(listed).as("v%d: the answer must list %s (key %d); a v3 answer must use compact arrays with"
                        + " tagged fields per element and at the end", v, key, key.id).isNotNull();
                assertThat(listed.minVersion()).as("v%d: %s min version", v, key).isEqualTo(key.minVersion);
                assertThat(listed.maxVersion()).as("v%d: %s max version", v, key).isEqualTo(key.maxVersion);
            }
            assertThat(response.data().apiKeys()).as("v%d: exactly the keys this listener answers (ApiKey.answered():"
                    + " a later chapter's keys, such as AddPartitionsToTxn, only when that chapter is built)", v)
                    .hasSize(ApiKey.answered().length);
        }
    }

    @Test
    void eachVersionsAnswerIsExactlyThatVersionsLayout() {
        for (short v = 0; v <= 3; v++) {
            ByteBuffer body = ByteBuffer.wrap(ApiVersions.response(v, KafkaErrors.NONE));
            // Read at exactly v, with no fallback: kafka-clients' ApiVersionsResponse.parse retries a
            // body it cannot read as v0, which would hide an answer written in the wrong layout.
            ApiVersionsResponseData data;
            try {
                data = new ApiVersionsResponseData(new ByteBufferAccessor(body), v);
            } catch (RuntimeException e) {
                throw new AssertionError("kafka-clients cannot read our v" + v + " answer as v" + v + " (" + e
                        + "): v3 is compact with tagged fields, v1 and v2 add throttle_time_ms to v0's layout", e);
            }
            assertThat(data.apiKeys()).as("v%d read as v%d lists every key: v3 is compact (count + 1, tagged fields"
                    + " per element and at the end), v0..v2 classic", v, v).hasSize(ApiKey.answered().length);
            assertThat(body.remaining()).as("v%d: nothing is left over; throttle_time_ms is there from v1 on, not in v0",
                    v).isZero();
        }
    }

    @Test
    void aRequestWithBytesAfterItsLastFieldIsRefused() {
        assertThat(catchThrowable(() -> ApiVersions.parseRequest(new KafkaReader(new byte[] {0}), (short) 0)))
                .as("ApiVersions v0..v2 has no body: a byte after the header is a malformed request, not ignored")
                .isInstanceOf(MalformedMessageException.class);
        byte[] v3WithExtra = new KafkaWriter().compactNullableString("kcat").compactNullableString("1.7")
                .noTaggedFields().int8(7).toByteArray();
        assertThat(catchThrowable(() -> ApiVersions.parseRequest(new KafkaReader(v3WithExtra), (short) 3)))
                .as("a v3 request ends with its tagged fields: a byte after them is refused")
                .isInstanceOf(MalformedMessageException.class);
    }

    @Test
    void aVersionTooNewIsAnsweredUnsupportedInTheV0LayoutWithTheTable() throws Exception {
        ByteBuffer bytes = new ApiVersionsRequest(new ApiVersionsRequestData().setClientSoftwareName("apache-kafka-java")
                .setClientSoftwareVersion("4.1.1"), (short) 4)
                .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, (short) 4, "producer-1", 9));
        byte[] frame = new byte[bytes.remaining()];
        bytes.get(frame);
        byte[] answer = new KafkaApis(null, "127.0.0.1", 9093, NOWHERE).handle(frame).orElseThrow();
        ByteBuffer in = ByteBuffer.wrap(answer);
        assertThat(in.getInt()).as("the answer carries the request's correlation id").isEqualTo(9);
        ApiVersionsResponse response = ApiVersionsResponse.parse(new org.apache.kafka.common.protocol.ByteBufferAccessor(in),
                (short) 0);
        assertThat(Errors.forCode(response.data().errorCode()))
                .as("kafka-clients 4.1.1 asks v4 first; the answer must be UNSUPPORTED_VERSION in the v0 layout (which"
                        + " every client can read), so that it asks again at the highest version listed")
                .isEqualTo(Errors.UNSUPPORTED_VERSION);
        assertThat(response.data().apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion())
                .as("the fallback lists ApiVersions' own range: v3 here").isEqualTo((short) 3);
    }

    @Test
    void aLaterChaptersRequestsAreNotListedBeforeThatChapterIsBuilt() {
        ApiVersionsResponse response = parse(ApiVersions.response((short) 3, KafkaErrors.NONE), (short) 3);
        for (ApiKey key : ApiKey.values()) {
            if (key.laterChapter) {
                assertThat(response.data().apiKeys().find(key.id)).as("%s (key %d) is answered by a later chapter (11:"
                        + " transactions), not on this chapter's classpath: ApiVersions lists ApiKey.answered(), not"
                        + " ApiKey.values(), so a client never asks for what this broker does not build", key, key.id)
                        .isNull();
            }
        }
    }

    @Test
    void theFallbackListsEveryApiKeyWithItsRange() {
        ByteBuffer body = ByteBuffer.wrap(ApiVersions.response((short) 0, KafkaErrors.UNSUPPORTED_VERSION));
        ApiVersionsResponseData data = new ApiVersionsResponseData(new ByteBufferAccessor(body), (short) 0);
        assertThat(data.errorCode()).as("the fallback's error_code: UNSUPPORTED_VERSION (35)")
                .isEqualTo(KafkaErrors.UNSUPPORTED_VERSION);
        assertThat(data.apiKeys()).as("the fallback lists every api key with its range, error or not: the table is how"
                + " a client that asked too new a version finds the version to ask again at")
                .hasSize(ApiKey.answered().length);
        for (ApiKey key : ApiKey.answered()) {
            ApiVersion listed = data.apiKeys().find(key.id);
            assertThat(listed).as("the fallback lists %s (key %d)", key, key.id).isNotNull();
            assertThat(listed.maxVersion()).as("the fallback lists %s's max version", key).isEqualTo(key.maxVersion);
        }
    }

    // ---- Kafka judges: every version, any field, Kafka's tagged fields included -------------------

    /** An ApiVersions request of version 0 to 3 as kafka-clients writes it (maybe cut short). */
    record Request(ApiVersionsRequestData data, short version, KafkaMessages.Sent sent) {
        @Override
        public String toString() {
            return "ApiVersions v" + version + (version >= 3 ? " client_software_name " + Property.show(data.clientSoftwareName())
                    + ", client_software_version " + Property.show(data.clientSoftwareVersion()) + ", tagged fields "
                    + data.unknownTaggedFields().stream().map(f -> "tag " + f.tag() + " (" + f.size() + " bytes)").toList()
                    : " (no body)") + "; the bytes " + sent;
        }
    }

    static Gen<Request> requests() {
        return c -> {
            short version = (short) c.belowInt(4);
            ApiVersionsRequestData data = new ApiVersionsRequestData();
            if (version >= 3) {
                data.setClientSoftwareName(KafkaMessages.text(0).generate(c))
                        .setClientSoftwareVersion(KafkaMessages.text(0).generate(c));
                data.unknownTaggedFields().addAll(KafkaMessages.unknownTaggedFields().generate(c));
            }
            return new Request(data, version, KafkaMessages.maybeDamaged(c, KafkaMessages.write(data, version)));
        };
    }

    @Test
    void everyRequestIsParsedAsKafkasApiVersionsRequestDataReadsIt() {
        Property.forAll(requests()).tries(300).check(r -> {
            Judge.Outcome yours = Judge.Outcome.of(() -> {
                ApiVersions.Request parsed = ApiVersions.parseRequest(new KafkaReader(r.sent().bytes()), r.version());
                return names(parsed.clientSoftwareName(), parsed.clientSoftwareVersion());
            });
            Judge.Outcome kafkas = Judge.Outcome.of(() -> {
                ByteBuffer in = ByteBuffer.wrap(r.sent().bytes());
                ApiVersionsRequestData d = new ApiVersionsRequestData(new ByteBufferAccessor(in), r.version());
                return KafkaMessages.nothingLeft(in, r.version() < 3 ? names(null, null)
                        : names(d.clientSoftwareName(), d.clientSoftwareVersion()));
            });
            KafkaMessages.agree(r.sent(), "this request", "parse", yours, "ApiVersionsRequestData reads (nothing may follow)", kafkas,
                    "before v3 the request has no body; from v3 on client_software_name and client_software_version are"
                            + " compact strings, then the request's tagged fields, skipped by their sizes, and nothing"
                            + " after them");
            KafkaMessages.refusedWithATypedError(yours, "this request");
        });
    }

    private static String names(String name, String version) {
        return name == null && version == null ? "no body" : "client_software_name " + Property.show(name)
                + ", client_software_version " + Property.show(version);
    }

    @Test
    void everyVersionsAnswerIsWhatKafkasApiVersionsResponseDataWrites() {
        Gen<Short> errors = Gens.oneOf(Gens.elements(KafkaErrors.NONE, KafkaErrors.UNSUPPORTED_VERSION),
                Gens.ints(-1, 120).map(Integer::shortValue));
        Property.forAll(Gens.ints(0, 3).zip(errors, (v, e) -> new short[] {v.shortValue(), e})).tries(100)
                .show(x -> "ApiVersions v" + x[0] + " with error_code " + x[1]).check(x -> {
                    short version = x[0];
                    short error = x[1];
                    ApiVersionsResponseData kafka = new ApiVersionsResponseData().setErrorCode(error).setThrottleTimeMs(0);
                    for (ApiKey key : ApiKey.answered()) {
                        kafka.apiKeys().add(new ApiVersion().setApiKey(key.id).setMinVersion(key.minVersion)
                                .setMaxVersion(key.maxVersion));
                    }
                    Judge.agree("the answer v" + version + " with error_code " + error + " and this listener's table", "bytes",
                            ApiVersions.response(version, error), "ApiVersionsResponseData writes",
                            KafkaMessages.write(kafka, version),
                            "error_code, then every api key with its min and max version, then throttle_time_ms from v1;"
                                    + " v3 is compact: the array's count + 1, tagged fields after each element and at the end");
                });
    }

    /**
     * Parses a request kafka-clients wrote: a refusal of it is this task's mistake, and fails saying
     * what the layout is instead of only where the reading went wrong.
     */
    private static ApiVersions.Request parsed(KafkaReader in, short version) {
        try {
            return ApiVersions.parseRequest(in, version);
        } catch (MalformedMessageException e) {
            throw new AssertionError("ApiVersions v" + version + " as kafka-clients writes it was refused (" + e.getMessage()
                    + "). Before v3 the request has no body; from v3 on it is client_software_name and"
                    + " client_software_version, compact strings (length + 1 as an unsigned varint, then UTF-8), then"
                    + " its tagged fields, and nothing after them", e);
        }
    }

    private static ApiVersionsResponse parse(byte[] body, short version) {
        byte[] withHeader = KafkaApis.withHeader(3, false, body);
        AbstractResponse response = AbstractResponse.parseResponse(ByteBuffer.wrap(withHeader),
                new RequestHeader(ApiKeys.API_VERSIONS, version, "c", 3));
        return (ApiVersionsResponse) response;
    }
}
