package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import kaenlog.coordinator.OffsetCommitError;
import kaenlog.groups.OffsetCommitValue;
import kaenlog.groups.PartitionOffset;
import kaenlog.wire.MalformedMessageException;

/**
 * A member's group requests on the Kafka port, read and answered in their classic layouts (the
 * versions {@link ApiKey} lists stop below each request's first flexible version, which
 * kafka-clients 4.1.1 and librdkafka 2.0.2 both accept): FindCoordinator v0-2, JoinGroup v2-5,
 * SyncGroup v0-3, Heartbeat v0-3, LeaveGroup v0-3, OffsetCommit v2-7; OffsetFetch goes on to v7,
 * compact from v6, for v7's require_stable (KIP-447: chapter 11's pending offsets); from
 * JoinGroup v5, SyncGroup v3, Heartbeat v3, LeaveGroup v3 and OffsetCommit v7 on, a static member
 * names its {@code group.instance.id} (KIP-345). An admin's (DescribeGroups, ListGroups,
 * DeleteGroups, OffsetDelete) are {@link GroupAdminApis}'. Layouts: kafka-clients 4.1.1's
 * {@code common/message/*.json}. The decisions are {@link ClassicGroups}'; the offsets are chapter
 * 6's coordinator's ({@link Backend#commitOffsets}).
 */
public final class GroupApis {
    /** FindCoordinator's key_type: a group (0) or a transactional id (1). */
    static final byte KEY_TYPE_GROUP = 0;
    static final byte KEY_TYPE_TRANSACTION = 1;
    /** The words a transactional KafkaProducer's exception carries (FindCoordinator's error_message). */
    public static final String NO_TRANSACTIONS = "kaen-log has no transactions: there is no transaction coordinator";

    private GroupApis() {
    }

    /** The answer body for one group request (its header already read). */
    static byte[] answer(ApiKey key, KafkaReader in, short version, String clientId, ClassicGroups groups,
                         Backend backend, Metadata.Node self, List<KafkaApiExtension> extensions) throws IOException {
        return switch (key) {
            case FIND_COORDINATOR -> findCoordinator(in, version, self, backend, extensions);
            case JOIN_GROUP -> joinGroup(in, version, clientId, groups, backend);
            case SYNC_GROUP -> syncGroup(in, version, groups, backend);
            case HEARTBEAT -> heartbeat(in, version, groups, backend);
            case LEAVE_GROUP -> leaveGroup(in, version, groups, backend);
            case OFFSET_COMMIT -> offsetCommit(in, version, groups, backend);
            case OFFSET_FETCH -> offsetFetch(in, version, backend);
            case DESCRIBE_GROUPS, LIST_GROUPS, DELETE_GROUPS, OFFSET_DELETE -> GroupAdminApis.answer(key, in, version,
                    groups, backend);
            default -> throw new MalformedMessageException(key + " is not a group request");
        };
    }

    /**
     * key · key_type (v1+) → throttle_time_ms (v1+) · error_code · error_message (v1+) · node_id · host
     * · port. A broker alone coordinates every group; in chapter 10's cluster the coordinator is the
     * leader of the group's {@code __consumer_offsets} partition, and while that partition has none
     * (or the topic is just being created) the answer is COORDINATOR_NOT_AVAILABLE with Kafka's
     * {@code Node.noNode()} (-1, "", -1), which the client retries. A transactional id is refused with
     * INVALID_REQUEST and a message; kafka-clients' TransactionManager makes it a fatal
     * "Could not find a coordinator with type TRANSACTION ... due to unexpected error: (the message)"
     * instead of retrying, as it would COORDINATOR_NOT_AVAILABLE, forever. A later chapter that
     * coordinates transactions ({@link KafkaApiExtension#transactionCoordinator}, chapter 11) answers
     * a transactional id instead.
     */
    static byte[] findCoordinator(KafkaReader in, short version, Metadata.Node self, Backend backend,
                                  List<KafkaApiExtension> extensions) throws IOException {
        String key = in.string("key");
        byte keyType = version >= 1 ? in.int8("key_type") : KEY_TYPE_GROUP;
        in.end("FindCoordinator v" + version + " request");
        KafkaWriter out = new KafkaWriter();
        if (version >= 1) {
            out.int32(0);
        }
        boolean group = keyType == KEY_TYPE_GROUP;
        KafkaApiExtension.Coordinator transactions = keyType == KEY_TYPE_TRANSACTION
                ? transactionCoordinator(key, self, backend, extensions) : null;
        Metadata.Node node = group ? backend.coordinator(key, self).orElse(null)
                : transactions != null ? transactions.node() : null;
        short error = transactions != null ? transactions.error() : !group ? KafkaErrors.INVALID_REQUEST
                : node == null ? KafkaErrors.COORDINATOR_NOT_AVAILABLE : KafkaErrors.NONE;
        out.int16(error);
        if (version >= 1) {
            out.nullableString(error == KafkaErrors.NONE ? null
                    : !group && transactions == null ? keyType == KEY_TYPE_TRANSACTION ? NO_TRANSACTIONS
                    : "unknown coordinator key type " + keyType
                    : "The coordinator is not available.");
        }
        return out.int32(node != null ? node.id() : -1).nullableString(node != null ? node.host() : "")
                .int32(node != null ? node.port() : -1).toByteArray();
    }

