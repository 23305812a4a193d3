package kaenlog.txn;

import java.util.Set;
import kaenlog.wire.PartitionNames.TopicPartition;

/** AddPartitionsToTxn: before its first record to a partition, a transactional producer adds it to its transaction. */
public record AddPartitionsRequest(String transactionalId, long producerId, short producerEpoch,
                                   Set<TopicPartition> partitions) {
    public AddPartitionsRequest {
        partitions = Set.copyOf(partitions);
    }
}
