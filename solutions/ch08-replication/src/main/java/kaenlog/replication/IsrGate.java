package kaenlog.replication;

import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import kaenlog.broker.ReplicaGate;
import kaenlog.wire.ErrorCode;

/**
 * Chapter 3's {@link ReplicaGate}, answered from the ISR: an acks=all write is done once the
 * leader's high watermark has passed it, and the ISR still has {@code min.insync.replicas}
 * members. It reads both live, so the same gate judges every pending write.
 *
 * <p>This is the <em>second</em> ISR check, after the append (Kafka's
 * {@code Partition.checkEnoughReplicasReachOffset}). The first one, before the append, is
 * {@link Cluster#produce}'s.
 */
public final class IsrGate implements ReplicaGate {
    private final LongSupplier highWatermark;
    private final IsrState isr;

    /** @param highWatermark the leader's high watermark, read at each question */
    public IsrGate(LongSupplier highWatermark, IsrState isr) {
        this.highWatermark = Objects.requireNonNull(highWatermark, "highWatermark");
        this.isr = Objects.requireNonNull(isr, "isr");
    }

    /**
     * Where a write whose records end just before {@code requiredOffset} (its last offset + 1)
     * stands now: NotYet, Committed, or NotEnoughReplicasAfterAppend.
     */
    public AckVerdict verdict(long requiredOffset) {
        // BEGIN-SOLUTION ch08 task 10: judge a write with the live HW and ISR (IsrGateTest)
        return AckVerdict.decide(requiredOffset, highWatermark.getAsLong(), isr.isr().size(), isr.minIsr());
        // END-SOLUTION
    }

    /**
     * Chapter 3's question: may the acks=all answer go out? Only for Committed. A boolean cannot
     * say "written, but too few replicas" (NotEnoughReplicasAfterAppend): ask {@link #verdict} for that.
     */
    /** Chapter 3's waiting produce is answered by the verdict: NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND; NotYet waits. */
    @Override
    public Optional<ErrorCode> answer(long requiredOffset) {
        return verdict(requiredOffset).errorCode();
    }

    @Override
    public boolean checkEnoughReplicasReached(long requiredOffset) {
        // BEGIN-SOLUTION ch08 task 10: only a Committed write may be answered (IsrGateTest)
        return verdict(requiredOffset) == AckVerdict.COMMITTED;
        // END-SOLUTION
    }
}
