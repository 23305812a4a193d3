package kaenlog.kafkawire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import kaenlog.wire.ProduceRequest;
import kaenlog.workbook.Todo;

/**
 * Produce (key 0), v0..v8: transactional_id nullable string (v3+) · acks int16 · timeout_ms int32 ·
 * topic_data [name string · partition_data [index int32 · records nullable bytes]]. Every partition's
 * records are handed to kaen-log's own produce handler (chapter 7's), one kaen-log request object per
 * partition ({@link Backend#produce}).
 *
 * <p>v0 to v2 are answered for librdkafka's sake ({@link ApiKey}): no client of today sends them, and
 * their records must be a RecordBatch v2 like any other version's (Kafka 0.11 to 3.9 took that in
 * them too); a message set of the formats before it (magic 0 or 1) is refused as corrupt, since
 * kaen-log converts nothing.
 *
 * <p>Only a partition that exists is written: unlike kaen-log's own port (chapter 3's produce creates
 * what it names), Kafka creates partitions by CreateTopics or Metadata's auto-create alone.
 */
public final class Produce {

    public record PartitionData(int index, ByteBuffer records) {
    }

    public record TopicData(String name, List<PartitionData> partitions) {
    }

    public record Request(String transactionalId, short acks, int timeoutMs, List<TopicData> topics) {
    }

    public record PartitionResponse(int index, short errorCode, long baseOffset, long logStartOffset) {
    }

    public record TopicResponse(String name, List<PartitionResponse> partitions) {
    }

    private Produce() {
    }

    /**
     * Reads a v0..v8 request: one layout (classic types only), transactional_id from v3 on. topic_data and
     * each topic's partition_data may not be null: a count of -1 is refused, as Kafka refuses it.
     */
    public static Request parse(KafkaReader in, short version) {
        throw new Todo("ch09 task 5: parse a Produce request, v0..v8 (ProduceRequestTest)");
    }

    /**
     * Writes every partition's records through kaen-log's produce handler and answers in Kafka's
     * terms. acks=0 is never answered, as in Kafka.
     */
    public static Optional<List<TopicResponse>> answer(Request request, Backend backend) throws IOException {
        throw new Todo("ch09 task 6: hand each partition to kaen-log's produce, answer in Kafka's codes (RealClientsTest)");
    }

    /**
     * One partition: what its name tells at once (a name Kafka refuses, the broker's own partitions,
     * records missing), else the backend's produce with one lookup of the partition, answered in
     * Kafka's codes.
     */
    private static Optional<PartitionResponse> answerOne(Request request, String topic, PartitionData data,
                                                         Backend backend) throws IOException {
        short nameError = Backend.nameError(topic, data.index());
        if (nameError != KafkaErrors.NONE) {
            return Optional.of(error(data.index(), nameError));
        }
        if (data.records() == null) {
            return Optional.of(error(data.index(), KafkaErrors.CORRUPT_MESSAGE));
        }
        return backend.produce(Backend.partitionName(topic, data.index()), request.acks(), request.timeoutMs(),
                data.records()).map(r -> new PartitionResponse(data.index(), r.errorCode(), r.baseOffset(),
                        r.logStartOffset()));
    }

    private static PartitionResponse error(int index, short code) {
        return new PartitionResponse(index, code, -1, -1);
    }

    /**
     * The response in {@code version}'s layout (v1 adds throttle_time_ms, v2 log_append_time_ms, v5
     * log_start_offset, v8 the per-batch errors).
     */
    public static byte[] response(List<TopicResponse> topics, short version) {
        KafkaWriter out = new KafkaWriter().arrayLength(topics.size());
        for (TopicResponse topic : topics) {
            out.nullableString(topic.name()).arrayLength(topic.partitions().size());
            for (PartitionResponse p : topic.partitions()) {
                out.int32(p.index()).int16(p.errorCode()).int64(p.baseOffset());
                if (version >= 2) {
                    out.int64(-1); // log_append_time_ms: -1, the records keep their CreateTime
                }
                if (version >= 5) {
                    out.int64(p.logStartOffset());
                }
                if (version >= 8) {
                    out.arrayLength(0).nullableString(null); // record_errors, error_message
                }
            }
        }
        if (version >= 1) {
            out.int32(0); // throttle_time_ms
        }
        return out.toByteArray();
    }
}
