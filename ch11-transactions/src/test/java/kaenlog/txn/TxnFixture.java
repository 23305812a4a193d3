package kaenlog.txn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * A coordinator of every {@code __transaction_state} partition, each partition's log in memory, its
 * producer ids from 1000 on, its markers held until delivered.
 */
final class TxnFixture {
    static final long T0 = 1_700_000_000_000L;
    static final int TIMEOUT_MS = 60_000;
    static final String ID = "orders-app";
    static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    static final TopicPartition PAYMENTS_0 = new TopicPartition("payments", 0);

    final Map<Integer, MemoryStateLog> logs = new TreeMap<>();
    /** What every log wrote, in the order written: "id state". */
    final List<String> journal = new ArrayList<>();
    final HeldMarkers markers = new HeldMarkers();
    long nextProducerId = 1000;
    TransactionCoordinator coordinator;

    private final TxnConfig config;

    TxnFixture() throws IOException {
        this(TxnConfig.defaults());
    }

    TxnFixture(TxnConfig config) throws IOException {
        this.config = config;
        start();
    }

    /** A new coordinator over the same logs (the old one's memory gone, as after a crash), every partition loaded. */
    TransactionCoordinator start() throws IOException {
        coordinator = new TransactionCoordinator(config, () -> nextProducerId++, markers,
                TransactionCoordinator::kafkaOffsetsPartition);
        for (int p = 0; p < TxnConfig.DEFAULT_STATE_LOG_PARTITIONS; p++) {
            coordinator.load(p, 0, log(p), T0);
        }
        return coordinator;
    }

    MemoryStateLog log(int partition) {
        return logs.computeIfAbsent(partition, p -> new MemoryStateLog(journal));
    }

    /** The log of {@code transactionalId}'s partition. */
    MemoryStateLog logOf(String transactionalId) {
        return log(coordinator.partitionFor(transactionalId));
    }

    InitProducerIdResult init(String id, long nowMs) {
        return coordinator.initProducerId(new InitProducerIdRequest(id, TIMEOUT_MS), nowMs);
    }

    TxnError add(String id, InitProducerIdResult producer, long nowMs, TopicPartition... partitions) {
        return coordinator.addPartitions(new AddPartitionsRequest(id, producer.producerId(), producer.producerEpoch(),
                Set.of(partitions)), nowMs);
    }

    TxnError end(String id, InitProducerIdResult producer, TransactionResult result, long nowMs) {
        return coordinator.endTxn(new EndTxnRequest(id, producer.producerId(), producer.producerEpoch(), result), nowMs);
    }

    TxnTransit state(String id) {
        return coordinator.transaction(id).orElseThrow(() -> new AssertionError("no state for " + id));
    }
}
