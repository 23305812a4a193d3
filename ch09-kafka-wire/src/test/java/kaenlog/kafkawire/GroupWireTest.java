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
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
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
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
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
 * a higher one; static members' instance ids where each request carries one (KIP-345); an admin's
 * ListGroups filters, DeleteGroups and OffsetDelete, through chapter 6's offsets. The
 * coordinator's state changes go through task 7 (GroupStateTest). Runs after the tasks.
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
            LeaveGroupRequestData leave = new LeaveGroupRequestData().setGroupId(group);
            if (v >= 3) {
                leave.setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId(member)));
            } else {
                leave.setMemberId(member);
            }
            LeaveGroupResponseData left = send(ApiKeys.LEAVE_GROUP, v, leave);
            assertThat(Errors.forCode(left.errorCode())).as("LeaveGroup v%d", v).isEqualTo(Errors.NONE);
            if (v >= 3) {
                assertThat(left.members()).as("LeaveGroup v%d answers each member", v).singleElement()
                        .satisfies(m -> assertThat(m.memberId()).isEqualTo(member))
                        .satisfies(m -> assertThat(Errors.forCode(m.errorCode())).isEqualTo(Errors.NONE));
            }
            DescribeGroupsResponseData after = send(ApiKeys.DESCRIBE_GROUPS, (short) 4,
                    new DescribeGroupsRequestData().setGroups(List.of(group)));
            assertThat(after.groups().get(0).groupState()).as("LeaveGroup v%d of the only member: Empty, and kept"
                    + " while it has committed offsets", v).isEqualTo("Empty");
        }
    }
    private JoinGroupResponseData joinStatic(String group, String memberId, String instanceId) throws Exception {
        JoinGroupRequestData join = new JoinGroupRequestData().setGroupId(group).setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(30_000).setMemberId(memberId).setGroupInstanceId(instanceId)
                .setProtocolType("consumer");
        join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                .setMetadata(new byte[] {1, 2}));
        return send(ApiKeys.JOIN_GROUP, (short) 5, join);
    }

    private OffsetCommitResponseData commit(String group, short version, int generation, String member,
                                            String instanceId, int partition) throws Exception {
        OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId(group)
                .setGenerationIdOrMemberEpoch(generation).setMemberId(member).setGroupInstanceId(instanceId);
        commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders")
                .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                        .setPartitionIndex(partition).setCommittedOffset(42))));
        return send(ApiKeys.OFFSET_COMMIT, version, commit);
    }

    private static Errors error(OffsetCommitResponseData committed) {
        return Errors.forCode(committed.topics().get(0).partitions().get(0).errorCode());
    }

    @Test
    void aStaticMemberNamesItsInstanceIdOnEveryRequestAndTheOldIdIsFencedAtEachOfThem() throws Exception {
        JoinGroupResponseData first = joinStatic("st", "", "i-1");
        assertThat(Errors.forCode(first.errorCode())).as("JoinGroup v5 with a group.instance.id: no"
                + " MEMBER_ID_REQUIRED, the member is in at once").isEqualTo(Errors.NONE);
        String old = first.memberId();
        assertThat(first.members()).singleElement().satisfies(m -> assertThat(m.groupInstanceId())
                .as("the leader's JoinGroup v5 answer carries each member's instance id").isEqualTo("i-1"));
        SyncGroupRequestData sync = new SyncGroupRequestData().setGroupId("st").setGenerationId(1).setMemberId(old)
                .setGroupInstanceId("i-1");
        sync.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(old)
                .setAssignment(new byte[] {7}));
        assertThat(((SyncGroupResponseData) send(ApiKeys.SYNC_GROUP, (short) 3, sync)).assignment()).containsExactly(7);
        JoinGroupResponseData back = joinStatic("st", "", "i-1");
        assertThat(back.generationId()).as("the same instance id again (a restarted process): the same generation,"
                + " no rebalance").isEqualTo(1);
        String now = back.memberId();
        SyncGroupResponseData resynced = send(ApiKeys.SYNC_GROUP, (short) 3, new SyncGroupRequestData().setGroupId("st")
                .setGenerationId(1).setMemberId(now).setGroupInstanceId("i-1"));
        assertThat(resynced.assignment()).as("SyncGroup v3: the assignment of the old id").containsExactly(7);
        DescribeGroupsResponseData described = send(ApiKeys.DESCRIBE_GROUPS, (short) 4,
                new DescribeGroupsRequestData().setGroups(List.of("st")));
        assertThat(described.groups().get(0).members()).singleElement()
                .satisfies(m -> assertThat(m.groupInstanceId()).as("DescribeGroups v4").isEqualTo("i-1"))
                .satisfies(m -> assertThat(m.memberId()).isEqualTo(now));

        assertThat(Errors.forCode(((HeartbeatResponseData) send(ApiKeys.HEARTBEAT, (short) 3, new HeartbeatRequestData()
                .setGroupId("st").setGenerationId(1).setMemberId(old).setGroupInstanceId("i-1"))).errorCode()))
                .as("Heartbeat v3 from the old id").isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(Errors.forCode(((SyncGroupResponseData) send(ApiKeys.SYNC_GROUP, (short) 3, new SyncGroupRequestData()
                .setGroupId("st").setGenerationId(1).setMemberId(old).setGroupInstanceId("i-1"))).errorCode()))
                .as("SyncGroup v3 from the old id").isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(error(commit("st", (short) 7, 1, old, "i-1", 0))).as("OffsetCommit v7 from the old id")
                .isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(error(commit("st", (short) 7, 1, now, "i-1", 0))).as("OffsetCommit v7 from the new one")
                .isEqualTo(Errors.NONE);
        assertThat(Errors.forCode(joinStatic("st", old, "i-1").errorCode())).as("JoinGroup v5 from the old id")
                .isEqualTo(Errors.FENCED_INSTANCE_ID);
        LeaveGroupResponseData fenced = send(ApiKeys.LEAVE_GROUP, (short) 3, new LeaveGroupRequestData().setGroupId("st")
                .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId(old)
                        .setGroupInstanceId("i-1"))));
        assertThat(Errors.forCode(fenced.members().get(0).errorCode())).as("LeaveGroup v3 from the old id")
                .isEqualTo(Errors.FENCED_INSTANCE_ID);
        LeaveGroupResponseData removed = send(ApiKeys.LEAVE_GROUP, (short) 3, new LeaveGroupRequestData()
                .setGroupId("st").setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId("")
                        .setGroupInstanceId("i-1"))));
        assertThat(removed.members()).singleElement().satisfies(m -> assertThat(Errors.forCode(m.errorCode()))
                .as("LeaveGroup v3 by instance id alone (an admin's): the member goes").isEqualTo(Errors.NONE));
        DescribeGroupsResponseData after = send(ApiKeys.DESCRIBE_GROUPS, (short) 4,
                new DescribeGroupsRequestData().setGroups(List.of("st")));
        assertThat(after.groups().get(0).groupState()).as("with its commit, the group stays, Empty").isEqualTo("Empty");
    }

    @Test
    void listGroupsFiltersByStateFromV4AndByTypeFromV5AndListsAGroupThatOnlyCommitted() throws Exception {
        assertThat(error(commit("only-commits", (short) 7, -1, "", null, 1))).isEqualTo(Errors.NONE);
        JoinGroupResponseData member = joinStatic("busy", "", "i-1");
        assertThat(member.generationId()).isEqualTo(1);
        for (short v : versions(ApiKey.LIST_GROUPS)) {
            ListGroupsResponseData all = send(ApiKeys.LIST_GROUPS, v, new ListGroupsRequestData());
            assertThat(all.groups()).as("ListGroups v%d: every group, one that only committed offsets too", v)
                    .extracting(ListGroupsResponseData.ListedGroup::groupId).containsExactly("busy", "only-commits");
            assertThat(all.groups().get(1).protocolType()).as("v%d: a group that only committed has no protocol"
                    + " type", v).isEmpty();
            if (v >= 4) {
                assertThat(all.groups()).as("v%d: each group's state, as Kafka names it", v)
                        .extracting(ListGroupsResponseData.ListedGroup::groupState)
                        .containsExactly("CompletingRebalance", "Empty");
                ListGroupsResponseData empty = send(ApiKeys.LIST_GROUPS, v, new ListGroupsRequestData()
                        .setStatesFilter(List.of("EMPTY")));
                assertThat(empty.groups()).as("v%d: the states filter, in any case", v)
                        .extracting(ListGroupsResponseData.ListedGroup::groupId).containsExactly("only-commits");
            }
            if (v >= 5) {
                assertThat(all.groups()).as("v%d: every group here is a classic one", v)
                        .extracting(ListGroupsResponseData.ListedGroup::groupType).containsOnly("classic");
                ListGroupsResponseData classic = send(ApiKeys.LIST_GROUPS, v, new ListGroupsRequestData()
                        .setTypesFilter(List.of("consumer", "Classic")));
                assertThat(classic.groups()).as("v%d: the types filter kafka-consumer-groups --list sends", v)
                        .hasSize(2);
                ListGroupsResponseData share = send(ApiKeys.LIST_GROUPS, v, new ListGroupsRequestData()
                        .setTypesFilter(List.of("share")));
                assertThat(share.groups()).as("v%d: no share groups here", v).isEmpty();
            }
        }
    }

    @Test
    void deleteGroupsAndOffsetDeleteRemoveAGroupsCommitsAtEveryVersion() throws Exception {
        for (short v : versions(ApiKey.DELETE_GROUPS)) {
            String group = "d" + v;
            assertThat(error(commit(group, (short) 7, -1, "", null, 0))).isEqualTo(Errors.NONE);
            JoinGroupResponseData joined = joinStatic("busy" + v, "", "i-1");
            DeleteGroupsResponseData deleted = send(ApiKeys.DELETE_GROUPS, v, new DeleteGroupsRequestData()
                    .setGroupsNames(List.of(group, "busy" + v, "nobody", group)));
            assertThat(deleted.results()).as("DeleteGroups v%d answers each distinct group once", v).hasSize(3);
            assertThat(Errors.forCode(deleted.results().find(group).errorCode())).as("v%d: a group that only"
                    + " committed is Empty: deleted", v).isEqualTo(Errors.NONE);
            assertThat(Errors.forCode(deleted.results().find("busy" + v).errorCode())).as("v%d: a group with a member",
                    v).isEqualTo(Errors.NON_EMPTY_GROUP);
            assertThat(Errors.forCode(deleted.results().find("nobody").errorCode())).as("v%d: no such group", v)
                    .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
            OffsetFetchResponseData fetched = send(ApiKeys.OFFSET_FETCH, (short) 5, new OffsetFetchRequestData()
                    .setGroupId(group).setTopics(null));
            assertThat(fetched.topics()).as("v%d: the deleted group's offsets are gone from chapter 6's coordinator",
                    v).isEmpty();
            assertThat(joined.generationId()).isEqualTo(1);
        }
        assertThat(error(commit("o", (short) 7, -1, "", null, 0))).isEqualTo(Errors.NONE);
        assertThat(error(commit("o", (short) 7, -1, "", null, 1))).isEqualTo(Errors.NONE);
        OffsetDeleteRequestData delete = new OffsetDeleteRequestData().setGroupId("o");
        delete.topics().add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName("orders").setPartitions(List.of(
                new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(1),
                new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(9))));
        delete.topics().add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName("nowhere").setPartitions(List.of(
                new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
        OffsetDeleteResponseData answer = send(ApiKeys.OFFSET_DELETE, (short) 0, delete);
        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NONE);
        assertThat(Errors.forCode(answer.topics().find("orders").partitions().find(1).errorCode()))
                .as("OffsetDelete v0 of orders-1").isEqualTo(Errors.NONE);
        assertThat(Errors.forCode(answer.topics().find("orders").partitions().find(9).errorCode()))
                .as("a partition that does not exist").isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(Errors.forCode(answer.topics().find("nowhere").partitions().find(0).errorCode()))
                .as("a topic that does not exist").isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        OffsetFetchResponseData left = send(ApiKeys.OFFSET_FETCH, (short) 5, new OffsetFetchRequestData()
                .setGroupId("o").setTopics(null));
        assertThat(left.topics().get(0).partitions()).as("orders-0's commit stays, orders-1's went")
                .extracting(OffsetFetchResponseData.OffsetFetchResponsePartition::partitionIndex).containsExactly(0);
        OffsetDeleteResponseData unknown = send(ApiKeys.OFFSET_DELETE, (short) 0, new OffsetDeleteRequestData()
                .setGroupId("nobody"));
        assertThat(Errors.forCode(unknown.errorCode())).as("OffsetDelete of a group there is not")
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    }
}
