package kaenlog.wire;

import java.nio.ByteBuffer;

/**
 * A producer's batch for one partition. {@code acks}: 0 = no answer, 1 = answer after the leader's
 * append, -1 ("all") = answer once the {@code ReplicaGate} says enough replicas have it.
 * Body: partition string · acks int16 · timeoutMs int32 · records bytes.
 */
public record ProduceRequest(String partition, short acks, int timeoutMs, ByteBuffer records) {
    public static final short ACKS_NONE = 0;
    public static final short ACKS_LEADER = 1;
    public static final short ACKS_ALL = -1;

    public ProduceRequest {
        if (acks != ACKS_NONE && acks != ACKS_LEADER && acks != ACKS_ALL) {
            throw new MalformedMessageException("acks must be 0, 1 or -1 (all), not " + acks);
        }
        if (records == null) {
            throw new MalformedMessageException("a produce request needs records");
        }
    }

    public byte[] encode() {
        return new Wire.Writer().string(partition).int16(acks).int32(timeoutMs).bytes(records).toByteArray();
    }

    public static ProduceRequest decode(byte[] body) {
        Wire.Reader in = new Wire.Reader(body);
        ProduceRequest request = new ProduceRequest(in.string("partition"), in.int16("acks"), in.int32("timeoutMs"),
                in.bytes("records"));
        in.end();
        return request;
    }
}
