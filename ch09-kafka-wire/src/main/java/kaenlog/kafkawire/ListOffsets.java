package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * ListOffsets (key 2), v1..v5: where a consumer starts. Timestamp -2 (EARLIEST) is the log start
 * offset; -1 (LATEST) is the high watermark, the end a consumer can read to (Kafka answers the
 * high watermark for read_uncommitted and the last stable offset for read_committed: with no
 * transactions the two are the same here). A lookup by a real timestamp is not built.
 */
public final class ListOffsets {
    public static final long EARLIEST = -2;
    public static final long LATEST = -1;

    public record PartitionRequest(int partition, long timestamp) {
    }

    public record TopicRequest(String name, List<PartitionRequest> partitions) {
    }

    public record PartitionResponse(int partition, short errorCode, long offset) {
    }

    public record TopicResponse(String name, List<PartitionResponse> partitions) {
    }

    private ListOffsets() {
    }

    public static List<TopicRequest> parse(KafkaReader in, short version) {
        in.int32("replica_id");
        if (version >= 2) {
            in.int8("isolation_level");
        }
        int topicCount = in.arrayLength("topics");
        List<TopicRequest> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            String name = in.string("topics.name");
            int partitionCount = in.arrayLength("topics.partitions");
            List<PartitionRequest> partitions = new ArrayList<>();
            for (int p = 0; p < partitionCount; p++) {
                int partition = in.int32("partition_index");
                if (version >= 4) {
                    in.int32("current_leader_epoch");
                }
                partitions.add(new PartitionRequest(partition, in.int64("timestamp")));
            }
            topics.add(new TopicRequest(name, partitions));
        }
        in.end("ListOffsets v" + version + " request");
        return topics;
    }

    public static List<TopicResponse> answer(List<TopicRequest> request, Backend backend) throws IOException {
        List<TopicResponse> topics = new ArrayList<>();
        for (TopicRequest topic : request) {
            List<PartitionResponse> partitions = new ArrayList<>();
            for (PartitionRequest p : topic.partitions()) {
                partitions.add(answerOne(topic.name(), p, backend));
            }
            topics.add(new TopicResponse(topic.name(), partitions));
        }
        return topics;
    }

    private static PartitionResponse answerOne(String topic, PartitionRequest p, Backend backend) throws IOException {
        if (!backend.exists(topic, p.partition())) {
            return new PartitionResponse(p.partition(), KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, -1);
        }
        long[] startAndHw = backend.startAndHighWatermark(Backend.partitionName(topic, p.partition()));
        if (p.timestamp() == EARLIEST) {
            return new PartitionResponse(p.partition(), KafkaErrors.NONE, startAndHw[0]);
        }
        if (p.timestamp() == LATEST) {
            return new PartitionResponse(p.partition(), KafkaErrors.NONE, startAndHw[1]);
        }
        return new PartitionResponse(p.partition(), KafkaErrors.INVALID_REQUEST, -1);
    }

    public static byte[] response(List<TopicResponse> topics, short version) {
        KafkaWriter out = new KafkaWriter();
        if (version >= 2) {
            out.int32(0); // throttle_time_ms
        }
        out.arrayLength(topics.size());
        for (TopicResponse topic : topics) {
            out.nullableString(topic.name()).arrayLength(topic.partitions().size());
            for (PartitionResponse p : topic.partitions()) {
                out.int32(p.partition()).int16(p.errorCode()).int64(-1).int64(p.offset()); // timestamp -1
                if (version >= 4) {
                    out.int32(p.errorCode() == KafkaErrors.NONE ? 0 : -1); // leader_epoch
                }
            }
        }
        return out.toByteArray();
    }
}
