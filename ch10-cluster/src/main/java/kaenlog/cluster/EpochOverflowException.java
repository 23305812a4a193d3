package kaenlog.cluster;

/** An epoch at {@link Integer#MAX_VALUE} asked for the next one: epochs never wrap ({@link Epochs}). */
public final class EpochOverflowException extends IllegalStateException {
    public EpochOverflowException(String message) {
        super(message);
    }
}
