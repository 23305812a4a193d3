package kaenlog.demo.batch;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchCrc;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.cli.Claims;
import kaenlog.cli.Flags;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;

/**
 * {@code klog batch-demo}: a batch laid out field by field, its CRC, the leader moving it to new
 * offsets without touching the CRC, and one flipped byte caught. Every claim it prints is checked.
 */
public final class BatchDemo implements Subcommand {
    private static final String[][] FIELDS = {
        {"0", "8", "baseOffset"}, {"8", "4", "batchLength"}, {"12", "4", "partitionLeaderEpoch"},
        {"16", "1", "magic"}, {"17", "4", "crc"}, {"21", "2", "attributes"}, {"23", "4", "lastOffsetDelta"},
        {"27", "8", "baseTimestamp"}, {"35", "8", "maxTimestamp"}, {"43", "8", "producerId"},
        {"51", "2", "producerEpoch"}, {"53", "4", "baseSequence"}, {"57", "4", "recordCount"},
    };

    @Override
    public String name() {
        return "batch-demo";
    }

    @Override
    public String usage() {
        return "[--now-ms MS] [--records N] [--base-offset N]";
    }

    @Override
    public String summary() {
        return "chapter 1: a RecordBatch v2 laid out byte by byte, offsets moved under an unchanged CRC";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("now-ms", "records", "base-offset"), Set.of()).noPositional();
        long nowMs = flags.nowMs(1_700_000_000_000L);
        int count = flags.intValue("records", 3, 1, 26);
        long newBase = flags.longValue("base-offset", 42, 1, Long.MAX_VALUE - count);
        Claims claims = new Claims();

