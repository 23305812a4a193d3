package kaenlog.wire;

/**
 * apiKey 3, OFFSET_COMMIT: a consumer group stores where it is in a partition (Kafka's OffsetCommit:
 * group, topic, partition, committed offset). Chapter 6 answers it by appending to the group offsets
 * log; a chapter 3 broker alone does not know the key and closes the connection.
 *
 * <p>Request body: group string · partition string · offset int64. Response body: error int16.
 */
public final class OffsetCommit {
    private OffsetCommit() {
    }

    /** "Group {@code group} is at {@code offset} in {@code partition}": the next offset it will read. */
    public record Request(String group, String partition, long offset) {
        public byte[] encode() {
            return new Wire.Writer().string(group).string(partition).int64(offset).toByteArray();
        }

        public static Request decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Request request = new Request(in.string("group"), in.string("partition"), in.int64("offset"));
            in.end();
            return request;
        }
    }

    public record Response(ErrorCode error) {
        public byte[] encode() {
            return new Wire.Writer().int16(error.code()).toByteArray();
        }

        public static Response decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Response response = new Response(ErrorCode.of(in.int16("error")));
            in.end();
            return response;
        }
    }
}
