package kaenlog.cluster;

import java.io.IOException;
import java.util.Optional;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.RequestHandler;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.OffsetsForLeaderEpoch;

/**
 * The leader's side of OFFSETS_FOR_LEADER_EPOCH: where does epoch e end here? Answered from the
 * leader's epoch cache (chapter 8's {@code LeaderEpochCache.endOffsetForEpoch}, KIP-279's {@code <=}),
 * after the same epoch check a follower's fetch gets. A broker that is not in a cluster, or does not
 * lead the partition, answers NOT_LEADER_OR_FOLLOWER.
 */
public final class OffsetsForLeaderEpochHandler implements RequestHandler {
    @Override
    public short apiKey() {
        return OffsetsForLeaderEpoch.API_KEY;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
        OffsetsForLeaderEpoch.Request request = OffsetsForLeaderEpoch.Request.decode(body);
        OffsetsForLeaderEpoch.Response answer = broker.leadership() instanceof ClusterLeadership cluster
                ? cluster.offsetsForLeaderEpoch(request)
                : OffsetsForLeaderEpoch.Response.error(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        return Optional.of(answer.encode());
    }
}
