package kaenlog.broker;

import java.nio.ByteBuffer;
import java.util.List;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.RecordBatch;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.PartitionNames;

/**
 * What a client may ask of the broker, checked before a partition is opened or a byte is written.
 * Every refusal is an error answer naming what was wrong; the connection lives on.
 *
 * <ul>
 * <li>A partition name that is not one ({@link PartitionNames#problem}): INVALID_PARTITION_NAME
 *     (Kafka: INVALID_TOPIC_EXCEPTION).</li>
 * <li>The broker's own partitions ({@code __...}): INTERNAL_PARTITION. Kafka's ReplicaManager refuses
 *     a client's append to an internal topic ("Cannot append to internal topic"); kaen-log refuses
 *     fetches too, since chapter 7's producer ids are nobody's business.</li>
 * <li>A batch flagged control (0x20) or transactional (0x10): INVALID_RECORD. Kafka's LogValidator
 *     refuses client control batches ("Clients are not allowed to write control records"); until a
 *     chapter builds transactions ({@link BrokerExtension#takesTransactionalBatches}, chapter 11) a
 *     transactional batch would be a commit nobody can make, so it is refused too.</li>
 * </ul>
 */
public final class ClientRules {
    private ClientRules() {
    }

    /** Why a client's produce of {@code records} to {@code partition} is refused, or NONE. */
    public static ErrorCode produceRefusal(String partition, ByteBuffer records) {
        ErrorCode name = nameRefusal(partition);
        if (name != ErrorCode.NONE) {
            return name;
        }
        return hasBrokerOnlyFlags(records) ? ErrorCode.INVALID_RECORD : ErrorCode.NONE;
    }

    /** Why a client's fetch from {@code partition} (or any request naming it) is refused, or NONE. */
    public static ErrorCode nameRefusal(String partition) {
        if (PartitionNames.problem(partition) != null) {
            return ErrorCode.INVALID_PARTITION_NAME;
        }
        return PartitionNames.isInternal(partition) ? ErrorCode.INTERNAL_PARTITION : ErrorCode.NONE;
    }

    /**
     * True when a batch carries the control or transactional flag. Bytes that do not split into
     * batches are left to the log's own checks (CORRUPT_BATCH).
     */
    static boolean hasBrokerOnlyFlags(ByteBuffer records) {
        short brokerOnly = (short) (BatchHeader.CONTROL_FLAG_MASK
                | (Transactions.TAKEN ? 0 : BatchHeader.TRANSACTIONAL_FLAG_MASK));
        List<ByteBuffer> batches;
        try {
            batches = RecordBatch.sliceAll(records);
        } catch (CorruptBatchException notBatches) {
            return false;
        }
        for (ByteBuffer batch : batches) {
            if (batch.remaining() < BatchHeader.ATTRIBUTES_OFFSET + 2) {
                return false;
            }
            short attributes = batch.getShort(batch.position() + BatchHeader.ATTRIBUTES_OFFSET);
            if ((attributes & brokerOnly) != 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether a chapter on the classpath builds transactions (asked once: the classpath does not change). */
    private static final class Transactions {
        static final boolean TAKEN = BrokerExtension.load().stream()
                .anyMatch(BrokerExtension::takesTransactionalBatches);
    }
}
