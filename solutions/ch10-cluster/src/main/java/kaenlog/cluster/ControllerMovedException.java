package kaenlog.cluster;

/**
 * A controller write refused because {@code /controller_epoch} moved on: another broker is the
 * controller now (Kafka's {@code ControllerMovedException}). The writer must stop acting as
 * controller.
 */
public final class ControllerMovedException extends Exception {
    public ControllerMovedException(String message) {
        super(message);
    }
}
