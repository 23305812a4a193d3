package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import kaenlog.broker.Partition;
import kaenlog.log.Segment;
import kaenlog.log.StorageException;

/**
 * DescribeLogDirs (key 35), v1..v4 (flexible from v2; kafka-clients 4.1.1's {@code describeLogDirs} and
 * {@code describeReplicaLogDirs}, {@code kafka-log-dirs --describe}). Request: topics nullable [topic ·
 * partitions [int32]] (null: every partition). Response: throttle_time_ms · error_code (v3+) · results
 * [error_code · log_dir · topics [name · partitions [partition_index · partition_size int64 · offset_lag
 * int64 · is_future_key]] · total_bytes (v4+) · usable_bytes (v4+)].
 *
 * <p>This broker has one log directory, its data directory (Kafka's {@code log.dirs} with one entry):
 * every partition of a client topic is there, its size the bytes of its segments (Kafka's
 * {@code UnifiedLog.size}), its offset lag {@code max(high watermark - log end offset, 0)} as Kafka
 * computes it for a current log (0 on a leader), never a future log (no replica moves between
 * directories here). A topic or partition named that does not exist is left out, as Kafka leaves it out;
 * so is an offline partition (Kafka's offline directory has no logs to list), and the broker's own
 * topics ({@code __...}), which Metadata does not list either. The answer holds at most the partitions
 * the broker holds ({@code max.partitions}), whatever the request names.
 */
public final class DescribeLogDirs {

    /** {@code topics}: topic to the partitions asked for; null for every partition. */
    public record Request(Map<String, TreeSet<Integer>> topics) {
    }

    public record PartitionAnswer(int partition, long size, long offsetLag) {
    }

    public record Answer(String logDir, Map<String, List<PartitionAnswer>> topics, long totalBytes, long usableBytes) {
    }

    private DescribeLogDirs() {
    }

    public static Request parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.DESCRIBE_LOG_DIRS.isFlexible(version);
        int count = CreateTopics.length(in, flexible, "topics");
        Map<String, TreeSet<Integer>> topics = count < 0 ? null : new TreeMap<>();
        for (int t = 0; t < count; t++) {
            String name = CreateTopics.string(in, flexible, "topics.topic");
            int partitionCount = CreateTopics.length(in, flexible, "partitions");
            TreeSet<Integer> partitions = topics.computeIfAbsent(name, n -> new TreeSet<>());
            for (int p = 0; p < partitionCount; p++) {
                partitions.add(in.int32("partitions"));
            }
            CreateTopics.tags(in, flexible, "topic");
        }
        CreateTopics.tags(in, flexible, "DescribeLogDirs request");
        in.end("DescribeLogDirs v" + version + " request");
        return new Request(topics);
    }

    public static Answer answer(Request request, Backend backend) throws IOException {
        Map<String, List<PartitionAnswer>> described = new TreeMap<>();
        for (Map.Entry<String, TreeSet<Integer>> topic : backend.topics().entrySet()) {
            TreeSet<Integer> asked = request.topics() == null ? topic.getValue() : request.topics().get(topic.getKey());
            if (asked == null) {
                continue;
            }
            List<PartitionAnswer> partitions = new ArrayList<>();
            for (int p : asked) {
                if (topic.getValue().contains(p)) {
                    describe(backend, topic.getKey(), p).ifPresent(partitions::add);
                }
            }
            if (!partitions.isEmpty()) {
                described.put(topic.getKey(), partitions);
            }
        }
        FileStore store = Files.getFileStore(backend.dataDir());
        return new Answer(backend.dataDir().toAbsolutePath().toString(), described, store.getTotalSpace(),
                store.getUsableSpace());
    }

    /** One partition's size and lag; empty when it is offline or gone. */
    private static Optional<PartitionAnswer> describe(Backend backend, String topic, int p) throws IOException {
        try {
            Optional<Partition> partition = backend.existingPartition(Backend.partitionName(topic, p));
            if (partition.isEmpty() || partition.get().isOffline()) {
                return Optional.empty();
            }
            return Optional.of(partition.get().locked(log -> new PartitionAnswer(p,
                    log.segments().stream().mapToLong(Segment::size).sum(),
                    Math.max(log.highWatermark() - log.logEndOffset(), 0))));
        } catch (StorageException offline) {
            return Optional.empty();
        } finally {
            backend.partitionsDone();
        }
    }

    public static byte[] response(Answer answer, short version) {
        boolean flexible = ApiKey.DESCRIBE_LOG_DIRS.isFlexible(version);
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        if (version >= 3) {
            out.int16(KafkaErrors.NONE);
        }
        CreateTopics.length(out, flexible, 1);
        out.int16(KafkaErrors.NONE);
        CreateTopics.string(out, flexible, answer.logDir());
        CreateTopics.length(out, flexible, answer.topics().size());
        answer.topics().forEach((name, partitions) -> {
            CreateTopics.string(out, flexible, name);
            CreateTopics.length(out, flexible, partitions.size());
            for (PartitionAnswer p : partitions) {
                out.int32(p.partition()).int64(p.size()).int64(p.offsetLag()).bool(false); // is_future_key
                CreateTopics.tags(out, flexible);
            }
            CreateTopics.tags(out, flexible);
        });
        if (version >= 4) {
            out.int64(answer.totalBytes()).int64(answer.usableBytes());
        }
        CreateTopics.tags(out, flexible); // the log directory's result
        CreateTopics.tags(out, flexible); // the response
        return out.toByteArray();
    }
}
