package kaenlog.wire;

/** A frame or message that does not decode: the connection that sent it is closed, the broker serves on. */
public final class MalformedMessageException extends RuntimeException {
    public MalformedMessageException(String message) {
        super(message);
    }
}
