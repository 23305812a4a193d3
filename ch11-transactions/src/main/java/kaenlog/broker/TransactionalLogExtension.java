package kaenlog.broker;

import java.util.Optional;
import kaenlog.log.Log;

/**
 * Chapter 11's log side in the running broker: every partition that has chapter 7's producer state
 * (a client's partition, not the broker's own {@code __...} ones) gets its transactions around it
 * ({@link TransactionalAppendHook}), so a read_committed fetch on either port reads up to the last
 * stable offset and learns the aborted transactions of what it read.
 */
public final class TransactionalLogExtension implements BrokerExtension {
    /** A transactional producer's batches are taken: this chapter ends their transactions. */
    @Override
    public boolean takesTransactionalBatches() {
        return true;
    }

    @Override
    public Optional<Log.AppendHook> wrapAppendHook(String partition, Log.AppendHook inner) {
        return Optional.of(new TransactionalAppendHook(inner));
    }
}
