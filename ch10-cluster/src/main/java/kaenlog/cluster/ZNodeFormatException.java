package kaenlog.cluster;

/**
 * A znode's bytes are not what its codec reads (given): not JSON, a field missing or of the wrong
 * type, a number out of range, an endpoint that is not {@code NAME://host:port}. Anyone who can
 * reach ZooKeeper can write a znode, so its bytes are read as a request is: this is the one way
 * they may be refused, with a message naming the field (the text it quotes is cut and escaped,
 * {@link Json#quote}). An IllegalArgumentException, as a malformed value is.
 */
public final class ZNodeFormatException extends IllegalArgumentException {
    public ZNodeFormatException(String message) {
        super(message);
    }
}
