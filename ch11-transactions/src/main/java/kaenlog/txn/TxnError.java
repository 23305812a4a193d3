package kaenlog.txn;

/**
 * What the transaction coordinator answers, with Kafka's error codes (Kafka's {@code Errors}): the
 * Kafka port (chapter 9's listener) sends the code as it is. Only the errors the coordinator
 * itself gives are here.
 */
public enum TxnError {
    NONE(0),
    /** Something the coordinator did not expect (Kafka answers an exception thrown while handling a request so). */
    UNKNOWN_SERVER_ERROR(-1),
    /** The coordinator cannot answer yet: retriable (Kafka's producer id manager has no block of ids). */
    COORDINATOR_LOAD_IN_PROGRESS(14),
    /** A write to {@code __transaction_state} did not reach enough replicas: retriable. */
    COORDINATOR_NOT_AVAILABLE(15),
    /** This broker does not coordinate the id's {@code __transaction_state} partition (any more): find the coordinator again. */
    NOT_COORDINATOR(16),
    INVALID_REQUEST(42),
    /** PRODUCER_FENCED as the requests' older versions answer it (InitProducerId v0-3, the others v0-1). */
    INVALID_PRODUCER_EPOCH(47),
    /** The request does not fit the transaction's state (commit after an abort, end with nothing begun). */
    INVALID_TXN_STATE(48),
    /** The producer id is not the one the transactional id has. */
    INVALID_PRODUCER_ID_MAPPING(49),
    /** The transaction timeout is not in 1..transaction.max.timeout.ms. */
    INVALID_TRANSACTION_TIMEOUT(50),
    /** The id's last transaction is still being ended: retry. */
    CONCURRENT_TRANSACTIONS(51),
    /** A newer producer with the same transactional id exists: this one is a zombie. */
    PRODUCER_FENCED(90);

    private final short code;

    TxnError(int code) {
        this.code = (short) code;
    }

    public short code() {
        return code;
    }
}
