package kaenlog.reliability;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the producers were told, kept on the client side: every batch the broker acknowledged
 * (with the offsets it gave), and every batch whose answer never came (in doubt: it may or may not
 * be in the log). Records are named {@code p<producer>-<sequence>}, so any record found in a log
 * says who wrote it and when. {@link #audit} holds a partition's contents against the ledger.
 * Thread-safe.
 */
public final class Ledger {
    /** A batch of {@code count} records {@code p<producer>-<firstSeq>...}. */
    public record Batch(String partition, int producer, long firstSeq, int count, long baseOffset, long lastOffset) {
    }

    /** What an audit found. All zero but the first four counts is a log that kept its word. */
    public record Audit(long ackedRecords, long recordsInLog, long inDoubtBatches, long inDoubtWritten, long lost,
                 long misplaced, long duplicates, long outOfOrder, long partialBatches, long strangers,
                 List<String> problems) {
        public Audit {
            problems = List.copyOf(problems);
        }

        public boolean clean() {
            return lost == 0 && misplaced == 0 && duplicates == 0 && outOfOrder == 0 && partialBatches == 0
                    && strangers == 0 && problems.isEmpty();
        }
    }

    private final List<Batch> acked = new ArrayList<>();
    private final List<Batch> inDoubt = new ArrayList<>();

    public static String value(int producer, long seq) {
        return "p" + producer + "-" + seq;
    }

    /** {producer, seq} of a value named by {@link #value}, or null for anything else. */
    public static long[] parse(String value) {
        int dash = value.indexOf('-');
        if (!value.startsWith("p") || dash < 2) {
            return null;
        }
        try {
            return new long[] {Integer.parseInt(value.substring(1, dash)), Long.parseLong(value.substring(dash + 1))};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    public synchronized void acked(String partition, int producer, long firstSeq, int count, long baseOffset,
                            long lastOffset) {
        acked.add(new Batch(partition, producer, firstSeq, count, baseOffset, lastOffset));
    }

    public synchronized void inDoubt(String partition, int producer, long firstSeq, int count) {
        inDoubt.add(new Batch(partition, producer, firstSeq, count, -1, -1));
    }

    public synchronized long ackedRecords() {
        return acked.stream().mapToLong(Batch::count).sum();
    }

    public synchronized long ackedBatches() {
        return acked.size();
    }

    /**
     * Holds the partitions' contents (offset order) against the ledger: every acknowledged record
     * must be exactly at the offset its acknowledgement named, once; every in-doubt batch whole or
     * absent; no value twice; each producer's records in the order it sent them; no record nobody sent.
     */
    public synchronized Audit audit(Map<String, List<LogContents.Entry>> partitions) {
        List<String> problems = new ArrayList<>();
        Map<String, List<String>> where = new HashMap<>();
        long records = 0;
        long outOfOrder = 0;
        long strangers = 0;
        for (Map.Entry<String, List<LogContents.Entry>> partition : partitions.entrySet()) {
            Map<Long, Long> lastSeqOf = new HashMap<>();
            for (LogContents.Entry e : partition.getValue()) {
                records++;
                where.computeIfAbsent(e.value(), v -> new ArrayList<>(1)).add(partition.getKey() + "@" + e.offset());
                long[] ps = parse(e.value());
                if (ps == null) {
                    strangers++;
                    note(problems, "a record nobody sent: '" + e.value() + "' at " + partition.getKey() + "@" + e.offset());
                    continue;
                }
                Long last = lastSeqOf.put(ps[0], ps[1]);
                if (last != null && ps[1] <= last) {
                    outOfOrder++;
                    note(problems, "producer " + ps[0] + "'s sequence " + ps[1] + " after " + last + " at "
                            + partition.getKey() + "@" + e.offset());
                }
            }
        }
        long duplicates = 0;
        for (Map.Entry<String, List<String>> e : where.entrySet()) {
            if (e.getValue().size() > 1) {
                duplicates += e.getValue().size() - 1;
                note(problems, "'" + e.getKey() + "' is in the log " + e.getValue().size() + " times: " + e.getValue());
            }
        }
        long lost = 0;
        long misplaced = 0;
        long ackedRecords = 0;
        for (Batch b : acked) {
            for (int i = 0; i < b.count(); i++) {
                ackedRecords++;
                String v = value(b.producer(), b.firstSeq() + i);
                List<String> found = where.get(v);
                if (found == null) {
                    lost++;
                    note(problems, "acknowledged '" + v + "' (offset " + (b.baseOffset() + i) + ") is not in the log");
                } else if (!found.contains(b.partition() + "@" + (b.baseOffset() + i))) {
                    misplaced++;
                    note(problems, "acknowledged '" + v + "' at " + b.partition() + "@" + (b.baseOffset() + i)
                            + " is at " + found);
                }
            }
            if (b.lastOffset() - b.baseOffset() + 1 != b.count()) {
                note(problems, "a batch of " + b.count() + " was acknowledged with offsets " + b.baseOffset() + ".."
                        + b.lastOffset());
                misplaced++;
            }
        }
        long written = 0;
        long partial = 0;
        for (Batch b : inDoubt) {
            int present = 0;
            for (int i = 0; i < b.count(); i++) {
                if (where.containsKey(value(b.producer(), b.firstSeq() + i))) {
                    present++;
                }
            }
            if (present == b.count()) {
                written++;
            } else if (present > 0) {
                partial++;
                note(problems, "in-doubt batch " + value(b.producer(), b.firstSeq()) + " x" + b.count() + " is in the log"
                        + " only in part (" + present + " records): a batch is written whole or not at all");
            }
        }
        return new Audit(ackedRecords, records, inDoubt.size(), written, lost, misplaced, duplicates, outOfOrder,
                partial, strangers, problems);
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < 20) {
            problems.add(problem);
        }
    }
}
