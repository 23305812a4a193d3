package kaenlog.wire;

/**
 * apiKey 6, LIST_OFFSETS: where a consumer starts, by time (Kafka's ListOffsets, one partition).
 * {@code klog consume --from-time} asks it. Given code: no task.
 *
 * <p>Request body: partition string · timestamp int64 (ms since the epoch, or -1 LATEST: the high
 * watermark, -2 EARLIEST: the log start offset, -3 MAX_TIMESTAMP: the first record holding the
 * largest timestamp). Response body: error int16 · timestamp int64 · offset int64: for a timestamp,
 * the earliest offset whose record's timestamp is at or after it and that record's timestamp;
 * -1 and -1 when no record below the high watermark is that new (as Kafka answers).
 */
public final class ListOffsets {
    public static final long LATEST = -1;
    public static final long EARLIEST = -2;
    public static final long MAX_TIMESTAMP = -3;
    /** Kafka's UNKNOWN_OFFSET and UNKNOWN_TIMESTAMP: nothing found. */
    public static final long UNKNOWN = -1;

    private ListOffsets() {
    }

    public record Request(String partition, long timestamp) {
        public byte[] encode() {
            return new Wire.Writer().string(partition).int64(timestamp).toByteArray();
        }

        public static Request decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Request request = new Request(in.string("partition"), in.int64("timestamp"));
            in.end();
            return request;
        }
    }

    public record Response(ErrorCode error, long timestamp, long offset) {
        public static Response error(ErrorCode error) {
            return new Response(error, UNKNOWN, UNKNOWN);
        }

        public byte[] encode() {
            return new Wire.Writer().int16(error.code()).int64(timestamp).int64(offset).toByteArray();
        }

        public static Response decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Response response = new Response(ErrorCode.of(in.int16("error")), in.int64("timestamp"), in.int64("offset"));
            in.end();
            return response;
        }
    }
}
