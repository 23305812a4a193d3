package kaenlog.txn;

/**
 * Where a cluster member's transactional ids are coordinated (given code): chapter 10's cluster
 * places them ({@code kaenlog.cluster.ClusterTransactionCoordination}) and the Kafka port asks here.
 * A transactional id's coordinator is the leader of its {@code __transaction_state} partition
 * ({@code Utils.abs(transactionalId.hashCode()) % partitions}, Kafka's
 * {@code TransactionStateManager.partitionFor}); a broker alone coordinates every id itself
 * ({@link LocalTransactions}) and has no placement.
 */
public interface TxnPlacement {
    /**
     * FindCoordinator: the live broker leading {@code transactionalId}'s partition, or -1 while none
     * does (the topic is created then, if it is missing: COORDINATOR_NOT_AVAILABLE, which the client retries).
     */
    int coordinatorId(String transactionalId);

    /**
     * Whether this broker answers {@code transactionalId}'s requests now (Kafka's
     * {@code TransactionStateManager.getTransactionState}): COORDINATOR_LOAD_IN_PROGRESS while its partition
     * loads, NOT_COORDINATOR when another broker leads it, else NONE.
     */
    TxnError status(String transactionalId);

    /** The coordinator of the partitions this broker leads. */
    TransactionCoordinator coordinator();
}
