package kaenlog.wire;

import java.nio.ByteBuffer;

/**
 * A request frame's payload: apiKey int16 · correlationId int32 · body. The correlationId is the
 * client's: the broker copies it into the response so the client can match answer to question
 * (Kafka's request header does the same).
 */
public record RequestEnvelope(short apiKey, int correlationId, byte[] body) {
    public static final int HEADER_BYTES = 6;

    public byte[] encode() {
        return ByteBuffer.allocate(HEADER_BYTES + body.length).putShort(apiKey).putInt(correlationId).put(body).array();
    }

    public static RequestEnvelope decode(byte[] payload) {
        if (payload.length < HEADER_BYTES) {
            throw new MalformedMessageException("a request needs " + HEADER_BYTES
                    + " bytes of apiKey and correlationId, this one has " + payload.length);
        }
        ByteBuffer in = ByteBuffer.wrap(payload);
        short apiKey = in.getShort();
        int correlationId = in.getInt();
        byte[] body = new byte[in.remaining()];
        in.get(body);
        return new RequestEnvelope(apiKey, correlationId, body);
    }
}
