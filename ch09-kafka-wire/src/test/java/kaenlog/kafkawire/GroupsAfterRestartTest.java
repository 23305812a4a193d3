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
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker alone that restarts finds its groups where they were, as Kafka's coordinator does when it
 * loads its offsets partition: the group's metadata record (members, generation, leader, protocol,
 * assignments, static instance ids; given code, {@link GroupMetadataValue}) is in chapter 6's offsets
 * log beside the commits, and the members go on in their generation, with no rebalance. An Empty
 * group comes back Empty; a deleted group's tombstone keeps it gone. Runs after the tasks.
 */
@Order(14)
class GroupsAfterRestartTest {
    private static final byte[] ASSIGNMENT = {0, 1, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's'};

    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaApis apis;
    private int correlationId;

    private void start() throws Exception {
        PartitionConfigs configs = PartitionConfigs.load().with(GroupConfigKeys.INITIAL_REBALANCE_DELAY_MS + "=0");
        PrintStream log = new PrintStream(brokerLog, true, StandardCharsets.UTF_8);
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withTickMs(0).withConfigs(configs), log);
        apis = new KafkaApis(new Backend(broker), "127.0.0.1", 9999, log);
        broker.partition("orders-0");
    }

    /** The broker goes away as klog serve's does (its groups answered, its store stopped) and starts again on its directory. */
    private void restart() throws Exception {
        stop();
        start();
    }

    @AfterEach
    void stop() {
        if (apis != null) {
            apis.groups().close();
            apis = null;
        }
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    private <T extends ApiMessage> T send(ApiKeys key, short version, ApiMessage data) throws Exception {
        return KafkaFrames.exchange(apis, key, version, data, ++correlationId);
    }

    /** A static member (group.instance.id "instance-a") joins alone and syncs: generation 1, it leads. */
    private JoinGroupResponseData joinAndSync(String group) throws Exception {
        JoinGroupRequestData join = new JoinGroupRequestData().setGroupId(group).setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(30_000).setMemberId("").setGroupInstanceId("instance-a")
                .setProtocolType("consumer");
        join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                .setMetadata(new byte[] {0, 0, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', -1, -1, -1, -1}));
        JoinGroupResponseData joined = send(ApiKeys.JOIN_GROUP, (short) 5, join);
        assertThat(Errors.forCode(joined.errorCode())).as("the static member joins").isEqualTo(Errors.NONE);
        SyncGroupRequestData sync = new SyncGroupRequestData().setGroupId(group).setGenerationId(joined.generationId())
                .setMemberId(joined.memberId()).setGroupInstanceId("instance-a");
        sync.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(joined.memberId())
                .setAssignment(ASSIGNMENT));
        SyncGroupResponseData synced = send(ApiKeys.SYNC_GROUP, (short) 3, sync);
        assertThat(Errors.forCode(synced.errorCode())).as("the leader's SyncGroup").isEqualTo(Errors.NONE);
        return joined;
    }

    private Errors commit(String group, int generation, String member, String instance, long offset) throws Exception {
        OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId(group)
                .setGenerationIdOrMemberEpoch(generation).setMemberId(member).setGroupInstanceId(instance);
        commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders")
                .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                        .setPartitionIndex(0).setCommittedOffset(offset))));
        OffsetCommitResponseData answer = send(ApiKeys.OFFSET_COMMIT, (short) 7, commit);
        return Errors.forCode(answer.topics().get(0).partitions().get(0).errorCode());
    }

    private Errors heartbeat(String group, int generation, String member, String instance) throws Exception {
        HeartbeatResponseData beat = send(ApiKeys.HEARTBEAT, (short) 3, new HeartbeatRequestData().setGroupId(group)
                .setGenerationId(generation).setMemberId(member).setGroupInstanceId(instance));
        return Errors.forCode(beat.errorCode());
    }

    private DescribeGroupsResponseData.DescribedGroup describe(String group) throws Exception {
        DescribeGroupsResponseData described = send(ApiKeys.DESCRIBE_GROUPS, (short) 4,
                new DescribeGroupsRequestData().setGroups(List.of(group)));
        return described.groups().get(0);
    }

    @Test
    void aMemberGoesOnInItsGenerationAfterTheBrokerRestarts() throws Exception {
        start();
        JoinGroupResponseData joined = joinAndSync("billing");
        int generation = joined.generationId();
        String member = joined.memberId();
        assertThat(commit("billing", generation, member, "instance-a", 100)).as("a commit before the restart")
                .isEqualTo(Errors.NONE);

        restart();

        assertThat(heartbeat("billing", generation, member, "instance-a"))
                .as("after the restart the member's heartbeat of generation %d is taken: the coordinator read the"
                        + " group's metadata record back (members, generation) with its offsets, as Kafka's"
                        + " loadGroupsAndOffsets does; UNKNOWN_MEMBER_ID here means the group was not loaded", generation)
                .isEqualTo(Errors.NONE);
        assertThat(commit("billing", generation, member, "instance-a", 200))
                .as("and its commit of generation %d: no rebalance, its partitions are not lost", generation)
                .isEqualTo(Errors.NONE);
        DescribeGroupsResponseData.DescribedGroup group = describe("billing");
        assertThat(group.groupState()).as("the loaded group is Stable, as Kafka's onGroupLoaded finds it")
                .isEqualTo("Stable");
        assertThat(group.protocolData()).as("its protocol").isEqualTo("range");
        assertThat(group.members()).as("its one member, by id").singleElement()
                .satisfies(m -> {
                    assertThat(m.memberId()).isEqualTo(member);
                    assertThat(m.groupInstanceId()).as("a static member's instance id survives the load")
                            .isEqualTo("instance-a");
                    assertThat(m.memberAssignment()).as("and its assignment").containsExactly(ASSIGNMENT);
                });
        assertThat(heartbeat("billing", generation + 1, member, "instance-a"))
                .as("a generation the group never had is still refused").isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(heartbeat("billing", generation, "an-older-process", "instance-a"))
                .as("instance-a is the loaded member's: another member id with it is an older process, fenced"
                        + " (the static member's instance id survived the load)").isEqualTo(Errors.FENCED_INSTANCE_ID);
    }

    @Test
    void anEmptyGroupComesBackEmptyAndADeletedOneDoesNotComeBack() throws Exception {
        start();
        JoinGroupResponseData joined = joinAndSync("audit");
        assertThat(commit("audit", joined.generationId(), joined.memberId(), "instance-a", 7)).isEqualTo(Errors.NONE);
        LeaveGroupResponseData left = send(ApiKeys.LEAVE_GROUP, (short) 3, new LeaveGroupRequestData().setGroupId("audit")
                .setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId(joined.memberId())
                        .setGroupInstanceId("instance-a"))));
        assertThat(Errors.forCode(left.errorCode())).isEqualTo(Errors.NONE);

        restart();

        DescribeGroupsResponseData.DescribedGroup empty = describe("audit");
        assertThat(empty.groupState()).as("the group became Empty before the restart: its last record says so")
                .isEqualTo("Empty");
        assertThat(empty.protocolType()).as("an Empty group that had members keeps its protocol type")
                .isEqualTo("consumer");
        DeleteGroupsResponseData deleted = send(ApiKeys.DELETE_GROUPS, (short) 1,
                new DeleteGroupsRequestData().setGroupsNames(List.of("audit")));
        assertThat(Errors.forCode(deleted.results().iterator().next().errorCode())).isEqualTo(Errors.NONE);

        restart();

        assertThat(describe("audit").groupState())
                .as("a deleted group leaves a tombstone of its metadata record: it does not come back")
                .isEqualTo("Dead");
    }
}
