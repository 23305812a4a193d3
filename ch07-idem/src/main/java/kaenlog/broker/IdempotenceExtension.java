package kaenlog.broker;

import java.util.Optional;
import kaenlog.log.Log;
import kaenlog.wire.PartitionNames;

/**
 * Chapter 7 in the running broker beside its request handlers: every partition's log gets its
 * producer state and the idempotent append ({@link IdempotentAppendHook}) when the broker opens it,
 * so whatever appends to the log as its leader is judged, whichever handler or listener it came from.
 * The broker's own partitions ({@code __...}) get none: only the broker writes them (a client may not
 * produce there, {@link ClientRules}), never an idempotent producer.
 */
public final class IdempotenceExtension implements BrokerExtension {
    @Override
    public Optional<Log.AppendHook> appendHook(String partition) {
        return PartitionNames.isInternal(partition) ? Optional.empty() : Optional.of(new IdempotentAppendHook());
    }
}
