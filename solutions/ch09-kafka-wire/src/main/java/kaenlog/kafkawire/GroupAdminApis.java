package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import kaenlog.wire.MalformedMessageException;

/**
 * The group requests of an admin (kafka-consumer-groups, AdminClient): DescribeGroups v0-4,
 * ListGroups v0-5 (flexible from v3: its states filter is v4's, its types filter v5's),
 * DeleteGroups v0-1 and OffsetDelete v0. Layouts: kafka-clients 4.1.1's
 * {@code common/message/*.json}; the decisions are {@link ClassicGroups}', the offsets chapter 6's
 * coordinator's. A group that only committed offsets is one of them, Empty, as in Kafka.
 */
final class GroupAdminApis {
    /** Kafka's name for the type of every group here (ListGroups v5's group_type, {@code Group.GroupType}). */
    static final String CLASSIC = "classic";

    private GroupAdminApis() {
    }

    static byte[] answer(ApiKey key, KafkaReader in, short version, ClassicGroups groups, Backend backend)
            throws IOException {
        return switch (key) {
            case DESCRIBE_GROUPS -> describeGroups(in, version, groups, backend);
            case LIST_GROUPS -> listGroups(in, version, groups);
            case DELETE_GROUPS -> deleteGroups(in, version, groups, backend);
            case OFFSET_DELETE -> offsetDelete(in, version, groups, backend);
            default -> throw new MalformedMessageException(key + " is not an admin's group request");
        };
    }

