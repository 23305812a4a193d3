package kaenlog.batch;

import static kaenlog.batch.BatchFields.bytesOf;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import kaenlog.testkit.property.Judge;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.ByteUtils;

/** kafka-clients' reading of a batch, in kaen-log's terms: what the Kafka oracle tests compare with. */
final class KafkaBatches {
    private KafkaBatches() {
    }

    /** The one batch kafka-clients finds in {@code records}; fails, naming {@code context}, when there are more or none. */
    static MutableRecordBatch onlyBatch(MemoryRecords records, String context) {
        List<MutableRecordBatch> batches = new ArrayList<>();
        records.batches().forEach(batches::add);
        assertThat(batches).as("%s: the bytes hold exactly one batch", context).hasSize(1);
        return batches.get(0);
    }

    /** Kafka's records, in kaen-log's terms, to compare whole records at once. */
    static List<Record> kaenLogView(org.apache.kafka.common.record.RecordBatch batch) {
        List<Record> out = new ArrayList<>();
        for (org.apache.kafka.common.record.Record r : batch) {
            out.add(kaenLogView(r));
        }
        return out;
    }

    /** One of Kafka's records in kaen-log's terms. */
    static Record kaenLogView(org.apache.kafka.common.record.Record r) {
        List<RecordHeader> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(new RecordHeader(h.key(), h.value()));
        }
        return new Record(r.offset(), r.timestamp(), r.hasKey() ? bytesOf(r.key()) : null,
                r.hasValue() ? bytesOf(r.value()) : null, headers);
    }

    // ---------------------------------------------------------------- the header, field by field

    /**
     * A header as both libraries can say it: every field of the 61 bytes, the attributes as the bits
     * Kafka names (codec id, -1 for an id Kafka has no codec for; LogAppendTime; transactional;
     * control). batchLength and crc come last: when another field differs they differ too, and the
     * field named first is the one to fix.
     */
    record HeaderView(long baseOffset, int partitionLeaderEpoch, byte magic, int codec, boolean logAppendTime,
                      boolean transactional, boolean control, int lastOffsetDelta, long baseTimestamp,
                      long maxTimestamp, long producerId, short producerEpoch, int baseSequence, int recordCount,
                      int batchLength, String crc) {
        static HeaderView of(BatchHeader h) {
            int codec = h.attributes() & BatchHeader.COMPRESSION_CODEC_MASK;
            return new HeaderView(h.baseOffset(), h.partitionLeaderEpoch(), h.magic(), codec <= 4 ? codec : -1,
                    (h.attributes() & BatchHeader.TIMESTAMP_TYPE_MASK) != 0, h.isTransactional(), h.isControl(),
                    h.lastOffsetDelta(), h.baseTimestamp(), h.maxTimestamp(), h.producerId(), h.producerEpoch(),
                    h.baseSequence(), h.recordCount(), h.batchLength(), crc(h.crcUnsigned()));
        }

        /** Through DefaultRecordBatch's accessors (lastOffsetDelta as lastOffset() - baseOffset(), which Kafka wraps). */
        static HeaderView of(DefaultRecordBatch b) {
            int codec;
            try {
                codec = b.compressionType().id;
            } catch (IllegalArgumentException unknown) {
                codec = -1;
            }
            return new HeaderView(b.baseOffset(), b.partitionLeaderEpoch(), b.magic(), codec,
                    b.timestampType() == TimestampType.LOG_APPEND_TIME, b.isTransactional(), b.isControlBatch(),
                    (int) (b.lastOffset() - b.baseOffset()), b.baseTimestamp(), b.maxTimestamp(), b.producerId(),
                    b.producerEpoch(), b.baseSequence(), b.countOrNull(), b.sizeInBytes() - BatchHeader.LOG_OVERHEAD,
                    crc(b.checksum()));
        }

        /** The same header without its checksum: for batches whose compressed bytes may differ (zstd). */
        HeaderView withoutLengthAndCrc() {
            return new HeaderView(baseOffset, partitionLeaderEpoch, magic, codec, logAppendTime, transactional, control,
                    lastOffsetDelta, baseTimestamp, maxTimestamp, producerId, producerEpoch, baseSequence, recordCount,
                    0, "");
        }

        private static String crc(long unsigned) {
            return String.format("0x%08x", unsigned);
        }
    }

    /**
     * kafka-clients' DefaultRecordBatch over any bytes. Its constructor is package-private (Kafka
     * reaches it through MemoryRecords, which first checks batchLength); the header properties call it
     * directly so that Kafka reads every one of 61 arbitrary bytes, a batchLength no reader would
     * accept included.
     */
    static DefaultRecordBatch defaultRecordBatch(ByteBuffer bytes) {
        try {
            Constructor<DefaultRecordBatch> c = DefaultRecordBatch.class.getDeclaredConstructor(ByteBuffer.class);
            c.setAccessible(true);
            return c.newInstance(bytes.slice());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("kafka-clients' DefaultRecordBatch(ByteBuffer) is not there", e);
        }
    }

    /**
     * Agrees when both values are equal; otherwise says the first field that differs (both values
     * records of the same type: a header, a decoded batch) or, when one refused and the other did
     * not, both outcomes whole.
     */
    static void agreeField(String input, String what, Judge.Outcome yours, String oracle, Judge.Outcome kafkas,
                           String rule) {
        if (!yours.refused() && !kafkas.refused() && yours.value() instanceof java.lang.Record a
                && kafkas.value() instanceof java.lang.Record b && a.getClass() == b.getClass()) {
            for (RecordComponent component : a.getClass().getRecordComponents()) {
                Object mine = get(component, a);
                Object theirs = get(component, b);
                if (mine instanceof java.lang.Record && theirs instanceof java.lang.Record) {
                    agreeField(input, what + " " + component.getName(), Judge.Outcome.of(() -> mine), oracle,
                            Judge.Outcome.of(() -> theirs), rule);
                } else {
                    Judge.agree(input, what + " " + component.getName(), mine, oracle, theirs, rule);
                }
            }
            return;
        }
        Judge.agree(input, what.endsWith("'s") ? what.substring(0, what.length() - 2) : what, yours, oracle, kafkas,
                rule);
    }

    private static Object get(RecordComponent component, Object record) {
        try {
            component.getAccessor().setAccessible(true);
            return component.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Your batch and Kafka's, as Kafka reads them: the header field by field, then the records, then
     * every byte (zstd's compressed bytes may differ from kafka-clients' for the same records: its
     * header and records are compared, not its bytes).
     */
    static void agreeOnBatch(String input, Judge.ThrowingSupplier<byte[]> build, String oracle, byte[] kafkas,
                             boolean zstd, String rule) {
        Judge.Outcome built = Judge.Outcome.of(build);
        if (built.refused()) {
            Judge.agree(input, "batch", built, oracle, Judge.Outcome.of(() -> kafkas), rule);
        }
        byte[] yours = (byte[]) built.value();
        DefaultRecordBatch mine = defaultRecordBatch(ByteBuffer.wrap(yours));
        DefaultRecordBatch theirs = defaultRecordBatch(ByteBuffer.wrap(kafkas));
        agreeField(input, "header's", Judge.Outcome.of(() -> zstd ? HeaderView.of(mine).withoutLengthAndCrc()
                : HeaderView.of(mine)), oracle, Judge.Outcome.of(() -> zstd ? HeaderView.of(theirs).withoutLengthAndCrc()
                : HeaderView.of(theirs)), rule);
        Judge.agree(input, "records", Judge.Outcome.of(() -> kaenLogView(mine)), oracle,
                Judge.Outcome.of(() -> kaenLogView(theirs)), rule);
        if (!zstd) {
            String diff = BatchFields.batchDiff(kafkas, yours);
            Judge.agree(input + " (" + diff.lines().findFirst().orElse("") + ")", "bytes", yours, oracle, kafkas, rule);
        }
    }

    // ---------------------------------------------------------------- Kafka reading one batch

    /** A batch as decoded: its header, its records, and how many bytes it took. */
    record Decoded(HeaderView header, List<Record> records, int size) {
    }

    /** What Kafka's reading said of some bytes, and the rule a disagreement is about, in the guide's words. */
    record Reading(Judge.Outcome outcome, String rule) {
    }

    static final String RULE_LENGTH = "slice checks 12 bytes for baseOffset and batchLength, a batchLength that"
            + " covers the 49 header bytes after it and fits in what remains, and magic 2";
    static final String RULE_CRC = "the CRC-32C over attributes..end is checked before anything after the header"
            + " is trusted";
    static final String RULE_RECORDS = "every record is read within its own length, a null is the length -1,"
            + " and recordCount says exactly how many records follow";
    static final String RULE_VALUES = "each field is read where Kafka's DefaultRecordBatch reads it, each record's"
            + " offset and timestamp are the batch's base plus its deltas (every record's time is the batch's"
            + " maxTimestamp when the batch is LogAppendTime), and the position moves past exactly one batch";
    static final String RULE_OFFSETS = "kaen-log refuses what Kafka's reader lets through: a last offset that"
            + " overflows, record offsets that do not grow or pass lastOffset, a length below -1, a codec Kafka does"
            + " not have, bytes after the last record";

    /**
     * Kafka reading the batch at {@code in}'s position as a broker would trust it: MemoryRecords finds
     * it (a batch cut short is no batch), DefaultRecordBatch.ensureValid checks its size and CRC, and its
     * iterator reads every record. Then kaen-log's own, stricter checks (the guide's differences): a
     * magic other than 2, a last offset that overflows, offsets that do not grow within the batch or
     * pass its last offset, a key, value or header value length below -1, a codec id Kafka has no codec
     * for, and bytes after the last record are refused, even in a batch of no records.
     */
    static Reading kafkaReads(ByteBuffer in) {
        ByteBuffer bytes = in.slice();
        Iterator<MutableRecordBatch> batches;
        MutableRecordBatch batch;
        try {
            batches = MemoryRecords.readableRecords(bytes.duplicate()).batches().iterator();
            if (!batches.hasNext()) {
                return refused(RULE_LENGTH, "MemoryRecords finds no whole batch in " + bytes.remaining() + " byte(s)");
            }
            batch = batches.next();
        } catch (RuntimeException e) {
            return new Reading(Judge.Outcome.of(() -> {
                throw e;
            }), RULE_LENGTH);
        }
        if (batch.magic() != BatchHeader.MAGIC) {
            return refused(RULE_LENGTH, "magic " + batch.magic() + ": kaen-log reads RecordBatch v2 only");
        }
        try {
            batch.ensureValid();
        } catch (RuntimeException e) {
            return new Reading(Judge.Outcome.of(() -> {
                throw e;
            }), e.getMessage() != null && e.getMessage().contains("size") ? RULE_LENGTH : RULE_CRC);
        }
        DefaultRecordBatch v2 = (DefaultRecordBatch) batch;
        List<Record> records = new ArrayList<>();
        try {
            for (org.apache.kafka.common.record.Record r : v2) {
                records.add(kaenLogView(r));
            }
        } catch (RuntimeException e) {
            return new Reading(Judge.Outcome.of(() -> {
                throw e;
            }), RULE_RECORDS);
        }
        String stricter = kaenLogIsStricter(v2, records);
        if (stricter != null) {
            return refused(RULE_OFFSETS, stricter);
        }
        Decoded decoded = new Decoded(HeaderView.of(v2), records, v2.sizeInBytes());
        return new Reading(Judge.Outcome.of(() -> decoded), RULE_VALUES);
    }

    /** Where Kafka finds the batch at {@code in}'s position ends: its size, or a refusal (no batch, too short, not v2). */
    static Judge.Outcome kafkaSlices(ByteBuffer in) {
        return Judge.Outcome.of(() -> {
            Iterator<MutableRecordBatch> batches = MemoryRecords.readableRecords(in.slice()).batches().iterator();
            if (!batches.hasNext()) {
                throw new IllegalArgumentException("MemoryRecords finds no whole batch");
            }
            MutableRecordBatch batch = batches.next();
            if (batch.magic() != BatchHeader.MAGIC || batch.sizeInBytes() < DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
                throw new IllegalArgumentException("magic " + batch.magic() + ", " + batch.sizeInBytes() + " bytes");
            }
            return batch.sizeInBytes();
        });
    }

    private static Reading refused(String rule, String why) {
        return new Reading(Judge.Outcome.of(() -> {
            throw new IllegalArgumentException(why);
        }), rule);
    }

    /** Why kaen-log refuses a batch Kafka's reader accepted (the chapter's declared differences), or null. */
    private static String kaenLogIsStricter(DefaultRecordBatch batch, List<Record> records) {
        int lastOffsetDelta = (int) (batch.lastOffset() - batch.baseOffset());
        long lastOffset;
        try {
            lastOffset = Math.addExact(batch.baseOffset(), lastOffsetDelta);
        } catch (ArithmeticException overflow) {
            return "baseOffset " + batch.baseOffset() + " + lastOffsetDelta " + lastOffsetDelta + " overflows a long";
        }
        long previous = batch.baseOffset() - 1;
        for (Record r : records) {
            // Kafka reads offset = baseOffset + offsetDelta, wrapping: an offsetDelta that wraps is out of order too.
            if (r.offset() <= previous || r.offset() > lastOffset) {
                return "record offset " + r.offset() + " is not between " + (previous + 1) + " and lastOffset "
                        + lastOffset;
            }
            previous = r.offset();
        }
        try {
            batch.compressionType();
        } catch (IllegalArgumentException unknown) {
            return "a codec Kafka does not have (" + unknown.getMessage() + "), even with no record to inflate";
        }
        ByteBuffer plain = ByteBuffer.wrap(recordBytes(batch));
        if (records.isEmpty() && plain.hasRemaining()) {
            return "recordCount 0 but " + plain.remaining() + " byte(s) of records follow";
        }
        for (int i = 0; i < records.size(); i++) {
            String length = lengthBelowMinusOne(plain);
            if (length != null) {
                return "record[" + i + "]: " + length;
            }
        }
        return null;
    }

    /** The records' bytes after the header, inflated when the batch is compressed (Kafka's recordInputStream). */
    private static byte[] recordBytes(DefaultRecordBatch batch) {
        try (var in = batch.recordInputStream(BufferSupplier.NO_CACHING)) {
            return in.readAllBytes();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Steps over one record Kafka already read, saying which length is below -1, if one is (null if none). */
    static String lengthBelowMinusOne(ByteBuffer in) {
        int length = ByteUtils.readVarint(in);
        ByteBuffer body = in.slice(in.position(), length);
        in.position(in.position() + length);
        body.get();
        ByteUtils.readVarlong(body);
        ByteUtils.readVarint(body);
        for (String field : new String[] {"key", "value"}) {
            int size = ByteUtils.readVarint(body);
            if (size < -1) {
                return field + " length " + size;
            }
            body.position(body.position() + Math.max(size, 0));
        }
        int headers = ByteUtils.readVarint(body);
        for (int h = 0; h < headers; h++) {
            int keySize = ByteUtils.readVarint(body);
            body.position(body.position() + keySize);
            int size = ByteUtils.readVarint(body);
            if (size < -1) {
                return "header[" + h + "].value length " + size;
            }
            body.position(body.position() + Math.max(size, 0));
        }
        return null;
    }

    /** kaen-log's decode of the batch at {@code in}'s position, as comparable as Kafka's reading. */
    static Judge.Outcome kaenLogDecodes(ByteBuffer in) {
        int start = in.position();
        return Judge.Outcome.of(() -> {
            RecordBatch batch = RecordBatch.decode(in);
            return new Decoded(HeaderView.of(batch.header()), batch.records(), in.position() - start);
        });
    }
}
