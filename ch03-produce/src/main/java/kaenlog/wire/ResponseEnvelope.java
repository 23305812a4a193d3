package kaenlog.wire;

import java.nio.ByteBuffer;

/** A response frame's payload: correlationId int32 · body (the response carries no apiKey). */
public record ResponseEnvelope(int correlationId, byte[] body) {
    public static final int HEADER_BYTES = 4;

    public byte[] encode() {
        return ByteBuffer.allocate(HEADER_BYTES + body.length).putInt(correlationId).put(body).array();
    }

    public static ResponseEnvelope decode(byte[] payload) {
        if (payload.length < HEADER_BYTES) {
            throw new MalformedMessageException("a response needs " + HEADER_BYTES
                    + " bytes of correlationId, this one has " + payload.length);
        }
        ByteBuffer in = ByteBuffer.wrap(payload);
        int correlationId = in.getInt();
        byte[] body = new byte[in.remaining()];
        in.get(body);
        return new ResponseEnvelope(correlationId, body);
    }
}
