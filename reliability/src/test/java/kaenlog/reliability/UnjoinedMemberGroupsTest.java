package kaenlog.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.client.BrokerClient;
import kaenlog.cluster.ClusterLeadership;
import kaenlog.kafkawire.Backend;
import kaenlog.kafkawire.KafkaApis;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.OffsetCommit;
import kaenlog.wire.OffsetFetch;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the cluster row COORDINATOR_KILLED caught (#39): klog serve starts chapter 9's Kafka port
 * before the cluster member joins, and until then the member's group coordinator was placed as a
 * broker alone's, so a restarted member named itself the coordinator of every group for a moment
 * (seen: "broker 2 names 2" while ZooKeeper's leader of the group's offsets partition was 3). A
 * member that has not joined coordinates no group, as a Kafka broker answers no request before its
 * group coordinator has started; a broker alone still coordinates every group.
 */
@Order(14)
class UnjoinedMemberGroupsTest {
    @TempDir
    Path dir;
    private final PrintStream log = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    @Test
    void aClusterMemberThatHasNotJoinedNamesNoCoordinatorAndAnswersNoGroup() throws IOException {
        try (Broker member = Broker.start(BrokerConfig.of(dir.resolve("member")).withTickMs(0)
                .withLeadership(new ClusterLeadership(2)), log)) {
            KafkaApis apis = new KafkaApis(new Backend(member), "127.0.0.1", 9999, log);
            FindCoordinatorResponseData found = findCoordinator(apis);
            assertThat(Errors.forCode(found.errorCode())).as("FindCoordinator before the member joined: it knows no"
                    + " leader of the group's offsets partition, and must not name itself (node %d)", found.nodeId())
                    .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
            assertThat(Errors.forCode(offsetFetch(apis).errorCode())).as("OffsetFetch before the member joined: not"
                    + " the group's coordinator, never 'no commit' from a partition it does not lead")
                    .isEqualTo(Errors.NOT_COORDINATOR);
        }
    }

    @Test
    void kaenLogsOwnPortOnAMemberThatHasNotJoinedAnswersNoGroupEither() throws IOException {
        try (Broker member = Broker.start(BrokerConfig.of(dir.resolve("member")).withTickMs(0)
                .withLeadership(new ClusterLeadership(2)), log);
             BrokerClient client = BrokerClient.connect("127.0.0.1", member.port(), 10_000)) {
            member.partition("orders-0");
            ErrorCode committed = OffsetCommit.Response.decode(client.call(kaenlog.wire.ApiKeys.OFFSET_COMMIT,
                    new OffsetCommit.Request("payments-app", "orders-0", 7).encode())).error();
            assertThat(committed).as("klog consume --group's commit to a member that has not joined: refused as by"
                    + " a broker that is not the coordinator, never written to its own copy of the offsets topic")
                    .isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            ErrorCode fetched = OffsetFetch.Response.decode(client.call(kaenlog.wire.ApiKeys.OFFSET_FETCH,
                    new OffsetFetch.Request("payments-app", "orders-0").encode())).error();
            assertThat(fetched).as("its offset fetch: an error, never 'no commit' (which would send the consumer"
                    + " back to the start of the log)").isEqualTo(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
    }

    @Test
    void aBrokerAloneStillCoordinatesEveryGroup() throws IOException {
        try (Broker alone = Broker.start(BrokerConfig.of(dir.resolve("alone")).withTickMs(0), log)) {
            KafkaApis apis = new KafkaApis(new Backend(alone), "127.0.0.1", 9999, log);
            FindCoordinatorResponseData found = findCoordinator(apis);
            assertThat(Errors.forCode(found.errorCode())).as("a broker alone coordinates every group").isEqualTo(Errors.NONE);
            assertThat(found.port()).as("itself, at its Kafka port").isEqualTo(9999);
            assertThat(Errors.forCode(offsetFetch(apis).errorCode())).isEqualTo(Errors.NONE);
        }
    }

    private static FindCoordinatorResponseData findCoordinator(KafkaApis apis) throws IOException {
        return exchange(apis, ApiKeys.FIND_COORDINATOR, (short) 2,
                new FindCoordinatorRequestData().setKey("payments-app").setKeyType((byte) 0));
    }

    private static OffsetFetchResponseData offsetFetch(KafkaApis apis) throws IOException {
        return exchange(apis, ApiKeys.OFFSET_FETCH, (short) 5,
                new OffsetFetchRequestData().setGroupId("payments-app").setTopics(null));
    }

    @SuppressWarnings("unchecked")
    private static <T extends ApiMessage> T exchange(KafkaApis apis, ApiKeys key, short version, ApiMessage data)
            throws IOException {
        RequestHeader header = new RequestHeader(key, version, "unjoined-test", 1);
        ByteBuffer request = RequestUtils.serialize(header.data(), header.headerVersion(), data, version);
        byte[] bytes = new byte[request.remaining()];
        request.get(bytes);
        byte[] answer = apis.handle(bytes).orElseThrow(() -> new AssertionError(key + " unanswered"));
        return (T) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header).data();
    }
}
