package kaenlog.cluster;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.replication.LeaderEpochCache.EpochEntry;
import kaenlog.wire.PartitionNames;

/**
 * What a broker of a cluster keeps on disk beside its logs, so that a restart resumes where it was,
 * in Kafka's files and Kafka's format ({@code CheckpointFile}): a version line ({@value #VERSION}),
 * a line with the number of entries, then one entry a line, fields separated by one space.
 *
 * <ul>
 *   <li>{@value #HIGH_WATERMARKS}, in the data directory: {@code topic partition highWatermark} for
 *       each partition (Kafka writes it every {@code replica.high.watermark.checkpoint.interval.ms}).
 *       A restarted replica takes its high watermark from here, never from its log end: records
 *       past it were never known committed.</li>
 *   <li>{@value #LEADER_EPOCHS}, in each partition's directory: {@code epoch startOffset} for each
 *       leader epoch of the log (chapter 8's epoch cache), written at every change. A restarted
 *       follower truncates by these epochs (task 7 (EpochTruncationTest)), never by its high watermark.</li>
 * </ul>
 */
public final class Checkpoints {
    public static final String HIGH_WATERMARKS = "replication-offset-checkpoint";
    public static final String LEADER_EPOCHS = "leader-epoch-checkpoint";
    /** The only version of both files Kafka writes. */
    public static final int VERSION = 0;

    private Checkpoints() {
    }

    /** A checkpoint file that is not in the format: which file, which line, what was wrong. */
    public static final class CheckpointException extends IOException {
        public CheckpointException(Path file, int line, String problem) {
            super(file + " line " + line + ": " + problem);
        }
    }

    /**
     * Writes {@code entries} as a checkpoint file: the version, the count, the entries; to a
     * temporary file first, forced to disk, then renamed over {@code file} (a crash in between
     * leaves the old file whole).
     */
    public static void write(Path file, List<String> entries) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        // BEGIN-SOLUTION ch10 task 12: version, count, entries; a temporary file forced to disk, then renamed (CheckpointsTest)
        StringBuilder text = new StringBuilder().append(VERSION).append('\n').append(entries.size()).append('\n');
        entries.forEach(entry -> text.append(entry).append('\n'));
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        // END-SOLUTION
    }

    /**
     * The entries of a checkpoint file; empty when there is none (a new broker). A file whose version
     * is not {@value #VERSION}, whose count is not a number, or that holds more or fewer entries than
     * its count says is a {@link CheckpointException}: a checkpoint half-understood is worse than none.
     */
    public static List<String> read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        // BEGIN-SOLUTION ch10 task 12: the version, then exactly as many entries as the count says (CheckpointsTest)
        if (lines.isEmpty() || !lines.get(0).equals(String.valueOf(VERSION))) {
            throw new CheckpointException(file, 1, "the version must be " + VERSION + ", not "
                    + (lines.isEmpty() ? "missing" : "'" + lines.get(0) + "'"));
        }
        int count = parseInt(file, 2, lines.size() > 1 ? lines.get(1) : "");
        if (lines.size() - 2 != count) {
            throw new CheckpointException(file, 2, "says " + count + " entries, the file holds " + (lines.size() - 2));
        }
        return List.copyOf(lines.subList(2, lines.size()));
        // END-SOLUTION
    }

    /**
     * A restarted replica's high watermark: the checkpointed one, but never past the log's end (the
     * log may have lost an unflushed tail) nor below its start (retention may have moved it); none
     * checkpointed is the log start, as Kafka's 0 clamped to the log. Never the log end offset.
     */
    public static long restoredHighWatermark(OptionalLong checkpointed, long logStartOffset, long logEndOffset) {
        // BEGIN-SOLUTION ch10 task 12: the checkpointed HW, clamped to the log; never the LEO (CheckpointsTest)
        long hw = Math.min(checkpointed.orElse(logStartOffset), logEndOffset);
        return Math.max(hw, logStartOffset);
        // END-SOLUTION
    }

    /** Writes every partition's high watermark to {@value #HIGH_WATERMARKS} in {@code dataDir}. */
    public static void writeHighWatermarks(Path dataDir, SortedMap<String, Long> byPartition) throws IOException {
        List<String> entries = new ArrayList<>();
        for (Map.Entry<String, Long> hw : byPartition.entrySet()) {
            PartitionNames.TopicPartition tp = PartitionNames.parse(hw.getKey()).orElseThrow(
                    () -> new IllegalArgumentException(hw.getKey() + " is not a partition name"));
            entries.add(tp.topic() + " " + tp.partition() + " " + hw.getValue());
        }
        write(dataDir.resolve(HIGH_WATERMARKS), entries);
    }

    /** The high watermarks in {@code dataDir}'s {@value #HIGH_WATERMARKS}, by partition name. */
    public static SortedMap<String, Long> readHighWatermarks(Path dataDir) throws IOException {
        Path file = dataDir.resolve(HIGH_WATERMARKS);
        SortedMap<String, Long> hws = new TreeMap<>();
        List<String> entries = read(file);
        for (int i = 0; i < entries.size(); i++) {
            String[] fields = fields(file, i, entries.get(i), 3);
            int partition = parseInt(file, i + 3, fields[1]);
            String problem = PartitionNames.problem(fields[0], partition);
            if (problem != null) {
                throw new CheckpointException(file, i + 3, problem);
            }
            hws.put(PartitionNames.name(fields[0], partition), parseLong(file, i + 3, fields[2]));
        }
        return hws;
    }

    /** Writes a partition's leader epochs to {@value #LEADER_EPOCHS} in its directory. */
    public static void writeLeaderEpochs(Path partitionDir, List<EpochEntry> epochs) throws IOException {
        write(partitionDir.resolve(LEADER_EPOCHS), epochs.stream().map(e -> e.epoch() + " " + e.startOffset())
                .toList());
    }

    /** A partition's leader epochs from {@value #LEADER_EPOCHS}, oldest first; empty when there is no file. */
    public static List<EpochEntry> readLeaderEpochs(Path partitionDir) throws IOException {
        Path file = partitionDir.resolve(LEADER_EPOCHS);
        List<EpochEntry> epochs = new ArrayList<>();
        List<String> entries = read(file);
        for (int i = 0; i < entries.size(); i++) {
            String[] fields = fields(file, i, entries.get(i), 2);
            try {
                epochs.add(new EpochEntry(parseInt(file, i + 3, fields[0]), parseLong(file, i + 3, fields[1])));
            } catch (IllegalArgumentException e) {
                throw new CheckpointException(file, i + 3, e.getMessage());
            }
        }
        return epochs;
    }

    private static String[] fields(Path file, int index, String entry, int count) throws CheckpointException {
        String[] fields = entry.split(" ", -1);
        if (fields.length != count) {
            throw new CheckpointException(file, index + 3, "an entry has " + count + " fields, not '" + entry + "'");
        }
        return fields;
    }

    private static int parseInt(Path file, int line, String text) throws CheckpointException {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new CheckpointException(file, line, "'" + text + "' is not a whole number");
        }
    }

    private static long parseLong(Path file, int line, String text) throws CheckpointException {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new CheckpointException(file, line, "'" + text + "' is not a whole number");
        }
    }
}
