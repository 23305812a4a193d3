package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.PartitionConfigs;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every version of every group request this listener advertises (ApiKey's ranges), written by
 * kafka-clients 4.1.1's own message classes and its answer read back by them: a layout wrong in
 * one version (a field read one version too early) fails here, even where both real clients pick
 * a higher one. The coordinator's state changes go through task 7 (GroupStateTest). Runs after the
 * tasks.
 */
@Order(14)
class GroupWireTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaApis apis;
    private int correlationId;

    @BeforeEach
    void start() throws Exception {
        PartitionConfigs configs = PartitionConfigs.load().with(GroupConfigKeys.INITIAL_REBALANCE_DELAY_MS + "=0");
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withTickMs(0).withConfigs(configs),
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
        apis = new KafkaApis(new Backend(broker), "127.0.0.1", 9999, new PrintStream(brokerLog, true,
                StandardCharsets.UTF_8));
        broker.partition("orders-0"); // a commit names partitions that exist
        broker.partition("orders-1");
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private <T extends ApiMessage> T send(ApiKeys key, short version, ApiMessage data) throws Exception {
        return KafkaFrames.exchange(apis, key, version, data, ++correlationId);
    }

    private static List<Short> versions(ApiKey key) {
        return KafkaFrames.versions(key);
    }

    @Test
    void findCoordinatorNamesThisBrokerForAGroupAndRefusesATransactionalIdAtEveryVersion() throws Exception {
        for (short v : versions(ApiKey.FIND_COORDINATOR)) {
            FindCoordinatorResponseData group = send(ApiKeys.FIND_COORDINATOR, v,
                    new FindCoordinatorRequestData().setKey("g").setKeyType((byte) 0));
            assertThat(group.errorCode()).as("FindCoordinator v%d for a group", v).isZero();
            assertThat(group.nodeId()).as("v%d: node 1, the only broker, coordinates every group", v).isEqualTo(1);
            assertThat(group.port()).as("v%d: at the advertised port", v).isEqualTo(9999);
            if (v >= 1) {
                FindCoordinatorResponseData tx = send(ApiKeys.FIND_COORDINATOR, v,
                        new FindCoordinatorRequestData().setKey("tx").setKeyType((byte) 1));
                assertThat(Errors.forCode(tx.errorCode())).as("v%d: a transactional id", v)
                        .isEqualTo(Errors.INVALID_REQUEST);
                assertThat(tx.errorMessage()).as("v%d: the error says why", v).isEqualTo(GroupApis.NO_TRANSACTIONS);
            }
        }
    }

    @Test
    void aMemberJoinsSyncsHeartbeatsCommitsAndLeavesAtEveryVersion() throws Exception {
        for (short v : versions(ApiKey.JOIN_GROUP)) {
            String group = "g" + v;
            JoinGroupRequestData join = new JoinGroupRequestData().setGroupId(group).setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(30_000).setMemberId("").setProtocolType("consumer");
            join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                    .setMetadata(new byte[] {1, 2}));
            JoinGroupResponseData joined = send(ApiKeys.JOIN_GROUP, v, join);
            if (v >= 4) {
                assertThat(Errors.forCode(joined.errorCode())).as("JoinGroup v%d without a member id: KIP-394", v)
                        .isEqualTo(Errors.MEMBER_ID_REQUIRED);
                join.setMemberId(joined.memberId());
                joined = send(ApiKeys.JOIN_GROUP, v, join);
            }
            assertThat(Errors.forCode(joined.errorCode())).as("JoinGroup v%d", v).isEqualTo(Errors.NONE);
            assertThat(joined.generationId()).as("v%d: generation 1", v).isEqualTo(1);
            assertThat(joined.protocolName()).as("v%d: the protocol every member offers", v).isEqualTo("range");
            String member = joined.memberId();
            assertThat(joined.leader()).as("v%d: the only member leads", v).isEqualTo(member);
            assertThat(joined.members()).as("v%d: the leader gets the members' metadata", v).hasSize(1);
            assertThat(joined.members().get(0).metadata()).containsExactly(1, 2);
        }
        for (short v : versions(ApiKey.SYNC_GROUP)) {
            String group = "s" + v;
            JoinGroupRequestData join = new JoinGroupRequestData().setGroupId(group).setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(30_000).setMemberId("").setProtocolType("consumer");
            join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                    .setMetadata(new byte[0]));
            String member = ((JoinGroupResponseData) send(ApiKeys.JOIN_GROUP, (short) 5, join)).memberId();
            JoinGroupResponseData joined = send(ApiKeys.JOIN_GROUP, (short) 5, join.setMemberId(member));
            SyncGroupRequestData sync = new SyncGroupRequestData().setGroupId(group).setGenerationId(1)
                    .setMemberId(member);
            sync.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(member)
                    .setAssignment(new byte[] {9, 8}));
            SyncGroupResponseData synced = send(ApiKeys.SYNC_GROUP, v, sync);
            assertThat(Errors.forCode(synced.errorCode())).as("SyncGroup v%d", v).isEqualTo(Errors.NONE);
            assertThat(synced.assignment()).as("v%d: the leader's assignment comes back", v).containsExactly(9, 8);
            assertThat(joined.generationId()).isEqualTo(1);
            for (short h : versions(ApiKey.HEARTBEAT)) {
                HeartbeatResponseData beat = send(ApiKeys.HEARTBEAT, h, new HeartbeatRequestData().setGroupId(group)
                        .setGenerationId(1).setMemberId(member));
                assertThat(Errors.forCode(beat.errorCode())).as("Heartbeat v%d", h).isEqualTo(Errors.NONE);
            }
            for (short c : versions(ApiKey.OFFSET_COMMIT)) {
                OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(1)
                        .setMemberId(member);
                commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders")
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(100 + c).setCommittedMetadata("m"))));
                OffsetCommitResponseData committed = send(ApiKeys.OFFSET_COMMIT, c, commit);
                assertThat(Errors.forCode(committed.topics().get(0).partitions().get(0).errorCode()))
                        .as("OffsetCommit v%d by the member of generation 1", c).isEqualTo(Errors.NONE);
                for (short f : versions(ApiKey.OFFSET_FETCH)) {
                    OffsetFetchRequestData fetch = new OffsetFetchRequestData().setGroupId(group);
                    fetch.setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("orders")
                            .setPartitionIndexes(List.of(0, 1))));
                    OffsetFetchResponseData fetched = send(ApiKeys.OFFSET_FETCH, f, fetch);
                    List<OffsetFetchResponseData.OffsetFetchResponsePartition> partitions =
                            fetched.topics().get(0).partitions();
                    assertThat(partitions.get(0).committedOffset()).as("OffsetFetch v%d after OffsetCommit v%d", f, c)
                            .isEqualTo(100 + c);
                    assertThat(partitions.get(0).metadata()).as("v%d: the committed metadata comes back", f)
                            .isEqualTo("m");
                    assertThat(partitions.get(1).committedOffset()).as("v%d: never committed: -1", f).isEqualTo(-1);
                    if (f >= 2) {
                        OffsetFetchResponseData all = send(ApiKeys.OFFSET_FETCH, f,
                                new OffsetFetchRequestData().setGroupId(group).setTopics(null));
                        assertThat(all.topics()).as("OffsetFetch v%d with topics null: all the group committed", f)
                                .hasSize(1);
                    }
                }
            }
            for (short d : versions(ApiKey.DESCRIBE_GROUPS)) {
                DescribeGroupsResponseData described = send(ApiKeys.DESCRIBE_GROUPS, d,
                        new DescribeGroupsRequestData().setGroups(List.of(group)));
                DescribeGroupsResponseData.DescribedGroup g = described.groups().get(0);
                assertThat(g.groupState()).as("DescribeGroups v%d", d).isEqualTo("Stable");
                assertThat(g.protocolData()).isEqualTo("range");
                assertThat(g.members()).hasSize(1);
                assertThat(g.members().get(0).memberAssignment()).containsExactly(9, 8);
            }
            for (short l : versions(ApiKey.LIST_GROUPS)) {
                ListGroupsResponseData listed = send(ApiKeys.LIST_GROUPS, l, new ListGroupsRequestData());
                assertThat(listed.groups()).as("ListGroups v%d", l)
                        .anyMatch(x -> x.groupId().equals(group) && x.protocolType().equals("consumer"));
            }
        }
        for (short v : versions(ApiKey.LEAVE_GROUP)) {
            String group = "s" + (ApiKey.SYNC_GROUP.minVersion + v);
            DescribeGroupsResponseData before = send(ApiKeys.DESCRIBE_GROUPS, (short) 4,
                    new DescribeGroupsRequestData().setGroups(List.of(group)));
            String member = before.groups().get(0).members().get(0).memberId();
            LeaveGroupResponseData left = send(ApiKeys.LEAVE_GROUP, v, new LeaveGroupRequestData().setGroupId(group)
                    .setMemberId(member));
            assertThat(Errors.forCode(left.errorCode())).as("LeaveGroup v%d", v).isEqualTo(Errors.NONE);
            DescribeGroupsResponseData after = send(ApiKeys.DESCRIBE_GROUPS, (short) 4,
                    new DescribeGroupsRequestData().setGroups(List.of(group)));
            assertThat(after.groups().get(0).groupState()).as("LeaveGroup v%d of the only member: Empty, and kept"
                    + " while it has committed offsets", v).isEqualTo("Empty");
        }
    }
}
