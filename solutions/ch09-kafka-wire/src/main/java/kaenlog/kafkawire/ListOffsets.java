package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import kaenlog.broker.Leadership;
import kaenlog.broker.Partition;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.log.StorageException;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames;

/**
 * ListOffsets (key 2), v1..v7: where a consumer starts. Timestamp -2 (EARLIEST) is the log start
 * offset; -1 (LATEST) is the end a consumer can read to: the high watermark for read_uncommitted,
 * the last stable offset for read_committed (chapter 11; Kafka's Partition.fetchOffsetForTimestamp,
 * its lastFetchableOffset). Any other timestamp is a lookup by time, through
 * chapter 3's time index: the earliest offset whose record's timestamp is at or after it, answered
 * with that record's timestamp and its batch's leader epoch; -3 (MAX_TIMESTAMP, KIP-734, from
 * version 7 on) is the first record holding the largest timestamp. A record found at or past that
 * end, or none found, is answered offset -1 and timestamp -1 with no error (Kafka's
 * ReplicaManager: a consumer is never told of an offset it cannot fetch yet). Version 6 is the
 * first flexible one (compact strings and arrays, tagged fields).
 */
public final class ListOffsets {
    public static final long EARLIEST = -2;
    public static final long LATEST = -1;
    /** KIP-734: the offset of the record with the largest timestamp (ListOffsets v7 and later). */
    public static final long MAX_TIMESTAMP = -3;
    /** Kafka's UNKNOWN_OFFSET and UNKNOWN_TIMESTAMP (ListOffsetsResponse): nothing found. */
    public static final long UNKNOWN = -1;

    /** {@code currentLeaderEpoch}: the leader epoch the client believes in (v4+, KIP-320), -1 when not sent. */
    public record PartitionRequest(int partition, int currentLeaderEpoch, long timestamp) {
    }

    public record TopicRequest(String name, List<PartitionRequest> partitions) {
    }

    /** {@code isolationLevel}: 0 read_uncommitted, 1 read_committed (sent from version 2 on; 0 before). */
    public record Request(byte isolationLevel, List<TopicRequest> topics) {
    }

    public record PartitionResponse(int partition, short errorCode, long timestamp, long offset, int leaderEpoch) {
        /** An answer without a timestamp (EARLIEST, LATEST, errors): leader epoch 0 when it is no error, else -1. */
        public PartitionResponse(int partition, short errorCode, long offset) {
            this(partition, errorCode, UNKNOWN, offset, errorCode == KafkaErrors.NONE ? 0 : -1);
        }
    }

    public record TopicResponse(String name, List<PartitionResponse> partitions) {
    }

    private ListOffsets() {
    }

