package kaenlog.txn;

import java.io.IOException;

/**
 * A record of {@code __transaction_state} that does not decode: the coordinator does not take the
 * partition over (its transactions' states are unknown), and says which record it was.
 */
public final class CorruptTransactionLogException extends IOException {
    private final long offset;

    public CorruptTransactionLogException(long offset, String problem, Throwable cause) {
        super("the __transaction_state record at offset " + offset + " does not decode: " + problem, cause);
        this.offset = offset;
    }

    public long offset() {
        return offset;
    }
}
