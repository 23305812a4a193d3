package kaenlog.broker;

import java.util.Optional;
import kaenlog.log.Log;

/**
 * Chapter 7 in the running broker beside its request handlers: every partition's log gets its
 * producer state and the idempotent append ({@link IdempotentAppendHook}) when the broker opens it,
 * so whatever appends to the log as its leader is judged, whichever handler or listener it came from.
 */
public final class IdempotenceExtension implements BrokerExtension {
    @Override
    public Optional<Log.AppendHook> appendHook(String partition) {
        return Optional.of(new IdempotentAppendHook());
    }
}