    /**
     * groups [string] · include_authorized_operations (v3+) → throttle_time_ms (v1+) · groups
     * [error_code · group_id · group_state · protocol_type · protocol_data · members [member_id ·
     * group_instance_id (v4+) · client_id · client_host · member_metadata · member_assignment] ·
     * authorized_operations (v3+)].
     */
    static byte[] describeGroups(KafkaReader in, short version, ClassicGroups groups, Backend backend) {
        int count = in.arrayLength("groups");
        // each group once, however often it is named: the answer is bounded by what the groups hold
        // (max.group.bytes), not by what a 40-byte request asks (Kafka answers every name as it comes)
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < count; i++) {
            names.add(in.string("groups"));
        }
        if (version >= 3) {
            in.bool("include_authorized_operations");
        }
        in.end("DescribeGroups v" + version + " request");
        KafkaWriter out = GroupApis.withThrottle(version >= 1).arrayLength(names.size());
        for (String name : names) {
            short refused = name.isEmpty() ? KafkaErrors.NONE : backend.coordinatorError(name);
            if (refused != KafkaErrors.NONE) { // Kafka's GroupCoordinator.EmptyGroup: no state, no members
                out.int16(refused).nullableString(name).nullableString("").nullableString("").nullableString("")
                        .arrayLength(0);
                if (version >= 3) {
                    out.int32(Integer.MIN_VALUE);
                }
                continue;
            }
            ClassicGroups.GroupView group = groups.describe(name);
            out.int16(KafkaErrors.NONE).nullableString(name).nullableString(group.state().kafkaName)
                    .nullableString(group.protocolType()).nullableString(group.protocolName())
                    .arrayLength(group.members().size());
            for (ClassicGroups.MemberView m : group.members()) {
                out.nullableString(m.memberId());
                if (version >= 4) {
                    out.nullableString(m.groupInstanceId());
                }
                // client_host: this listener does not hand the peer's address down; Kafka answers "/1.2.3.4"
                out.nullableString(m.clientId() == null ? "" : m.clientId()).nullableString("")
                        .nullableBytes(ByteBuffer.wrap(m.metadata())).nullableBytes(ByteBuffer.wrap(m.assignment()));
            }
            if (version >= 3) {
                out.int32(Integer.MIN_VALUE); // authorized_operations: not asked for, or no ACLs here
            }
        }
        return out.toByteArray();
    }

    /**
     * states_filter [string] (v4+) · types_filter [string] (v5+) → throttle_time_ms (v1+) ·
     * error_code · groups [group_id · protocol_type · group_state (v4+) · group_type (v5+)]; compact,
     * with tagged fields, from v3. The filters are Kafka's ({@code GroupMetadataManager.listGroups}):
     * a state or type named in any case; an empty filter lets every group through. Every group here
     * is a classic one.
     */
    static byte[] listGroups(KafkaReader in, short version, ClassicGroups groups) {
        boolean flexible = ApiKey.LIST_GROUPS.isFlexible(version);
        Set<String> states = version >= 4 ? lowerCase(in, "states_filter", true) : Set.of();
        Set<String> types = version >= 5 ? lowerCase(in, "types_filter", false) : Set.of();
        CreateTopics.tags(in, flexible, "ListGroups request");
        in.end("ListGroups v" + version + " request");
        List<ClassicGroups.GroupListing> listed = new ArrayList<>();
        for (ClassicGroups.GroupListing g : groups.list()) {
            if ((states.isEmpty() || states.contains(g.state().kafkaName.toLowerCase(Locale.ROOT)))
                    && (types.isEmpty() || types.contains(CLASSIC))) {
                listed.add(g);
            }
        }
        KafkaWriter out = GroupApis.withThrottle(version >= 1).int16(KafkaErrors.NONE);
        CreateTopics.length(out, flexible, listed.size());
        for (ClassicGroups.GroupListing g : listed) {
            CreateTopics.string(out, flexible, g.groupId());
            CreateTopics.string(out, flexible, g.protocolType());
            if (version >= 4) {
                CreateTopics.string(out, flexible, g.state().kafkaName);
            }
            if (version >= 5) {
                CreateTopics.string(out, flexible, CLASSIC);
            }
            if (flexible) {
                out.noTaggedFields();
            }
        }
        if (flexible) {
            out.noTaggedFields();
        }
        return out.toByteArray();
    }

    /** A compact array of compact strings, each lower-cased (and trimmed, for states, as Kafka does). */
    private static Set<String> lowerCase(KafkaReader in, String field, boolean trim) {
        int count = in.compactArrayLength(field);
        Set<String> values = new LinkedHashSet<>();
        for (int i = 0; i < count; i++) {
            String value = in.compactString(field).toLowerCase(Locale.ROOT);
            values.add(trim ? value.trim() : value);
        }
        return values;
    }

    /**
     * groups_names [string] → throttle_time_ms · results [group_id · error_code]. Each distinct group
     * once, as Kafka's {@code KafkaApis.handleDeleteGroupsRequest}: INVALID_GROUP_ID for "", else
     * {@link ClassicGroups#deleteGroup}'s verdict (an Empty group goes, with its offsets).
     */
    static byte[] deleteGroups(KafkaReader in, short version, ClassicGroups groups, Backend backend) {
        int count = in.arrayLength("groups_names");
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < count; i++) {
            names.add(in.string("groups_names"));
        }
        in.end("DeleteGroups v" + version + " request");
        KafkaWriter out = new KafkaWriter().int32(0).arrayLength(names.size());
        for (String name : names) {
            short error = name.isEmpty() ? KafkaErrors.INVALID_GROUP_ID : backend.coordinatorError(name);
            if (error == KafkaErrors.NONE) {
                error = groups.deleteGroup(name, backend.nowMs());
            }
            out.nullableString(name).int16(error);
        }
        backend.partitionsDone();
        return out.toByteArray();
    }

    /**
     * group_id · topics [name · partitions [partition_index]] → error_code · throttle_time_ms · topics
     * [name · partitions [partition_index · error_code]]. As Kafka's {@code handleOffsetDeleteRequest}:
     * a partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION; the others get the group's verdict
     * ({@link ClassicGroups#deleteOffsets}); an error of the whole request comes without topics. A
     * topic or partition named twice is answered once.
     */
    static byte[] offsetDelete(KafkaReader in, short version, ClassicGroups groups, Backend backend)
            throws IOException {
        String groupId = in.string("group_id");
        Map<String, Set<Integer>> asked = new LinkedHashMap<>();
        int topicCount = in.arrayLength("topics");
        for (int t = 0; t < topicCount; t++) {
            Set<Integer> partitions = asked.computeIfAbsent(in.string("topics.name"), n -> new LinkedHashSet<>());
            int partitionCount = in.arrayLength("topics.partitions");
            for (int p = 0; p < partitionCount; p++) {
                partitions.add(in.int32("partition_index"));
            }
        }
        in.end("OffsetDelete v" + version + " request");
        Map<String, Set<Integer>> existing = new LinkedHashMap<>();
        for (Map.Entry<String, Set<Integer>> topic : asked.entrySet()) {
            for (int partition : topic.getValue()) {
                if (backend.committable(topic.getKey(), partition)) {
                    existing.computeIfAbsent(topic.getKey(), n -> new LinkedHashSet<>()).add(partition);
                }
            }
        }
        short refused = groupId.isEmpty() ? KafkaErrors.INVALID_GROUP_ID : backend.coordinatorError(groupId);
        ClassicGroups.OffsetDeleteResult result = refused != KafkaErrors.NONE
                ? new ClassicGroups.OffsetDeleteResult(refused, Map.of())
                : groups.deleteOffsets(groupId, existing, backend.nowMs());
        backend.partitionsDone();
        KafkaWriter out = new KafkaWriter().int16(result.error()).int32(0);
        if (result.error() != KafkaErrors.NONE) {
            return out.arrayLength(0).toByteArray();
        }
        out.arrayLength(asked.size());
        for (Map.Entry<String, Set<Integer>> topic : asked.entrySet()) {
            out.nullableString(topic.getKey()).arrayLength(topic.getValue().size());
            Set<Integer> known = existing.getOrDefault(topic.getKey(), Set.of());
            for (int partition : topic.getValue()) {
                out.int32(partition).int16(known.contains(partition) ? result.topics().get(topic.getKey())
                        : KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION);
            }
        }
        return out.toByteArray();
    }
}