        out.println("kaen-log chapter 1: the record batch on disk");
        out.println();
        BatchBuilder builder = new BatchBuilder();
        for (int i = 0; i < count; i++) {
            builder.append(nowMs + i, "user-" + (char) ('a' + i), "clicked " + (i + 1));
        }
        ByteBuffer batch = builder.build();
        showLayout(batch, count, out, claims);
        int crcBefore = showCrc(batch, out, claims);
        assignOffsets(batch, newBase, crcBefore, out, claims);
        flipRecordByte(batch, out, claims);
        flipBaseOffsetByte(batch, out, claims);
        out.println();
        out.println("self-checks: " + claims.held() + " held");
        return 0;
    }

    private static void showLayout(ByteBuffer batch, int count, PrintStream out, Claims claims) {
        BatchHeader h = BatchHeader.readFrom(batch.duplicate());
        out.println("1. A producer's batch of " + count + " records, header field by field (big-endian)");
        out.println();
        out.printf("  %6s %4s  %-20s  %-23s  %s%n", "offset", "size", "field", "bytes", "value");
        Object[] values = {h.baseOffset(), h.batchLength(), h.partitionLeaderEpoch(), h.magic(),
            String.format("0x%08x", h.crc()), h.attributes(), h.lastOffsetDelta(), h.baseTimestamp(),
            h.maxTimestamp(), h.producerId(), h.producerEpoch(), h.baseSequence(), h.recordCount()};
        for (int i = 0; i < FIELDS.length; i++) {
            int at = Integer.parseInt(FIELDS[i][0]);
            int size = Integer.parseInt(FIELDS[i][1]);
            out.printf("  %6d %4d  %-20s  %-23s  %s%n", at, size, FIELDS[i][2], hex(batch, at, size), values[i]);
        }
        out.printf("  %6d %4d  records%n", BatchHeader.SIZE, batch.remaining() - BatchHeader.SIZE);
        out.println();
        out.println("  producerId, producerEpoch, baseSequence are -1: no idempotent producer wrote this batch");
        out.println("  lastOffsetDelta = recordCount - 1 = " + h.lastOffsetDelta()
                + "; batchLength counts the bytes after itself: " + batch.remaining() + " - 12 = " + h.batchLength());
        claims.check(h.producerId() == -1 && h.producerEpoch() == -1 && h.baseSequence() == -1,
                "a plain batch carries -1 in the three producer fields");
        claims.check(h.lastOffsetDelta() == count - 1, "lastOffsetDelta is recordCount - 1");
        claims.check(h.batchLength() == batch.remaining() - BatchHeader.LOG_OVERHEAD,
                "batchLength is the size minus 12");
        out.println();
        out.printf("  %6s  %-15s  %-8s  %s%n", "offset", "timestamp", "key", "value");
        for (Record r : RecordBatch.decode(batch.duplicate()).records()) {
            out.printf("  %6d  %-15d  %-8s  %s%n", r.offset(), r.timestamp(), Record.show(r.key()),
                    Record.show(r.value()));
        }
        out.println();
    }

    private static int showCrc(ByteBuffer batch, PrintStream out, Claims claims) {
        int stored = BatchCrc.stored(batch);
        int computed = BatchCrc.compute(batch);
        out.println("2. CRC-32C (Castagnoli) over bytes 21.." + (batch.remaining() - 1)
                + " (attributes to the end)");
        out.printf("  stored 0x%08x  computed 0x%08x  valid: %s%n", stored, computed, yes(stored == computed));
        claims.check(stored == computed, "a freshly built batch has a valid CRC");
        out.println();
        return stored;
    }

    private static void assignOffsets(ByteBuffer batch, long newBase, int crcBefore, PrintStream out, Claims claims) {
        out.println("3. The leader assigns offsets: baseOffset 0 -> " + newBase + ", bytes 0..7 rewritten, nothing else");
        RecordBatch.assignBaseOffset(batch, newBase);
        int crcAfter = BatchCrc.stored(batch);
        boolean valid = BatchCrc.isValid(batch);
        out.printf("  crc before 0x%08x  crc after 0x%08x  unchanged: %s  still valid: %s%n",
                crcBefore, crcAfter, yes(crcBefore == crcAfter), yes(valid));
        RecordBatch moved = RecordBatch.decode(batch.duplicate());
        List<Long> offsets = moved.records().stream().map(Record::offset).toList();
        out.println("  records now at offsets " + offsets + " (each stores only its offsetDelta)");
        claims.check(crcBefore == crcAfter && valid, "moving the base offset leaves the CRC unchanged and valid");
        claims.check(offsets.get(0) == newBase && moved.lastOffset() == newBase + offsets.size() - 1,
                "every record moved with the base offset");
        out.println();
    }

    private static void flipRecordByte(ByteBuffer batch, PrintStream out, Claims claims) {
        int at = batch.remaining() - 1;
        ByteBuffer damaged = copy(batch);
        byte before = damaged.get(at);
        damaged.put(at, (byte) (before ^ 0x01));
        out.printf("4. One bit flipped in the last record (byte %d: 0x%02x -> 0x%02x)%n", at, before, damaged.get(at));
        try {
            RecordBatch.decode(damaged);
            claims.check(false, "a flipped byte inside the CRC's range is caught");
        } catch (CorruptBatchException e) {
            out.println("  decode refuses it: " + e.getMessage());
            claims.check(e.field().equals("crc"), "a flipped byte inside the CRC's range is caught by the CRC");
        }
        out.println();
    }

    private static void flipBaseOffsetByte(ByteBuffer batch, PrintStream out, Claims claims) {
        ByteBuffer damaged = copy(batch);
        int at = BatchHeader.BASE_OFFSET_OFFSET + 7;
        byte before = damaged.get(at);
        damaged.put(at, (byte) (before ^ 0x01));
        boolean valid = BatchCrc.isValid(damaged);
        out.printf("5. The same bit flipped in baseOffset (byte %d): the CRC still says valid: %s%n", at, yes(valid));
        out.println("  the price of rewriting offsets for free: the CRC cannot protect them;");
        out.println("  a log checks instead that offsets only grow (chapter 3's recovery)");
        claims.check(valid, "baseOffset lies outside the CRC");
    }

    private static ByteBuffer copy(ByteBuffer batch) {
        ByteBuffer copy = ByteBuffer.allocate(batch.remaining());
        copy.put(batch.duplicate());
        return copy.flip();
    }

    private static String hex(ByteBuffer batch, int at, int size) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < size; i++) {
            s.append(i == 0 ? "" : " ").append(String.format("%02x", batch.get(batch.position() + at + i)));
        }
        return s.toString();
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }
}
