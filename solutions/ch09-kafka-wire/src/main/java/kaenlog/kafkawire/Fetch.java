package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kaenlog.broker.FetchHandler;
import kaenlog.broker.FetchSlice;
import kaenlog.broker.Send;
import kaenlog.log.AbortedTransaction;
import kaenlog.log.FetchIsolation;
import kaenlog.log.FileSlice;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames;

/**
 * Fetch (key 1), v4..v11. Each partition becomes one kaen-log consumer fetch (replica id -1: up to
 * the high watermark, chapter 3's FetchIsolation; with isolation level read_committed up to the last
 * stable offset, and the answer names the aborted transactions of what it read, chapter 11). Fetch
 * sessions (KIP-227, v7+) are not kept: the answer's session_id 0 tells the client so, and it sends
 * full fetches from then on.
 */
public final class Fetch {

    /** {@code currentLeaderEpoch}: the leader epoch the client believes in (v9+, KIP-320), -1 when not sent. */
    public record PartitionRequest(int partition, int currentLeaderEpoch, long fetchOffset, int partitionMaxBytes) {
    }

    public record TopicRequest(String topic, List<PartitionRequest> partitions) {
    }

    /** {@code isolationLevel}: 0 read_uncommitted, 1 read_committed (chapter 3's {@link FetchIsolation} ids). */
    public record Request(int maxWaitMs, int minBytes, int maxBytes, byte isolationLevel, List<TopicRequest> topics) {
        public Request(int maxWaitMs, int minBytes, int maxBytes, List<TopicRequest> topics) {
            this(maxWaitMs, minBytes, maxBytes, FetchIsolation.READ_UNCOMMITTED, topics);
        }
    }

    /**
     * One partition's answer: its records in memory ({@code records}) or as a file range ({@code file});
     * the last stable offset, and the aborted transactions of a read_committed fetch (null otherwise).
     */
    public record PartitionResponse(int partition, short errorCode, long highWatermark, long logStartOffset,
                                    ByteBuffer records, FileSlice file, long lastStableOffset,
                                    List<AbortedTransaction> abortedTransactions) {
        public PartitionResponse(int partition, short errorCode, long highWatermark, long logStartOffset,
                                 ByteBuffer records) {
            this(partition, errorCode, highWatermark, logStartOffset, records, null, highWatermark, null);
        }

        public int recordBytes() {
            return file != null ? file.sizeInBytes() : records == null ? 0 : records.remaining();
        }

        void close() {
            if (file != null) {
                file.close();
            }
        }
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
        byte isolationLevel = in.int8("isolation_level");
        if (isolationLevel != FetchIsolation.READ_UNCOMMITTED && isolationLevel != FetchIsolation.READ_COMMITTED) {
            throw new MalformedMessageException("isolation_level: 0 (read_uncommitted) or 1 (read_committed), not "
                    + isolationLevel);
        }
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
                int currentLeaderEpoch = version >= 9 ? in.int32("current_leader_epoch") : FetchRequest.NO_LEADER_EPOCH;
                long fetchOffset = in.int64("fetch_offset");
                if (version >= 5) {
                    in.int64("log_start_offset");
                }
                partitions.add(new PartitionRequest(partition, currentLeaderEpoch, fetchOffset,
                        in.int32("partition_max_bytes")));
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
        return new Request(maxWaitMs, minBytes, maxBytes, isolationLevel, topics);
    }

    /**
     * Reads every partition at once (no waiting); when nothing at all came back, the first partition
     * answered without an error and the client allows a wait, the fetch parks on that partition the
     * way a kaen-log fetch parks (chapter 3's {@link FetchHandler#readOrPark}, one path for both
     * ports), then every partition is read once more. The records stay in the segment files: see
     * {@link #body}.
     */
    public static List<TopicResponse> answer(Request request, Backend backend) throws IOException {
        return answer(request, backend, KafkaConfigKeys.DEFAULT_FETCH_MAX_BYTES);
    }

    /** {@link #answer} with the broker's {@code fetch.max.bytes}. */
    static List<TopicResponse> answer(Request request, Backend backend, int fetchMaxBytes) throws IOException {
        Optional<FetchRequest> first = firstPartition(request);
        if (first.isEmpty()) {
            return readAll(request, backend, fetchMaxBytes);
        }
        return backend.readOrPark(() -> new Read(readAll(request, backend, fetchMaxBytes)), first.get()).topics();
    }

