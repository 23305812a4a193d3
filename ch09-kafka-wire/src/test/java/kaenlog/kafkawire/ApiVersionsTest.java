package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
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
            for (ApiKey key : ApiKey.values()) {
                ApiVersion listed = response.data().apiKeys().find(key.id);
                assertThat(listed).as("v%d: the answer must list %s (key %d); a v3 answer must use compact arrays with"
                        + " tagged fields per element and at the end", v, key, key.id).isNotNull();
                assertThat(listed.minVersion()).as("v%d: %s min version", v, key).isEqualTo(key.minVersion);
                assertThat(listed.maxVersion()).as("v%d: %s max version", v, key).isEqualTo(key.maxVersion);
            }
            assertThat(response.data().apiKeys()).as("v%d: exactly the keys of ApiKey", v)
                    .hasSize(ApiKey.values().length);
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
                    + " per element and at the end), v0..v2 classic", v, v).hasSize(ApiKey.values().length);
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
    void theFallbackListsEveryApiKeyWithItsRange() {
        ByteBuffer body = ByteBuffer.wrap(ApiVersions.response((short) 0, KafkaErrors.UNSUPPORTED_VERSION));
        ApiVersionsResponseData data = new ApiVersionsResponseData(new ByteBufferAccessor(body), (short) 0);
        assertThat(data.errorCode()).as("the fallback's error_code: UNSUPPORTED_VERSION (35)")
                .isEqualTo(KafkaErrors.UNSUPPORTED_VERSION);
        assertThat(data.apiKeys()).as("the fallback lists every api key with its range, error or not: the table is how"
                + " a client that asked too new a version finds the version to ask again at")
                .hasSize(ApiKey.values().length);
        for (ApiKey key : ApiKey.values()) {
            ApiVersion listed = data.apiKeys().find(key.id);
            assertThat(listed).as("the fallback lists %s (key %d)", key, key.id).isNotNull();
            assertThat(listed.maxVersion()).as("the fallback lists %s's max version", key).isEqualTo(key.maxVersion);
        }
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
