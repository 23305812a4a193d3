package kaenlog.cluster;

import org.apache.zookeeper.Op;

/**
 * What a broker holds while it is the controller: the epoch it bumped {@code /controller_epoch} to
 * when it won, and the version of {@code /controller_epoch} that bump left. Every write it makes
 * carries {@link #fence()}: a check that {@code /controller_epoch} is still at that version, so a
 * controller that lost its session without knowing it (a zombie) writes nothing once another
 * has won.
 */
public record ControllerEpoch(int brokerId, int epoch, int zkVersion) {
    /** The check every controller write starts with (Kafka's {@code checkControllerAndEpoch}). */
    public Op fence() {
        return Op.check(ZNodes.CONTROLLER_EPOCH, zkVersion);
    }
}