    /**
     * The request's first partition as a kaen-log consumer fetch with the request's wait, where the
     * fetch parks; empty when the request names none, or none a directory can hold.
     */
    private static Optional<FetchRequest> firstPartition(Request request) {
        if (request.topics().isEmpty() || request.topics().get(0).partitions().isEmpty()) {
            return Optional.empty();
        }
        TopicRequest topic = request.topics().get(0);
        PartitionRequest first = topic.partitions().get(0);
        if (PartitionNames.problem(topic.topic(), first.partition()) != null) {
            return Optional.empty();
        }
        return Optional.of(new FetchRequest(FetchIsolation.CONSUMER_REPLICA_ID,
                Backend.partitionName(topic.topic(), first.partition()), first.fetchOffset(), 1,
                Math.max(0, request.maxWaitMs()), FetchRequest.NO_LEADER_EPOCH, request.isolationLevel()));
    }

    /** Every partition read at once: it may wait when no partition has records and the first had no error. */
    private record Read(List<TopicResponse> topics) implements FetchHandler.Read {
        @Override
        public boolean foundNothing() {
            return totalBytes(topics) == 0 && topics.get(0).partitions().get(0).errorCode() == KafkaErrors.NONE;
        }

        @Override
        public void close() {
            Fetch.close(topics);
        }
    }

