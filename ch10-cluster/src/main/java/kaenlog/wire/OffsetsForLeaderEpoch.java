package kaenlog.wire;

/**
 * Chapter 10's request: apiKey 10, OFFSETS_FOR_LEADER_EPOCH (Kafka's key 23, KIP-101 and KIP-279). A
 * follower asks its new leader where a leader epoch ends, before its first fetch, and truncates by
 * the answer instead of by its high watermark.
 *
 * <p>Request body: replicaId int32 · partition string · currentLeaderEpoch int32 (the epoch the
 * follower believes the leader has: checked like a fetch's) · leaderEpoch int32 (the epoch asked
 * about). Response body: error int16 · leaderEpoch int32 · endOffset int64, with (-1, -1) for
 * "no epoch at or below the one asked" (Kafka's UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET).
 */
public final class OffsetsForLeaderEpoch {
    public static final short API_KEY = ApiKeys.OFFSETS_FOR_LEADER_EPOCH;

    private OffsetsForLeaderEpoch() {
    }

    public record Request(int replicaId, String partition, int currentLeaderEpoch, int leaderEpoch) {
        public byte[] encode() {
            return new Wire.Writer().int32(replicaId).string(partition).int32(currentLeaderEpoch).int32(leaderEpoch)
                    .toByteArray();
        }

        public static Request decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Request request = new Request(in.int32("replicaId"), in.string("partition"),
                    in.int32("currentLeaderEpoch"), in.int32("leaderEpoch"));
            in.end();
            if (request.replicaId() < 0) {
                throw new MalformedMessageException("replicaId " + request.replicaId()
                        + ": only a follower (a broker id >= 0) asks where an epoch ends");
            }
            return request;
        }
    }

    public record Response(ErrorCode error, int leaderEpoch, long endOffset) {
        public static Response error(ErrorCode error) {
            return new Response(error, -1, -1);
        }

        public byte[] encode() {
            return new Wire.Writer().int16(error.code()).int32(leaderEpoch).int64(endOffset).toByteArray();
        }

        public static Response decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Response response = new Response(ErrorCode.of(in.int16("error")), in.int32("leaderEpoch"),
                    in.int64("endOffset"));
            in.end();
            return response;
        }
    }
}
