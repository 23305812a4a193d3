package kaenlog.broker;

/**
 * Thrown by a handler when the only answer is to close the connection. Kafka does this for an
 * acks=0 produce that failed: the producer reads no responses, so a closed connection is the only
 * way to tell it something went wrong.
 */
public final class CloseConnectionException extends RuntimeException {
    public CloseConnectionException(String reason) {
        super(reason);
    }
}
