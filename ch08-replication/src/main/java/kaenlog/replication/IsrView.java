package kaenlog.replication;

import java.util.Map;
import java.util.SortedSet;

/**
 * What the high watermark rule reads of a leader's ISR ({@link Cluster#recomputeHw(Replica, IsrView)}):
 * each follower's LEO as last reported, the maximal ISR, and {@code min.insync.replicas}. Chapter
 * 8's {@link IsrState} is one; chapter 10's leader is another, whose maximal ISR is the one it
 * writes to ZooKeeper.
 */
public interface IsrView {
    /** Each follower's LEO as last reported; a follower that has not fetched yet has no entry. */
    Map<Integer, Long> followerLeos();

    /** The members the HW waits for, the leader included. */
    SortedSet<Integer> maximalIsr();

    /** {@code min.insync.replicas}. */
    int minIsr();
}
