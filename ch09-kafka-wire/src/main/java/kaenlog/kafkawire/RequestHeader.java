package kaenlog.kafkawire;

import kaenlog.wire.MalformedMessageException;
import kaenlog.workbook.Todo;

/**
 * The header in front of every Kafka request: api_key int16 · api_version int16 · correlation_id
 * int32 · client_id nullable string (v1), plus tagged fields (v2). The trap: client_id stays a
 * CLASSIC string (int16 length) even in header v2, where everything after it is compact.
 *
 * @param key the api key, or null when this listener does not know it (it is answered
 *            UNSUPPORTED_VERSION, see {@link KafkaApis})
 */
public record RequestHeader(ApiKey key, short apiKey, short apiVersion, int correlationId, String clientId) {

    /**
     * Reads a header. An unknown api key is read as header v1 (it has no known flexible versions);
     * a known key with a version this listener does not support is read with that key's rule, so
     * its correlation id can still be answered.
     */
    public static RequestHeader parse(KafkaReader in) {
        throw new Todo("ch09 task 3: parse a request header, v1 or v2 (RequestHeaderTest)");
    }

    /** Known key, supported version. */
    public boolean supported() {
        return key != null && key.supports(apiVersion);
    }

    public boolean flexible() {
        return key != null && key.isFlexible(apiVersion);
    }

    /** The key, once {@link #supported()} said there is one. */
    public ApiKey requireKey() {
        if (key == null) {
            throw new MalformedMessageException("unknown api key " + apiKey);
        }
        return key;
    }
}
