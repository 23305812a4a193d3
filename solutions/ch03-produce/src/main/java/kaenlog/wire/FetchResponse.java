package kaenlog.wire;

import java.nio.ByteBuffer;

/**
 * The answer to a fetch: whole batches (possibly none), and the leader's high watermark, which is
 * how a follower learns it (chapter 8: one round late). Body: partition string · error int16 ·
 * highWatermark int64 · logStartOffset int64 · records bytes.
 */
public record FetchResponse(String partition, ErrorCode error, long highWatermark, long logStartOffset,
                            ByteBuffer records) {
    public static FetchResponse error(String partition, ErrorCode error) {
        return new FetchResponse(partition, error, -1, -1, ByteBuffer.allocate(0));
    }

    public byte[] encode() {
        return new Wire.Writer().string(partition).int16(error.code()).int64(highWatermark).int64(logStartOffset)
                .bytes(records).toByteArray();
    }

    public static FetchResponse decode(byte[] body) {
        Wire.Reader in = new Wire.Reader(body);
        FetchResponse response = new FetchResponse(in.string("partition"), ErrorCode.of(in.int16("error")),
                in.int64("highWatermark"), in.int64("logStartOffset"), in.bytes("records"));
        in.end();
        if (response.records() == null) {
            throw new MalformedMessageException("records: a fetch response always carries records (maybe none)");
        }
        return response;
    }
}
