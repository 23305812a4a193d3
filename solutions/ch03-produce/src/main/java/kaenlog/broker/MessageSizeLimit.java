package kaenlog.broker;

import java.nio.ByteBuffer;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.RecordBatch;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.ProduceRequest;

/**
 * {@code message.max.bytes}: the largest record batch a produce may carry, the broker's value or a
 * partition's own {@code max.message.bytes} (Kafka's topic config; set for one partition, or for
 * every partition with {@code --config}, it wins over the broker's). Kafka checks each batch of a
 * produce ({@code UnifiedLog.analyzeAndValidateRecords}: RecordTooLargeException) and answers that
 * partition MESSAGE_TOO_LARGE; a kafka-clients producer then splits a batch of several records and
 * retries, and fails a single record too large at once with RecordTooLargeException. Here the answer
 * is BATCH_TOO_LARGE, Kafka's MESSAGE_TOO_LARGE (10) on its port.
 */
public final class MessageSizeLimit {
    private MessageSizeLimit() {
    }

    /** The largest batch {@code partition} accepts. */
    public static long maxMessageBytes(PartitionConfigs configs, String partition) {
        if (!configs.has(LogConfigKeys.MESSAGE_MAX_BYTES)) {
            return LogConfigKeys.DEFAULT_MESSAGE_MAX_BYTES; // a broker assembled without chapter 3's keys
        }
        if (configs.source(partition, LogConfigKeys.MAX_MESSAGE_BYTES) != PartitionConfigs.Source.DEFAULT) {
            return Long.parseLong(configs.value(partition, LogConfigKeys.MAX_MESSAGE_BYTES));
        }
        return configs.brokerLong(LogConfigKeys.MESSAGE_MAX_BYTES);
    }

    /** BATCH_TOO_LARGE when a batch of the produce is over the partition's limit, else NONE. */
    static ErrorCode refusal(ProduceRequest request, PartitionConfigs configs) {
        long max = maxMessageBytes(configs, request.partition());
        if (request.records().remaining() <= max) {
            return ErrorCode.NONE;
        }
        try {
            for (ByteBuffer batch : RecordBatch.sliceAll(request.records())) {
                if (batch.remaining() > max) {
                    return ErrorCode.BATCH_TOO_LARGE;
                }
            }
        } catch (CorruptBatchException notBatches) {
            return ErrorCode.NONE; // the append answers CORRUPT_BATCH
        }
        return ErrorCode.NONE;
    }
}
