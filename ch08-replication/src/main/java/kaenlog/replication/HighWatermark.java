package kaenlog.replication;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import kaenlog.workbook.Todo;

/**
 * The high watermark rule as two pure functions: no clock, no log, no mutable state.
 *
 * <p>The high watermark (HW) is an <em>exclusive</em> ceiling: the records at offsets below it
 * are committed, the record at the HW itself is not. With a second replica it stops following the
 * leader's log end and becomes the smallest log end offset (LEO) among the members of the
 * maximal ISR, the leader's own LEO included (Kafka: {@code Partition.maybeIncrementLeaderHW},
 * which starts from {@code leaderLogEndOffset} and only ever lowers the candidate).
 *
 * <p>The work is split in two on purpose. {@link #advanceHw} has no parameter for the current
 * HW, so it cannot know whether its answer goes backwards: it only <em>proposes</em>.
 * {@link #nextHighWatermark} is the caller's rule that the HW never moves back. And neither takes
 * a clock: the only code of this chapter that compares times is {@link IsrState#shrinkIsr}.
 */
public final class HighWatermark {
    private HighWatermark() {
    }

    /**
     * Proposes a high watermark, or nothing when the HW must not move.
     *
     * <p>Empty in two cases. (1) The ISR has fewer than {@code minIsr} members: below
     * {@code min.insync.replicas} Kafka does not advance the HW at all ({@code isUnderMinIsr}
     * returns first, and it counts the <em>committed</em> ISR; only the search for the smallest LEO
     * runs over the maximal one). kaen-log's one set is both, so both use {@code maximalIsr}. (2) A follower in the maximal ISR has no known LEO yet (it has not fetched
     * since this leader took over): Kafka keeps such a replica at {@code UnknownOffset} (-1), which
     * pulls the candidate below any real HW, so nothing can advance until it fetches. kaen-log says
     * "no proposal" instead of carrying a -1.
     *
     * @param leaderId     the leader's replica id; it must be a member of {@code maximalIsr}
     * @param leaderLeo    the leader's own log end offset (the next offset it will assign)
     * @param followerLeos what the leader has learned of each follower's LEO, from the fetch
     *                     offsets of their requests; followers outside the ISR are ignored
     * @param maximalIsr   the in-sync set, the leader included
     * @param minIsr       {@code min.insync.replicas}
     */
    public static OptionalLong advanceHw(int leaderId, long leaderLeo, Map<Integer, Long> followerLeos,
            Set<Integer> maximalIsr, int minIsr) {
        requireInputs(leaderId, leaderLeo, followerLeos, maximalIsr, minIsr);
        throw new Todo("ch08 task 1: propose the minimum LEO of the maximal ISR (AdvanceHwTest)");
    }

    /**
     * The caller's rule: the high watermark never moves backwards. A proposal below the current
     * HW (an ISR member that truncated, a follower that rejoined behind) leaves it where it is;
     * no proposal leaves it where it is.
     */
    public static long nextHighWatermark(long current, OptionalLong proposal) {
        if (current < 0) {
            throw new IllegalArgumentException("current high watermark must be >= 0, got " + current);
        }
        throw new Todo("ch08 task 1: never move the high watermark backwards (AdvanceHwTest)");
    }

    private static void requireInputs(int leaderId, long leaderLeo, Map<Integer, Long> followerLeos,
            Set<Integer> maximalIsr, int minIsr) {
        Objects.requireNonNull(followerLeos, "followerLeos");
        Objects.requireNonNull(maximalIsr, "maximalIsr");
        if (leaderLeo < 0) {
            throw new IllegalArgumentException("leaderLeo must be >= 0 (an empty log has LEO 0), got " + leaderLeo);
        }
        if (minIsr < 1) {
            throw new IllegalArgumentException("minIsr must be >= 1, got " + minIsr);
        }
        if (!maximalIsr.contains(leaderId)) {
            throw new IllegalArgumentException("maximalIsr " + maximalIsr + " must contain the leader " + leaderId);
        }
        followerLeos.forEach((id, leo) -> {
            if (leo != null && leo < 0) {
                throw new IllegalArgumentException("followerLeos[" + id + "] must be >= 0, got " + leo);
            }
        });
    }
}
