package kaenlog.kafkawire;

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
        // BEGIN-SOLUTION ch09 task 4: parse ApiVersions v0..v3 (ApiVersionsTest)
        if (version < 3) {
            in.end("ApiVersions v" + version + " request");
            return new Request(null, null);
        }
        Request request = new Request(in.compactString("client_software_name"),
                in.compactString("client_software_version"));
        in.skipTaggedFields("ApiVersions request");
        in.end("ApiVersions v" + version + " request");
        return request;
        // END-SOLUTION
    }

    /**
     * The answer: {@code error} and every {@link ApiKey} with its version range, in {@code version}'s
     * layout. UNSUPPORTED_VERSION is answered in the v0 layout whatever was asked (the fallback: a
     * client that asked too new a version can still read it, and asks again).
     */
    public static byte[] response(short version, short error) {
        // BEGIN-SOLUTION ch09 task 4: build the ApiVersions response, classic or compact (ApiVersionsTest)
        boolean flexible = version >= 3;
        KafkaWriter out = new KafkaWriter().int16(error);
        ApiKey[] keys = ApiKey.answered();
        if (flexible) {
            out.compactArrayLength(keys.length);
        } else {
            out.arrayLength(keys.length);
        }
        for (ApiKey key : keys) {
            out.int16(key.id).int16(key.minVersion).int16(key.maxVersion);
            if (flexible) {
                out.noTaggedFields();
            }
        }
        if (version >= 1) {
            out.int32(0); // throttle_time_ms: this broker never throttles
        }
        if (flexible) {
            out.noTaggedFields();
        }
        return out.toByteArray();
        // END-SOLUTION
    }
}
