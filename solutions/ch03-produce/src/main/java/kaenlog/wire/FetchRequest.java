package kaenlog.wire;

import kaenlog.log.FetchIsolation;

/**
 * A read from one partition. {@code replicaId} says who asks: -1 a consumer, a broker id a follower
 * (the only difference between the two, chapter 8). A fetch with nothing to return waits up to
 * {@code maxWaitMs} for data. Body: replicaId int32 · partition string · fetchOffset int64 ·
 * maxBytes int32 · maxWaitMs int32.
 */
public record FetchRequest(int replicaId, String partition, long fetchOffset, int maxBytes, int maxWaitMs) {
    public FetchRequest {
        if (maxBytes < 0 || maxWaitMs < 0) {
            throw new MalformedMessageException("maxBytes and maxWaitMs must not be negative");
        }
    }

    public static FetchRequest consumer(String partition, long fetchOffset, int maxBytes, int maxWaitMs) {
        return new FetchRequest(FetchIsolation.CONSUMER_REPLICA_ID, partition, fetchOffset, maxBytes, maxWaitMs);
    }

    public FetchIsolation isolation() {
        return FetchIsolation.of(replicaId);
    }

    public byte[] encode() {
        return new Wire.Writer().int32(replicaId).string(partition).int64(fetchOffset).int32(maxBytes)
                .int32(maxWaitMs).toByteArray();
    }

    public static FetchRequest decode(byte[] body) {
        Wire.Reader in = new Wire.Reader(body);
        FetchRequest request = new FetchRequest(in.int32("replicaId"), in.string("partition"),
                in.int64("fetchOffset"), in.int32("maxBytes"), in.int32("maxWaitMs"));
        in.end();
        return request;
    }
}
