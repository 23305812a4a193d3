package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;

/**
 * Fetch (key 1), v4..v11. Each partition becomes one kaen-log consumer fetch (replica id -1: up to
 * the high watermark, chapter 3's FetchIsolation). Fetch sessions (KIP-227, v7+) are not kept: the
 * answer's session_id 0 tells the client so, and it sends full fetches from then on.
 */
public final class Fetch {

    public record PartitionRequest(int partition, long fetchOffset, int partitionMaxBytes) {
    }

    public record TopicRequest(String topic, List<PartitionRequest> partitions) {
    }

    public record Request(int maxWaitMs, int minBytes, int maxBytes, List<TopicRequest> topics) {
    }

    public record PartitionResponse(int partition, short errorCode, long highWatermark, long logStartOffset,
                                    ByteBuffer records) {
    }

    public record TopicResponse(String topic, List<PartitionResponse> partitions) {
    }

    private Fetch() {
    }

    public static Request parse(KafkaReader in, short version) {
        in.int32("replica_id");
        int maxWaitMs = in.int32("max_wait_ms");
        int minBytes = in.int32("min_bytes");
        int maxBytes = in.int32("max_bytes");
        in.int8("isolation_level");
        if (version >= 7) {
            in.int32("session_id");
            in.int32("session_epoch");
        }
        int topicCount = in.arrayLength("topics");
        List<TopicRequest> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            String topic = in.string("topics.topic");
            int partitionCount = in.arrayLength("topics.partitions");
            List<PartitionRequest> partitions = new ArrayList<>();
            for (int p = 0; p < partitionCount; p++) {
                int partition = in.int32("partition");
                if (version >= 9) {
                    in.int32("current_leader_epoch");
                }
                long fetchOffset = in.int64("fetch_offset");
                if (version >= 5) {
                    in.int64("log_start_offset");
                }
                partitions.add(new PartitionRequest(partition, fetchOffset, in.int32("partition_max_bytes")));
            }
            topics.add(new TopicRequest(topic, partitions));
        }
        if (version >= 7) {
            int forgotten = in.arrayLength("forgotten_topics_data");
            for (int f = 0; f < forgotten; f++) {
                in.string("forgotten_topics_data.topic");
                int count = in.arrayLength("forgotten_topics_data.partitions");
                for (int p = 0; p < count; p++) {
                    in.int32("forgotten partition");
                }
            }
        }
        if (version >= 11) {
            in.string("rack_id");
        }
        in.end("Fetch v" + version + " request");
        return new Request(maxWaitMs, minBytes, maxBytes, topics);
    }

    /**
     * Reads every partition at once (no waiting); when nothing at all came back and the client
     * allows a wait, the first partition's fetch is parked the way a kaen-log fetch parks, then
     * every partition is read once more.
     */
    public static List<TopicResponse> answer(Request request, Backend backend) throws IOException {
        List<TopicResponse> answer = readAll(request, backend, 0);
        if (totalBytes(answer) == 0 && request.maxWaitMs() > 0 && !request.topics().isEmpty()
                && !request.topics().get(0).partitions().isEmpty()) {
            answer = readAll(request, backend, request.maxWaitMs());
        }
        return answer;
    }

    private static List<TopicResponse> readAll(Request request, Backend backend, int firstWaitMs) throws IOException {
        List<TopicResponse> topics = new ArrayList<>();
        int budget = request.maxBytes();
        int waitMs = firstWaitMs;
        for (TopicRequest topic : request.topics()) {
            List<PartitionResponse> partitions = new ArrayList<>();
            for (PartitionRequest p : topic.partitions()) {
                PartitionResponse read = readOne(topic.topic(), p, Math.max(0, Math.min(budget, p.partitionMaxBytes())),
                        waitMs, backend);
                waitMs = 0;
                budget -= read.records().remaining();
                partitions.add(read);
            }
            topics.add(new TopicResponse(topic.topic(), partitions));
        }
        return topics;
    }

    private static PartitionResponse readOne(String topic, PartitionRequest p, int maxBytes, int waitMs,
                                             Backend backend) throws IOException {
        if (!backend.exists(topic, p.partition())) {
            return new PartitionResponse(p.partition(), KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1,
                    ByteBuffer.allocate(0));
        }
        String name = Backend.partitionName(topic, p.partition());
        FetchResponse r = backend.fetch(FetchRequest.consumer(name, p.fetchOffset(), maxBytes, waitMs));
        ByteBuffer records = r.error() == ErrorCode.NONE ? r.records() : ByteBuffer.allocate(0);
        return new PartitionResponse(p.partition(), KafkaErrors.of(r.error()), r.highWatermark(), r.logStartOffset(),
                records);
    }

    private static int totalBytes(List<TopicResponse> topics) {
        return topics.stream().flatMap(t -> t.partitions().stream()).mapToInt(p -> p.records().remaining()).sum();
    }

    public static byte[] response(List<TopicResponse> topics, short version) {
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        if (version >= 7) {
            out.int16(KafkaErrors.NONE).int32(0); // error_code, session_id 0: no fetch session
        }
        out.arrayLength(topics.size());
        for (TopicResponse topic : topics) {
            out.nullableString(topic.topic()).arrayLength(topic.partitions().size());
            for (PartitionResponse p : topic.partitions()) {
                out.int32(p.partition()).int16(p.errorCode()).int64(p.highWatermark());
                out.int64(p.highWatermark()); // last_stable_offset: no transactions, so the high watermark
                if (version >= 5) {
                    out.int64(p.logStartOffset());
                }
                out.arrayLength(-1); // aborted_transactions: null
                if (version >= 11) {
                    out.int32(-1); // preferred_read_replica: read from the leader
                }
                out.nullableBytes(p.records());
            }
        }
        return out.toByteArray();
    }
}
