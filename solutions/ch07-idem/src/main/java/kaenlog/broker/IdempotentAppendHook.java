package kaenlog.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import kaenlog.batch.BatchHeader;
import kaenlog.idem.Idempotence;
import kaenlog.idem.IdempotentAppend;
import kaenlog.idem.ProducerState;
import kaenlog.idem.ProducerStateEntry;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.wire.ErrorCode;

/**
 * One log's producer state and the step it puts in front of the log's appends: every batch goes
 * through {@link Idempotence#appendIdempotent}, under the partition's lock, so the verdict and the
 * write are one step. In Kafka the log owns its producer state ({@code UnifiedLog}'s
 * {@code ProducerStateManager}); here the log holds this hook, made anew each time the broker opens
 * the partition, and the state is rebuilt from the active segment at the first append after that.
 */
public final class IdempotentAppendHook implements Log.AppendHook {
    private ProducerState state;

    /**
     * APPEND and DUPLICATE are both answered with the batch's offsets (for a duplicate, the first
     * write's, and nothing is written); OUT_OF_ORDER_SEQUENCE_NUMBER refuses the batch. A batch
     * without a producer id is appended as chapter 3 would.
     */
    @Override
    public AppendInfo append(Log log, ByteBuffer batch) throws IOException {
        if (isControlBatch(batch)) {
            return log.append(log.validate(batch));
        }
        if (state == null) {
            state = rebuilt(log);
        }
        IdempotentAppend result = Idempotence.appendIdempotent(log, state, batch);
        if (!result.succeeded()) {
            throw new ProduceRefusedException(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, String.valueOf(result.verdict()));
        }
        return new AppendInfo(result.baseOffset(), result.lastOffset(),
                Math.toIntExact(result.lastOffset() - result.baseOffset() + 1));
    }

    /**
     * The windows rebuilt from the active segment's data batches: a control batch (chapter 11's
     * marker, sequence -1) is no slot of its producer's window here either, as it is none when it is
     * appended ({@link #append}); taken as one, it would make the producer's next sequence 0 after
     * a restart. Chapter 7's own logs hold no control batch.
     */
    private static ProducerState rebuilt(Log log) throws IOException {
        return Idempotence.rebuildProducerState(log.activeSegment().headers().stream()
                .filter(header -> !header.isControl()).toList());
    }

    /**
     * A control batch (attributes bit 0x20) is a transaction's end marker, written by chapter 11's
     * coordinator, never by a client (chapter 3's {@link ClientRules} refuses those): it carries the
     * producer's id and epoch but no sequence number (-1), so it is appended unjudged and the window
     * is left as it was, as Kafka's ProducerAppendInfo takes a control batch apart from the sequence
     * checks of a data batch. What a marker does to a producer's transaction is chapter 11's.
     */
    private static boolean isControlBatch(ByteBuffer batch) {
        int at = batch.position() + BatchHeader.ATTRIBUTES_OFFSET;
        return batch.limit() >= at + Short.BYTES && (batch.getShort(at) & BatchHeader.CONTROL_FLAG_MASK) != 0;
    }

    /**
     * Chapter 11's seam: a producer fenced and given a newer epoch by the transaction coordinator
     * starts that epoch on this log at sequence 0, so its window here is forgotten
     * ({@link ProducerState#restart}). Chapter 11 decides when (Kafka's {@code checkProducerEpoch});
     * chapter 7's own producers never change epoch.
     */
    public void newEpoch(Log log, long producerId, short producerEpoch) throws IOException {
        if (state == null) {
            state = rebuilt(log);
        }
        state.restart(producerId, producerEpoch);
    }

    /**
     * Chapter 10's follower copied a batch the leader judged and wrote: the window learns it without
     * judging it again (the leader's verdict was final), as Kafka's follower updates its producer
     * state on every append. So a producer that retries to this broker once it leads is answered
     * DUPLICATE with the offsets the old leader gave, even if the batch has rolled out of the active
     * segment since. A state not built yet is built now, from the active segment, which already
     * holds this batch.
     */
    @Override
    public void appendedAsFollower(Log log, BatchHeader header) throws IOException {
        if (state == null) {
            state = rebuilt(log);
            return;
        }
        if (header.hasProducerId() && !header.isControl()) {
            ProducerStateEntry entry = state.entry(header.producerId(), header.producerEpoch());
            entry.setProducerEpoch(header.producerEpoch());
            entry.record(Idempotence.metadataOf(header));
        }
    }

    /**
     * The log was cut back (a follower truncating to its leader, chapter 10): the window may name
     * batches that are gone, so it is rebuilt from what the log holds at the next append, as Kafka
     * reloads its producer state after a truncation.
     */
    @Override
    public void truncated(Log log) {
        state = null;
    }
}
