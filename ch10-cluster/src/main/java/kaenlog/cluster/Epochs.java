package kaenlog.cluster;

/**
 * An epoch only grows (given code). Every fence of the cluster compares epochs: a broker ignores a
 * state whose leader epoch is not newer than the last it acted on, a leader refuses a fetch from an
 * older epoch, and KIP-380's broker epochs and the controller's epoch are compared the same way. An
 * int that wraps past {@link Integer#MAX_VALUE} becomes {@link Integer#MIN_VALUE}, the OLDEST of
 * epochs: the newest state would then be ignored by every broker, for ever. So the epoch after the
 * largest is refused ({@link EpochOverflowException}), never wrapped, and an epoch read from
 * ZooKeeper at that largest value can no longer grow: it is refused as a value to build on.
 */
public final class Epochs {
    private Epochs() {
    }

    /** The epoch after {@code epoch}; at {@link Integer#MAX_VALUE}, an {@link EpochOverflowException} naming {@code which}. */
    public static int next(int epoch, String which) {
        if (epoch == Integer.MAX_VALUE) {
            throw new EpochOverflowException(which + " " + epoch + " is at its maximum: it cannot grow, and a wrapped"
                    + " epoch (" + Integer.MIN_VALUE + ") would be older than every other");
        }
        return epoch + 1;
    }

    /** True for an epoch a new one can still follow: at least 0, below the largest. */
    public static boolean canGrow(int epoch) {
        return epoch >= 0 && epoch < Integer.MAX_VALUE;
    }
}