    /** The coordinator of a transactional id, as the first extension that coordinates transactions answers; else null. */
    private static KafkaApiExtension.Coordinator transactionCoordinator(String transactionalId, Metadata.Node self,
            Backend backend, List<KafkaApiExtension> extensions) throws IOException {
        for (KafkaApiExtension extension : extensions) {
            Optional<KafkaApiExtension.Coordinator> found = extension.transactionCoordinator(transactionalId, backend, self);
            if (found.isPresent()) {
                return found.get();
            }
        }
        return null;
    }

    /**
     * Kafka's {@code validateGroupStatus} for a group id that is not empty (an empty one is the
     * groups' own INVALID_GROUP_ID): NONE when this broker answers for the group now.
     */
    private static short coordinatorError(String groupId, Backend backend) {
        return groupId.isEmpty() ? KafkaErrors.NONE : backend.coordinatorError(groupId);
    }

    static byte[] joinGroup(KafkaReader in, short version, String clientId, ClassicGroups groups, Backend backend) {
        String groupId = in.string("group_id");
        int sessionMs = in.int32("session_timeout_ms");
        int rebalanceMs = in.int32("rebalance_timeout_ms");
        String memberId = in.string("member_id");
        String instanceId = version >= 5 ? in.nullableString("group_instance_id") : null;
        String protocolType = in.string("protocol_type");
        int count = in.arrayLength("protocols");
        List<ClassicGroups.Protocol> protocols = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            protocols.add(new ClassicGroups.Protocol(in.string("protocols.name"), bytes(in, "protocols.metadata")));
        }
        in.end("JoinGroup v" + version + " request");
        short refused = coordinatorError(groupId, backend);
        ClassicGroups.JoinResult result = refused != KafkaErrors.NONE ? ClassicGroups.JoinResult.error(refused, memberId)
                : backend.await(groups.join(new ClassicGroups.JoinRequest(groupId, clientId,
                memberId, instanceId, sessionMs, rebalanceMs, protocolType, protocols, version >= 4), backend.nowMs()));
        KafkaWriter out = new KafkaWriter().int32(0).int16(result.error()).int32(result.generationId())
                .nullableString(result.protocolName()).nullableString(result.leader())
                .nullableString(result.memberId()).arrayLength(result.members().size());
        for (ClassicGroups.JoinedMember m : result.members()) {
            out.nullableString(m.memberId());
            if (version >= 5) {
                out.nullableString(m.groupInstanceId()); // the range assignor orders static members by it
            }
            out.nullableBytes(ByteBuffer.wrap(m.metadata()));
        }
        return out.toByteArray();
    }

    static byte[] syncGroup(KafkaReader in, short version, ClassicGroups groups, Backend backend) {
        String groupId = in.string("group_id");
        int generationId = in.int32("generation_id");
        String memberId = in.string("member_id");
        String instanceId = version >= 3 ? in.nullableString("group_instance_id") : null;
        int count = in.arrayLength("assignments");
        Map<String, byte[]> assignments = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            assignments.put(in.string("assignments.member_id"), bytes(in, "assignments.assignment"));
        }
        in.end("SyncGroup v" + version + " request");
        short refused = coordinatorError(groupId, backend);
        ClassicGroups.SyncResult result = refused != KafkaErrors.NONE ? new ClassicGroups.SyncResult(refused, new byte[0])
                : backend.await(groups.sync(groupId, generationId, memberId, instanceId,
                assignments, backend.nowMs()));
        KafkaWriter out = new KafkaWriter();
        if (version >= 1) {
            out.int32(0);
        }
        return out.int16(result.error()).nullableBytes(ByteBuffer.wrap(result.assignment())).toByteArray();
    }

    static byte[] heartbeat(KafkaReader in, short version, ClassicGroups groups, Backend backend) {
        String groupId = in.string("group_id");
        int generationId = in.int32("generation_id");
        String memberId = in.string("member_id");
        String instanceId = version >= 3 ? in.nullableString("group_instance_id") : null;
        in.end("Heartbeat v" + version + " request");
        short refused = coordinatorError(groupId, backend);
        short error = refused != KafkaErrors.NONE ? refused : groups.heartbeat(groupId, generationId, memberId, instanceId, backend.nowMs());
        return withThrottle(version >= 1).int16(error).toByteArray();
    }

    /**
     * group_id · member_id (v0-2) · members [member_id · group_instance_id] (v3+) → throttle_time_ms
     * (v1+) · error_code · members [member_id · group_instance_id · error_code] (v3+). Before v3 the
     * one member's error is the answer's (Kafka's {@code LeaveGroupResponse}).
     */
    static byte[] leaveGroup(KafkaReader in, short version, ClassicGroups groups, Backend backend) {
        String groupId = in.string("group_id");
        List<ClassicGroups.Leaving> leaving = new ArrayList<>();
        if (version < 3) {
            leaving.add(new ClassicGroups.Leaving(in.string("member_id"), null));
        } else {
            int count = in.arrayLength("members");
            for (int i = 0; i < count; i++) {
                leaving.add(new ClassicGroups.Leaving(in.string("members.member_id"),
                        in.nullableString("members.group_instance_id")));
            }
        }
        in.end("LeaveGroup v" + version + " request");
        short refused = coordinatorError(groupId, backend);
        ClassicGroups.LeaveResult result = refused != KafkaErrors.NONE ? new ClassicGroups.LeaveResult(refused, List.of())
                : groups.leave(groupId, leaving, backend.nowMs());
        KafkaWriter out = withThrottle(version >= 1);
        if (version < 3) {
            short error = result.error() != KafkaErrors.NONE ? result.error() : result.members().get(0);
            return out.int16(error).toByteArray();
        }
        out.int16(result.error()).arrayLength(result.members().size());
        for (int i = 0; i < result.members().size(); i++) {
            out.nullableString(leaving.get(i).memberId()).nullableString(leaving.get(i).groupInstanceId())
                    .int16(result.members().get(i));
        }
        return out.toByteArray();
    }

    /**
     * group_id · generation_id · member_id · group_instance_id (v7+) · retention_time_ms (v2-4) · topics
     * [name · partitions [partition_index · committed_offset · committed_leader_epoch (v6+) ·
     * committed_metadata]] → throttle_time_ms (v3+) · topics [name · partitions [partition_index ·
     * error_code]]. As Kafka's {@code KafkaApis.handleOffsetCommitRequest}: a partition that does not
     * exist is UNKNOWN_TOPIC_OR_PARTITION and nothing is written for it; the others get the group's
     * verdict ({@link ClassicGroups#validateCommit}), then chapter 6's coordinator's
     * (OFFSET_METADATA_TOO_LARGE over offset.metadata.max.bytes, INVALID_COMMIT_OFFSET_SIZE for a
     * batch over max.message.bytes, as Kafka 3.9's coordinator answers it). The metadata is kept;
     * a retention time and a leader epoch are not.
     */
    static byte[] offsetCommit(KafkaReader in, short version, ClassicGroups groups, Backend backend)
            throws IOException {
        String groupId = in.string("group_id");
        int generationId = in.int32("generation_id");
        String memberId = in.string("member_id");
        String instanceId = version >= 7 ? in.nullableString("group_instance_id") : null;
        if (version <= 4) {
            in.int64("retention_time_ms");
        }
        Map<String, List<PartitionOffset>> topics = new LinkedHashMap<>();
        int topicCount = in.arrayLength("topics");
        for (int t = 0; t < topicCount; t++) {
            String topic = in.string("topics.name");
            List<PartitionOffset> commits = topics.computeIfAbsent(topic, n -> new ArrayList<>());
            int partitionCount = in.arrayLength("topics.partitions");
            for (int p = 0; p < partitionCount; p++) {
                int partition = in.int32("partition_index");
                long offset = in.int64("committed_offset");
                if (version >= 6) {
                    in.int32("committed_leader_epoch");
                }
                String metadata = in.nullableString("committed_metadata");
                commits.add(new PartitionOffset(topic, partition, offset, metadata == null ? "" : metadata));
            }
        }
        in.end("OffsetCommit v" + version + " request");
        short refused = groupId.isEmpty() ? KafkaErrors.NONE : backend.coordinatorError(groupId);
        short verdict = refused != KafkaErrors.NONE ? refused
                : groups.validateCommit(groupId, generationId, memberId, instanceId, backend.nowMs());
        List<PartitionOffset> all = topics.values().stream().flatMap(List::stream).toList();
        List<OffsetCommitError> written = verdict == KafkaErrors.NONE && !groupId.isEmpty()
                ? backend.commitOffsets(groupId, all) : List.of();
        KafkaWriter out = withThrottle(version >= 3).arrayLength(topics.size());
        int at = 0;
        for (Map.Entry<String, List<PartitionOffset>> topic : topics.entrySet()) {
            out.nullableString(topic.getKey()).arrayLength(topic.getValue().size());
            for (PartitionOffset c : topic.getValue()) {
                short error = !written.isEmpty() ? commitError(written.get(at))
                        : !backend.committable(c.topic(), c.partition()) ? KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION
                        : verdict != KafkaErrors.NONE ? verdict : KafkaErrors.INVALID_GROUP_ID;
                out.int32(c.partition()).int16(error);
                at++;
            }
        }
        backend.partitionsDone();
        return out.toByteArray();
    }

    /** The coordinator's answer for one partition, in Kafka's codes. */
    static short commitError(OffsetCommitError error) {
        return switch (error) {
            case NONE -> KafkaErrors.NONE;
            case INVALID -> KafkaErrors.INVALID_REQUEST;
            case UNKNOWN_PARTITION -> KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION;
            case METADATA_TOO_LARGE -> KafkaErrors.OFFSET_METADATA_TOO_LARGE;
            case BATCH_TOO_LARGE -> KafkaErrors.INVALID_COMMIT_OFFSET_SIZE;
            case COORDINATOR_FULL, COORDINATOR_NOT_AVAILABLE -> KafkaErrors.COORDINATOR_NOT_AVAILABLE;
            case STORAGE_ERROR -> KafkaErrors.KAFKA_STORAGE_ERROR;
            case NOT_COORDINATOR -> KafkaErrors.NOT_COORDINATOR;
            case TIMED_OUT -> KafkaErrors.REQUEST_TIMED_OUT;
        };
    }

    /**
     * group_id · topics [name · partition_indexes [int32]] (null from v2: every partition the group
     * committed) · require_stable (v7+) → throttle_time_ms (v3+) · topics [name · partitions
     * [partition_index · committed_offset · committed_leader_epoch (v5+) · metadata · error_code]] ·
     * error_code (v2+); compact with tagged fields from v6. Answered from the coordinator's memory
     * (chapter 6's, the offsets log read once); a partition the group never committed is -1 with
     * metadata "", as Kafka answers. With require_stable (KIP-447) a partition whose offset is pending
     * (chapter 11: a transaction's, until its marker) is -1 with UNSTABLE_OFFSET_COMMIT, which the
     * client retries (Kafka's {@code OffsetMetadataManager.fetchOffsets}).
     */
    static byte[] offsetFetch(KafkaReader in, short version, Backend backend) throws IOException {
        boolean flexible = ApiKey.OFFSET_FETCH.isFlexible(version);
        String groupId = flexible ? in.compactString("group_id") : in.string("group_id");
        int topicCount = flexible ? in.compactArrayLength("topics") : in.arrayLength("topics");
        if (topicCount < 0 && version < 2) {
            throw new MalformedMessageException("OffsetFetch v" + version + ": topics is null before v2");
        }
        Map<String, List<Integer>> asked = null;
        if (topicCount >= 0) {
            asked = new LinkedHashMap<>();
            for (int t = 0; t < topicCount; t++) {
                String name = flexible ? in.compactString("topics.name") : in.string("topics.name");
                List<Integer> partitions = asked.computeIfAbsent(name, n -> new ArrayList<>());
                int count = flexible ? in.compactArrayLength("topics.partition_indexes")
                        : in.arrayLength("topics.partition_indexes");
                for (int p = 0; p < count; p++) {
                    partitions.add(in.int32("partition_index"));
                }
                if (flexible) {
                    in.skipTaggedFields("OffsetFetch topic");
                }
            }
        }
        boolean requireStable = version >= 7 && in.bool("require_stable");
        if (flexible) {
            in.skipTaggedFields("OffsetFetch request");
        }
        in.end("OffsetFetch v" + version + " request");
        short refused = groupId.isEmpty() ? KafkaErrors.NONE : backend.coordinatorError(groupId);
        if (refused != KafkaErrors.NONE) {
            return offsetFetchRefused(version, asked, refused);
        }
        Map<String, Map<Integer, OffsetCommitValue>> committed = new TreeMap<>();
        if (!groupId.isEmpty()) {
            backend.committedOffsets(groupId).forEach((key, c) -> committed
                    .computeIfAbsent(key.topic(), t -> new TreeMap<>()).put(key.partition(), c.value()));
        }
        if (asked == null) {
            asked = new LinkedHashMap<>();
            for (Map.Entry<String, Map<Integer, OffsetCommitValue>> topic : committed.entrySet()) {
                asked.put(topic.getKey(), new ArrayList<>(topic.getValue().keySet()));
            }
        }
        KafkaWriter out = withThrottle(version >= 3);
        arrayLength(out, flexible, asked.size());
        for (Map.Entry<String, List<Integer>> topic : asked.entrySet()) {
            string(out, flexible, topic.getKey());
            arrayLength(out, flexible, topic.getValue().size());
            Map<Integer, OffsetCommitValue> offsets = committed.getOrDefault(topic.getKey(), Map.of());
            for (int partition : topic.getValue()) {
                boolean unstable = requireStable && !groupId.isEmpty()
                        && backend.pendingOffset(groupId, topic.getKey(), partition);
                OffsetCommitValue value = unstable ? null : offsets.get(partition);
                out.int32(partition).int64(value == null ? -1L : value.offset());
                if (version >= 5) {
                    out.int32(-1); // committed_leader_epoch: kaen-log keeps none
                }
                string(out, flexible, value == null ? "" : value.metadata());
                out.int16(unstable ? KafkaErrors.UNSTABLE_OFFSET_COMMIT : KafkaErrors.NONE);
                if (flexible) {
                    out.noTaggedFields();
                }
            }
            if (flexible) {
                out.noTaggedFields();
            }
        }
        if (version >= 2) {
            out.int16(KafkaErrors.NONE);
        }
        if (flexible) {
            out.noTaggedFields();
        }
        return out.toByteArray();
    }

    /**
     * Kafka's {@code OffsetFetchRequest.getErrorResponse}: from v2 the error at the top and no topics;
     * before, every partition asked answered -1, "" and the error.
     */
    private static byte[] offsetFetchRefused(short version, Map<String, List<Integer>> asked, short error) {
        KafkaWriter out = withThrottle(version >= 3);
        if (version >= 2) {
            boolean flexible = ApiKey.OFFSET_FETCH.isFlexible(version);
            arrayLength(out, flexible, 0);
            out.int16(error);
            if (flexible) {
                out.noTaggedFields();
            }
            return out.toByteArray();
        }
        out.arrayLength(asked.size());
        for (Map.Entry<String, List<Integer>> topic : asked.entrySet()) {
            out.nullableString(topic.getKey()).arrayLength(topic.getValue().size());
            for (int partition : topic.getValue()) {
                out.int32(partition).int64(-1L).nullableString("").int16(error);
            }
        }
        return out.toByteArray();
    }

    /** An array's length, compact in a flexible version. */
    private static void arrayLength(KafkaWriter out, boolean flexible, int count) {
        if (flexible) {
            out.compactArrayLength(count);
        } else {
            out.arrayLength(count);
        }
    }

    /** A string, compact in a flexible version. */
    private static void string(KafkaWriter out, boolean flexible, String s) {
        if (flexible) {
            out.compactNullableString(s);
        } else {
            out.nullableString(s);
        }
    }

    static KafkaWriter withThrottle(boolean throttle) {
        KafkaWriter out = new KafkaWriter();
        return throttle ? out.int32(0) : out;
    }

    /** Classic non-null bytes, copied out of the request. */
    private static byte[] bytes(KafkaReader in, String field) {
        ByteBuffer view = in.nullableBytes(field);
        if (view == null) {
            throw new MalformedMessageException(field + ": null where bytes are required");
        }
        byte[] copy = new byte[view.remaining()];
        view.get(copy);
        return copy;
    }
}
