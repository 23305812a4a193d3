package kaenlog.cluster;

import java.io.IOException;
import java.util.Optional;
import java.util.OptionalInt;
import kaenlog.replication.EpochEndOffset;
import kaenlog.replication.Replica;
import kaenlog.workbook.Todo;

/**
 * What a follower does before its first fetch from a new leader (KIP-279, Kafka's
 * {@code AbstractFetcherThread.getOffsetTruncationState}): it reconciles its log with the leader's
 * BY EPOCH, never by its high watermark (KIP-101), and in as many rounds as it takes. Chapter 8's
 * one round asks "where does my latest epoch end?" and cuts there; that is enough when both logs
 * hold that epoch. After fast leader changes (A, then B, then A again) the follower may hold an
 * epoch the leader never had: the leader answers with the largest epoch it has below it, which
 * the follower may not hold either; the follower then cuts back to where ITS epochs below that
 * end, and asks again, until both hold the epoch answered.
 */
public final class EpochTruncation {
    /** The leader's side of OffsetsForLeaderEpoch: the largest epoch {@code <=} the one asked, and its end. */
    @FunctionalInterface
    public interface Leader {
        Optional<EpochEndOffset> endOffsetForEpoch(int epoch) throws IOException;
    }

    /** Where the follower's log ended up, and how many questions it asked the leader. */
    public record Result(long truncatedTo, int rounds) {
    }

    /** Bounds the rounds: each round cuts the follower's epochs, so a log of n epochs needs at most n. */
    static final int MAX_ROUNDS = 1_000;

    private EpochTruncation() {
    }

    /**
     * Cuts {@code follower}'s log to the last offset it shares with {@code leader}. An empty log has
     * nothing to cut; an undefined answer (the leader has no epoch at or below the follower's)
     * falls back to the follower's high watermark, as Kafka's follower does.
     */
    public static Result truncate(Replica follower, Leader leader) throws IOException {
        throw new Todo("ch10 task 7: KIP-279: ask, cut to the epoch both hold, ask again (EpochTruncationTest)");
    }
}
