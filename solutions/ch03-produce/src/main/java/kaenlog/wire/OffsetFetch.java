package kaenlog.wire;

/**
 * apiKey 4, OFFSET_FETCH: a consumer group asks where it is in a partition (Kafka's OffsetFetch).
 * Chapter 6 answers from the group offsets log; offset -1 means the group has committed nothing
 * there (Kafka answers -1 too).
 *
 * <p>Request body: group string · partition string. Response body: error int16 · offset int64.
 */
public final class OffsetFetch {
    /** The offset of a partition the group never committed. */
    public static final long NO_OFFSET = -1;

    private OffsetFetch() {
    }

    public record Request(String group, String partition) {
        public byte[] encode() {
            return new Wire.Writer().string(group).string(partition).toByteArray();
        }

        public static Request decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Request request = new Request(in.string("group"), in.string("partition"));
            in.end();
            return request;
        }
    }

    public record Response(ErrorCode error, long offset) {
        public byte[] encode() {
            return new Wire.Writer().int16(error.code()).int64(offset).toByteArray();
        }

        public static Response decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Response response = new Response(ErrorCode.of(in.int16("error")), in.int64("offset"));
            in.end();
            return response;
        }
    }
}
