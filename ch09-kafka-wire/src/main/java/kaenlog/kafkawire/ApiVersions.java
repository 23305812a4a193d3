package kaenlog.kafkawire;

import kaenlog.workbook.Todo;

/**
 * ApiVersions (key 18): the first request a Kafka client sends on every connection, asking which
 * requests and versions this broker answers. Request: nothing before v3; from v3 (flexible)
 * client_software_name and client_software_version as compact strings, then tagged fields.
 * Response: error_code · api_keys ({@link ApiKey#answered}: what this listener answers) [api_key · min_version · max_version] · throttle_time_ms (v1+),
 * compact with tagged fields from v3.
 */
public final class ApiVersions {

    /** What a client says of itself (v3+); nulls before v3. */
    public record Request(String clientSoftwareName, String clientSoftwareVersion) {
    }

    private ApiVersions() {
    }

    public static Request parseRequest(KafkaReader in, short version) {
        throw new Todo("ch09 task 4: parse ApiVersions v0..v3 (ApiVersionsTest)");
    }

    /**
     * The answer: {@code error} and every {@link ApiKey} with its version range, in {@code version}'s
     * layout. UNSUPPORTED_VERSION is answered in the v0 layout whatever was asked (the fallback: a
     * client that asked too new a version can still read it, and asks again).
     */
    public static byte[] response(short version, short error) {
        throw new Todo("ch09 task 4: build the ApiVersions response, classic or compact (ApiVersionsTest)");
    }
}
