package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import kaenlog.broker.Leadership;
import kaenlog.broker.Partition;
import kaenlog.log.OffsetOutOfRangeException;
import kaenlog.log.ReadOnlyLogException;
import kaenlog.log.StorageException;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;

/**
 * DeleteRecords (key 21), v0..v2 (flexible from v2; kafka-clients 4.1.1's {@code deleteRecords}, which
 * Kafka Streams calls to purge its repartition topics once their records are processed). Request:
 * topics [name · partitions [partition_index · offset int64]] · timeout_ms. Response: throttle_time_ms ·
 * topics [name · partitions [partition_index · low_watermark int64 · error_code]].
 *
 * <p>Each partition's log start offset moves up to {@code offset} (-1: the high watermark), as Kafka's
 * {@code ReplicaManager.deleteRecords} does through {@code UnifiedLog.maybeIncrementLogStartOffset}
 * (chapter 3's {@link kaenlog.log.Log#advanceLogStartOffset}): the records below it are gone for every
 * reader, and the answer's low watermark is the new log start (with one replica, the lowest there is).
 * An offset past the high watermark, or below 0, is OFFSET_OUT_OF_RANGE and moves nothing; an offset
 * below the log start moves nothing and is answered with the log start. The broker's own topics
 * ({@code __...}) are INVALID_TOPIC_EXCEPTION, as Kafka refuses its internal topics; a partition that
 * does not exist is UNKNOWN_TOPIC_OR_PARTITION; an offline one KAFKA_STORAGE_ERROR. In chapter 10's
 * cluster only the partition's leader moves it (any other replica: NOT_LEADER_OR_FOLLOWER); its
 * followers take the new log start from their fetch answers. A broker that makes no such change
 * ({@link Leadership#topicChangeRefusal}) answers POLICY_VIOLATION. Every error is answered with low
 * watermark -1.
 */
public final class DeleteRecords {
    /** Kafka's {@code DeleteRecordsRequest.HIGH_WATERMARK}: delete everything a consumer may read. */
    public static final long HIGH_WATERMARK = -1;
    /** Kafka's {@code DeleteRecordsResponse.INVALID_LOW_WATERMARK}: the answer of a partition in error. */
    public static final long INVALID_LOW_WATERMARK = -1;

    public record PartitionRequest(int partition, long offset) {
    }

    public record TopicRequest(String name, List<PartitionRequest> partitions) {
    }

    public record PartitionAnswer(int partition, long lowWatermark, short errorCode) {
    }

    public record TopicAnswer(String name, List<PartitionAnswer> partitions) {
    }

    private DeleteRecords() {
    }

    public static List<TopicRequest> parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.DELETE_RECORDS.isFlexible(version);
        int count = CreateTopics.length(in, flexible, "topics");
        List<TopicRequest> topics = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            String name = CreateTopics.string(in, flexible, "topics.name");
            int partitionCount = CreateTopics.length(in, flexible, "partitions");
            List<PartitionRequest> partitions = new ArrayList<>();
            for (int p = 0; p < partitionCount; p++) {
                partitions.add(new PartitionRequest(in.int32("partition_index"), in.int64("offset")));
                CreateTopics.tags(in, flexible, "partition");
            }
            CreateTopics.tags(in, flexible, "topic");
            topics.add(new TopicRequest(name, partitions));
        }
        in.int32("timeout_ms");
        CreateTopics.tags(in, flexible, "DeleteRecords request");
        in.end("DeleteRecords v" + version + " request");
        return topics;
    }

    public static List<TopicAnswer> answer(List<TopicRequest> topics, Backend backend) throws IOException {
        List<TopicAnswer> answers = new ArrayList<>();
        for (TopicRequest t : topics) {
            List<PartitionAnswer> partitions = new ArrayList<>();
            for (PartitionRequest p : t.partitions()) {
                partitions.add(answerOne(t.name(), p, backend));
            }
            answers.add(new TopicAnswer(t.name(), partitions));
        }
        return answers;
    }

    private static PartitionAnswer answerOne(String topic, PartitionRequest p, Backend backend) throws IOException {
        short refused = Backend.nameError(topic, p.partition());
        if (refused != KafkaErrors.NONE) {
            return error(p, refused);
        }
        Leadership leadership = backend.leadership();
        if (leadership.topicChangeRefusal().isPresent()) {
            return error(p, TopicError.POLICY_VIOLATION.kafkaCode);
        }
        String name = Backend.partitionName(topic, p.partition());
        ErrorCode notLeader = leadership.readRefusal(name, FetchRequest.NO_LEADER_EPOCH);
        if (notLeader != ErrorCode.NONE) {
            return error(p, KafkaErrors.of(notLeader));
        }
        try {
            Optional<Partition> partition = backend.existingPartition(name);
            if (partition.isEmpty()) {
                return error(p, KafkaErrors.of(leadership.missingPartition(name)));
            }
            PartitionAnswer answer = partition.get().locked(log -> {
                long offset = p.offset() == HIGH_WATERMARK ? log.highWatermark() : p.offset();
                if (offset < 0) {
                    return error(p, KafkaErrors.OFFSET_OUT_OF_RANGE);
                }
                return new PartitionAnswer(p.partition(), log.advanceLogStartOffset(offset), KafkaErrors.NONE);
            });
            // The new log start is checkpointed (without the partition's lock) before it is answered:
            // an answered DeleteRecords survives a crash. A failure there takes the partition offline.
            partition.get().finishDeletions();
            return partition.get().isOffline() ? error(p, KafkaErrors.KAFKA_STORAGE_ERROR) : answer;
        } catch (OffsetOutOfRangeException pastTheHighWatermark) {
            return error(p, KafkaErrors.OFFSET_OUT_OF_RANGE);
        } catch (StorageException | ReadOnlyLogException offline) {
            return error(p, KafkaErrors.KAFKA_STORAGE_ERROR);
        } finally {
            backend.partitionsDone();
        }
    }

    private static PartitionAnswer error(PartitionRequest p, short code) {
        return new PartitionAnswer(p.partition(), INVALID_LOW_WATERMARK, code);
    }

    public static byte[] response(List<TopicAnswer> topics, short version) {
        boolean flexible = ApiKey.DELETE_RECORDS.isFlexible(version);
        KafkaWriter out = new KafkaWriter().int32(0); // throttle_time_ms
        CreateTopics.length(out, flexible, topics.size());
        for (TopicAnswer t : topics) {
            CreateTopics.string(out, flexible, t.name());
            CreateTopics.length(out, flexible, t.partitions().size());
            for (PartitionAnswer p : t.partitions()) {
                out.int32(p.partition()).int64(p.lowWatermark()).int16(p.errorCode());
                CreateTopics.tags(out, flexible);
            }
            CreateTopics.tags(out, flexible);
        }
        CreateTopics.tags(out, flexible);
        return out.toByteArray();
    }
}