    public static Request parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.LIST_OFFSETS.isFlexible(version);
        in.int32("replica_id");
        byte isolationLevel = FetchIsolation.READ_UNCOMMITTED;
        if (version >= 2) {
            isolationLevel = in.int8("isolation_level");
            if (isolationLevel != FetchIsolation.READ_UNCOMMITTED && isolationLevel != FetchIsolation.READ_COMMITTED) {
                throw new MalformedMessageException("isolation_level: 0 (read_uncommitted) or 1 (read_committed), not "
                        + isolationLevel);
            }
        }
        int topicCount = flexible ? in.compactArrayLength("topics") : in.arrayLength("topics");
        List<TopicRequest> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            String name = flexible ? in.compactString("topics.name") : in.string("topics.name");
            int partitionCount = flexible ? in.compactArrayLength("topics.partitions")
                    : in.arrayLength("topics.partitions");
            List<PartitionRequest> partitions = new ArrayList<>();
            for (int p = 0; p < partitionCount; p++) {
                int partition = in.int32("partition_index");
                int currentLeaderEpoch = version >= 4 ? in.int32("current_leader_epoch") : -1;
                partitions.add(new PartitionRequest(partition, currentLeaderEpoch, in.int64("timestamp")));
                if (flexible) {
                    in.skipTaggedFields("partition");
                }
            }
            if (flexible) {
                in.skipTaggedFields("topic");
            }
            topics.add(new TopicRequest(name, partitions));
        }
        if (flexible) {
            in.skipTaggedFields("ListOffsets request");
        }
        in.end("ListOffsets v" + version + " request");
        return new Request(isolationLevel, topics);
    }

    public static List<TopicResponse> answer(Request request, Backend backend) throws IOException {
        boolean readCommitted = request.isolationLevel() == FetchIsolation.READ_COMMITTED;
        List<TopicResponse> topics = new ArrayList<>();
        for (TopicRequest topic : request.topics()) {
            List<PartitionResponse> partitions = new ArrayList<>();
            for (PartitionRequest p : topic.partitions()) {
                partitions.add(answerOne(topic.name(), p, readCommitted, backend));
            }
            topics.add(new TopicResponse(topic.name(), partitions));
        }
        return topics;
    }

    /**
     * One partition's answer, from one lookup and one read of its log. As Kafka's
     * {@code fetchOffsetForTimestamp}: the client's leader epoch is checked, then only the leader
     * answers (the broker's {@link Leadership}). A partition whose log is offline is answered
     * KAFKA_STORAGE_ERROR in its own entry and the others are answered as usual: Kafka's
     * {@code KafkaApis.handleListOffsetRequest} catches a KafkaStorageException per partition
     * ({@code Errors.forException(e)}), it never closes the connection for one partition's trouble.
     */
    private static PartitionResponse answerOne(String topic, PartitionRequest p, boolean readCommitted, Backend backend)
            throws IOException {
        if (PartitionNames.problem(topic, p.partition()) != null) {
            return new PartitionResponse(p.partition(), KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, -1);
        }
        String name = Backend.partitionName(topic, p.partition());
        Leadership leadership = backend.leadership();
        ErrorCode refused = leadership.readRefusal(name, Math.max(p.currentLeaderEpoch(), FetchRequest.NO_LEADER_EPOCH));
        if (refused != ErrorCode.NONE) {
            return new PartitionResponse(p.partition(), KafkaErrors.of(refused), -1);
        }
        try {
            Optional<Partition> partition = backend.existingPartition(name);
            if (partition.isEmpty()) {
                return new PartitionResponse(p.partition(), KafkaErrors.of(leadership.missingPartition(name)), -1);
            }
            return partition.get().locked(log -> lookUp(p, name, log, readCommitted, leadership));
        } catch (StorageException offline) {
            return new PartitionResponse(p.partition(), KafkaErrors.KAFKA_STORAGE_ERROR, -1);
        } finally {
            backend.partitionsDone();
        }
    }

    /**
     * EARLIEST: the log start offset, with the epoch of its batch (Kafka: the leader-epoch cache's
     * first); LATEST: the last offset a consumer of this isolation may fetch (the high watermark, or
     * the last stable offset for read_committed) with the leader's epoch; else a lookup by time below
     * that offset, with the found batch's epoch.
     */
    private static PartitionResponse lookUp(PartitionRequest p, String name, Log log, boolean readCommitted,
                                            Leadership leadership) throws IOException {
        long lastFetchable = readCommitted ? log.lastStableOffset() : log.highWatermark();
        if (p.timestamp() == EARLIEST) {
            return new PartitionResponse(p.partition(), KafkaErrors.NONE, UNKNOWN, log.logStartOffset(),
                    leadership.earliestLeaderEpoch(log));
        }
        if (p.timestamp() == LATEST) {
            return new PartitionResponse(p.partition(), KafkaErrors.NONE, UNKNOWN, lastFetchable,
                    leadership.leaderEpoch(name));
        }
        Optional<Segment.TimestampAndOffset> found = (p.timestamp() == MAX_TIMESTAMP ? log.largestTimestamp()
                : log.offsetForTimestamp(p.timestamp())).filter(f -> f.offset() < lastFetchable);
        return found.map(f -> new PartitionResponse(p.partition(), KafkaErrors.NONE, f.timestamp(), f.offset(),
                        f.leaderEpoch()))
                .orElse(new PartitionResponse(p.partition(), KafkaErrors.NONE, UNKNOWN, UNKNOWN, -1));
    }

    public static byte[] response(List<TopicResponse> topics, short version) {
        boolean flexible = ApiKey.LIST_OFFSETS.isFlexible(version);
        KafkaWriter out = new KafkaWriter();
        if (version >= 2) {
            out.int32(0); // throttle_time_ms
        }
        arrayLength(out, flexible, topics.size());
        for (TopicResponse topic : topics) {
            if (flexible) {
                out.compactNullableString(topic.name());
            } else {
                out.nullableString(topic.name());
            }
            arrayLength(out, flexible, topic.partitions().size());
            for (PartitionResponse p : topic.partitions()) {
                out.int32(p.partition()).int16(p.errorCode()).int64(p.timestamp()).int64(p.offset());
                if (version >= 4) {
                    out.int32(p.leaderEpoch());
                }
                if (flexible) {
                    out.noTaggedFields();
                }
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

    private static void arrayLength(KafkaWriter out, boolean flexible, int count) {
        if (flexible) {
            out.compactArrayLength(count);
        } else {
            out.arrayLength(count);
        }
    }
}
