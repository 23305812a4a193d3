package kaenlog.compaction;

import java.nio.ByteBuffer;
import java.util.OptionalLong;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;

/**
 * When a tombstone may go (KIP-534, "Retain tombstones and transaction markers for approximately
 * delete.retention.ms milliseconds"). The first cleaning that keeps a tombstone stamps its batch
 * with a <b>delete horizon</b>, that cleaning's time + {@code delete.retention.ms}; a later
 * cleaning at or after the horizon drops it. The horizon lives in the batch itself: attribute bit
 * 0x40 says the {@code baseTimestamp} field holds the horizon instead of the first record's
 * timestamp (Kafka's {@code DefaultRecordBatch.deleteHorizonMs()}), and the records' timestamp
 * deltas are relative to it, so every record keeps its own timestamp.
 */
public final class DeleteHorizon {
    private DeleteHorizon() {
    }

    /** The batch's delete horizon, if a cleaning has stamped one. */
    public static OptionalLong of(BatchHeader header) {
        return (header.attributes() & BatchHeader.DELETE_HORIZON_FLAG_MASK) != 0
                ? OptionalLong.of(header.baseTimestamp()) : OptionalLong.empty();
    }

    /** The header without the horizon bit: what chapter 1's preserving builder should copy. */
    public static BatchHeader cleared(BatchHeader h) {
        short attributes = (short) (h.attributes() & ~BatchHeader.DELETE_HORIZON_FLAG_MASK);
        return new BatchHeader(h.baseOffset(), h.batchLength(), h.partitionLeaderEpoch(), h.magic(), h.crc(),
                attributes, h.lastOffsetDelta(), h.baseTimestamp(), h.maxTimestamp(), h.producerId(),
                h.producerEpoch(), h.baseSequence(), h.recordCount());
    }

    /**
     * The same batch with horizon {@code horizonMs}: the bit set, baseTimestamp = the horizon,
     * records re-laid relative to it and a new CRC (Kafka's MemoryRecordsBuilder does the same
     * when given a deleteHorizonMs). Offsets, producer fields and maxTimestamp are untouched.
     */
    public static ByteBuffer stamp(ByteBuffer batch, long horizonMs) {
        RecordBatch decoded = RecordBatch.decode(batch.duplicate());
        BatchHeader h = decoded.header();
        short attributes = (short) (h.attributes() | BatchHeader.DELETE_HORIZON_FLAG_MASK);
        BatchHeader stamped = new BatchHeader(h.baseOffset(), 0, h.partitionLeaderEpoch(), BatchHeader.MAGIC, 0,
                attributes, h.lastOffsetDelta(), horizonMs, h.maxTimestamp(), h.producerId(), h.producerEpoch(),
                h.baseSequence(), 0);
        return BatchBuilder.encode(stamped, decoded.records());
    }
}
