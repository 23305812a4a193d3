package kaenlog.idem;

import kaenlog.workbook.Todo;

/**
 * What the broker remembers about one batch a producer wrote: four numbers, whatever the batch's size.
 *
 * <p>Kafka 4.1.1 keeps exactly these four fields in its {@code BatchMetadata} class
 * (storage/.../internals/log/BatchMetadata.java: {@code public final int lastSeq, long lastOffset,
 * int offsetDelta, long timestamp}) and, like this record, derives the first sequence and the first
 * offset instead of storing them. A batch of one record and a batch of a thousand cost the same.
 *
 * @param lastSeq     sequence number of the batch's last record
 * @param lastOffset  log offset of the batch's last record
 * @param offsetDelta records in the batch minus one (the header's lastOffsetDelta, chapter 1)
 * @param timestamp   the batch's max timestamp, returned to a producer whose resend is a duplicate
 */
public record BatchMetadata(int lastSeq, long lastOffset, int offsetDelta, long timestamp) {

    /**
     * The sequence number of the batch's first record, counted back from the last one.
     *
     * <p>Sequences never go negative: after Integer.MAX_VALUE comes 0 (chapter 1's
     * {@code BatchHeader.incrementSequence}). Going back therefore wraps from 0 to Integer.MAX_VALUE,
     * as Kafka's {@code DefaultRecordBatch.decrementSequence} does, so a batch that straddles the wrap
     * (..., MAX-1, MAX, 0, 1) still starts at MAX-1 and its resend is still recognised. A plain
     * {@code lastSeq - offsetDelta} would give a negative number there; kaen-log follows Kafka.
     */
    public int firstSeq() {
        throw new Todo("ch07 task 1: the first sequence, counted back from lastSeq (BatchMetadataTest)");
    }

    /** The log offset of the batch's first record. Offsets never wrap: this is a plain long subtraction. */
    public long firstOffset() {
        throw new Todo("ch07 task 1: the first offset, counted back from lastOffset (BatchMetadataTest)");
    }

    /** {@code firstSeq..lastSeq}, the way the demo prints a window slot. */
    public String seqRange() {
        return firstSeq() + ".." + lastSeq;
    }
}