    /**
     * A partition named twice is answered once: Kafka's FetchRequest puts the partitions in a
     * LinkedHashMap, so a later entry replaces an earlier one's offset and limit and keeps its place.
     * Partitions of one topic that follow each other form one topic entry, as Kafka's response does.
     */
    static List<TopicRequest> distinct(List<TopicRequest> topics) {
        Map<String, PartitionRequest> byName = new LinkedHashMap<>();
        Map<String, String> topicOf = new LinkedHashMap<>();
        for (TopicRequest topic : topics) {
            for (PartitionRequest p : topic.partitions()) {
                String key = topic.topic() + "\u0000" + p.partition();
                byName.put(key, p);
                topicOf.putIfAbsent(key, topic.topic());
            }
        }
        List<TopicRequest> merged = new ArrayList<>();
        for (Map.Entry<String, PartitionRequest> entry : byName.entrySet()) {
            String topic = topicOf.get(entry.getKey());
            TopicRequest last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last == null || !last.topic().equals(topic)) {
                last = new TopicRequest(topic, new ArrayList<>());
                merged.add(last);
            }
            last.partitions().add(entry.getValue());
        }
        return merged;
    }

    /**
     * Kafka's ReplicaManager.readFromLocalLog: the response is capped by the request's max_bytes and
     * the broker's fetch.max.bytes together; each partition by its partition_max_bytes and what is
     * left; only the first partition that has data may exceed a limit, by one batch (minOneMessage),
     * so that a consumer always makes progress. At most {@link #MAX_PARTITIONS_WITH_RECORDS} partitions
     * carry records in one answer (each holds a segment file open until it is sent); the others are
     * answered without records this time, as if the budget had run out.
     */
    private static List<TopicResponse> readAll(Request request, Backend backend, int fetchMaxBytes) throws IOException {
        List<TopicResponse> topics = new ArrayList<>();
        long limitBytes = Math.max(0, Math.min(request.maxBytes(), fetchMaxBytes));
        boolean minOneMessage = true;
        int withRecords = 0;
        try {
            for (TopicRequest topic : distinct(request.topics())) {
                List<PartitionResponse> partitions = new ArrayList<>();
                topics.add(new TopicResponse(topic.topic(), partitions));
                for (PartitionRequest p : topic.partitions()) {
                    int maxBytes = (int) Math.max(0, Math.min(limitBytes, p.partitionMaxBytes()));
                    boolean room = withRecords < MAX_PARTITIONS_WITH_RECORDS;
                    PartitionResponse read = readOne(topic.topic(), p, room ? maxBytes : 0, room && minOneMessage,
                            request.isolationLevel(), backend);
                    partitions.add(read);
                    int bytes = read.recordBytes();
                    if (bytes > 0) {
                        minOneMessage = false;
                        withRecords++;
                    }
                    limitBytes = Math.max(0, limitBytes - bytes);
                }
            }
        } catch (IOException | RuntimeException e) {
            close(topics);
            throw e;
        }
        return topics;
    }

    /** Partitions of one answer that may hold a segment file open for it. */
    static final int MAX_PARTITIONS_WITH_RECORDS = 256;

    /**
     * One partition through chapter 3's read ({@link Backend#read}): the client's leader epoch
     * checked as the broker's leadership checks a kaen-log fetch's, one lookup, the records as file
     * ranges.
     */
    private static PartitionResponse readOne(String topic, PartitionRequest p, int maxBytes, boolean minOneMessage,
                                             byte isolationLevel, Backend backend) throws IOException {
        if (PartitionNames.problem(topic, p.partition()) != null) {
            // no directory can hold it: topic 'alias' partition -5 is never 'alias-' partition 5
            return new PartitionResponse(p.partition(), KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1,
                    ByteBuffer.allocate(0));
        }
        FetchRequest request = new FetchRequest(FetchIsolation.CONSUMER_REPLICA_ID,
                Backend.partitionName(topic, p.partition()), p.fetchOffset(), maxBytes, 0,
                Math.max(p.currentLeaderEpoch(), FetchRequest.NO_LEADER_EPOCH), isolationLevel);
        FetchSlice r = backend.read(request, minOneMessage);
        if (r.error() != ErrorCode.NONE) {
            r.close();
            return new PartitionResponse(p.partition(), KafkaErrors.of(r.error()), r.highWatermark(),
                    r.logStartOffset(), ByteBuffer.allocate(0));
        }
        return new PartitionResponse(p.partition(), KafkaErrors.NONE, r.highWatermark(), r.logStartOffset(), null,
                r.records(), r.lastStableOffset(), r.abortedTransactions());
    }

    private static int totalBytes(List<TopicResponse> topics) {
        return topics.stream().flatMap(t -> t.partitions().stream()).mapToInt(PartitionResponse::recordBytes).sum();
    }

    /** Lets the segments an unsent answer holds close. */
    static void close(List<TopicResponse> topics) {
        topics.forEach(t -> t.partitions().forEach(PartitionResponse::close));
    }

    /**
     * The response body as a {@link Send}: the fields in memory, each partition's records as the
     * file range they are in (written with transferTo, never copied into the heap).
     */
    public static Send body(List<TopicResponse> topics, short version) {
        Send send = new Send();
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        if (version >= 7) {
            out.int16(KafkaErrors.NONE).int32(0); // error_code, session_id 0: no fetch session
        }
        out.arrayLength(topics.size());
        for (TopicResponse topic : topics) {
            out.nullableString(topic.topic()).arrayLength(topic.partitions().size());
            for (PartitionResponse p : topic.partitions()) {
                partitionFields(out, p, version);
                if (p.file() != null) {
                    out.int32(p.file().sizeInBytes());
                    send.bytes(out.toByteArray()).file(p.file());
                    out = new KafkaWriter();
                } else {
                    out.nullableBytes(p.records());
                }
            }
        }
        return send.bytes(out.toByteArray());
    }

    private static void partitionFields(KafkaWriter out, PartitionResponse p, short version) {
        out.int32(p.partition()).int16(p.errorCode()).int64(p.highWatermark());
        out.int64(p.lastStableOffset());
        if (version >= 5) {
            out.int64(p.logStartOffset());
        }
        // aborted_transactions: null but for a read_committed fetch (Kafka's FetchDataInfo.abortedTransactions)
        List<AbortedTransaction> aborted = p.abortedTransactions();
        out.arrayLength(aborted == null ? -1 : aborted.size());
        if (aborted != null) {
            aborted.forEach(a -> out.int64(a.producerId()).int64(a.firstOffset()));
        }
        if (version >= 11) {
            out.int32(-1); // preferred_read_replica: read from the leader
        }
    }

    /** The response body in memory (the records read from the files): for callers without a socket. */
    public static byte[] response(List<TopicResponse> topics, short version) throws IOException {
        try (Send body = body(topics, version)) {
            return body.toByteArray();
        }
    }
}
