package kaenlog.txn;

import kaenlog.batch.ControlRecordType;

/** How a transaction ends (Kafka's {@code TransactionResult}), and the marker that says so in the log. */
public enum TransactionResult {
    ABORT(ControlRecordType.ABORT),
    COMMIT(ControlRecordType.COMMIT);

    private final ControlRecordType markerType;

    TransactionResult(ControlRecordType markerType) {
        this.markerType = markerType;
    }

    public ControlRecordType markerType() {
        return markerType;
    }
}
