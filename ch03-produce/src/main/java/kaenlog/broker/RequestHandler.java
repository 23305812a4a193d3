package kaenlog.broker;

import java.io.IOException;
import java.util.Optional;
import kaenlog.wire.ApiKeys;

/**
 * Answers one kind of request (one {@link kaenlog.wire.ApiKeys apiKey}). The broker finds its
 * handlers with {@code ServiceLoader} ({@code META-INF/services/kaenlog.broker.RequestHandler}), so a
 * later chapter adds or replaces one without touching the broker: chapter 7 registers an idempotent
 * produce handler with a higher {@link #priority()} than chapter 3's, and a handler for its own
 * key 2 (INIT_PRODUCER_ID). Per apiKey, the highest priority wins. Every key must be in chapter 3's
 * table ({@link kaenlog.wire.ApiKeys}); the broker refuses to start otherwise.
 *
 * <p>A handler runs on the connection's own thread and may block (a parked fetch waits there, see
 * {@link BrokerContext#await}). Whatever it throws closes that connection only: a
 * {@link kaenlog.wire.MalformedMessageException} for a body that does not decode, a
 * {@link CloseConnectionException} when closing is the answer.
 */
public interface RequestHandler {
    /** The request type this handler answers. */
    short apiKey();

    /**
     * The chapter whose code this is, for the broker's start-up lines: by default the chapter that
     * adds the key in {@link kaenlog.wire.ApiKeys}; a handler replacing another chapter's says its own.
     */
    default int chapter() {
        return ApiKeys.of(apiKey()).map(ApiKeys.ApiKey::chapter).orElse(0);
    }

    /** Chapter 3's handlers are 0; a chapter that replaces one registers a higher number. */
    default int priority() {
        return 0;
    }

    /**
     * Answers a request's body (what follows apiKey and correlationId). Returns the response body
     * (the broker puts the correlationId in front), or empty when no answer is sent (acks=0).
     */
    Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException;
}
