package kaenlog.wire;

/**
 * The answer to a produce: the offsets the leader gave the batch, or an error (then both are -1).
 * Body: partition string · error int16 · baseOffset int64 · lastOffset int64.
 */
public record ProduceResponse(String partition, ErrorCode error, long baseOffset, long lastOffset) {
    public static ProduceResponse error(String partition, ErrorCode error) {
        return new ProduceResponse(partition, error, -1, -1);
    }

    public byte[] encode() {
        return new Wire.Writer().string(partition).int16(error.code()).int64(baseOffset).int64(lastOffset)
                .toByteArray();
    }

    public static ProduceResponse decode(byte[] body) {
        Wire.Reader in = new Wire.Reader(body);
        ProduceResponse response = new ProduceResponse(in.string("partition"), ErrorCode.of(in.int16("error")),
                in.int64("baseOffset"), in.int64("lastOffset"));
        in.end();
        return response;
    }
}
