package kaenlog.demo.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import kaenlog.cli.Klog;
import kaenlog.testkit.PassesOnSkeleton;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code klog dump FILE...} reads a segment file the way Kafka's {@code kafka-dump-log.sh
 * --print-data-log} does: one line per batch, one per record. The segment is written by
 * kafka-clients, so every number the dump prints is checked against what Kafka itself reads from
 * the same bytes. A damaged file gets one error line (file, byte position, problem), the batches
 * before the damage are still printed, the other files are still dumped, and the status is 1.
 */
@Order(11)
class DumpCommandTest {
    private static final String SEGMENT = "00000000000000000000.log";
    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path dir;

    /** Four batches at offsets 0, 3, 5 and 7: plain, idempotent, with headers, a null key and a tombstone. */
    private static List<MemoryRecords> kafkaBatches() {
        return List.of(
                MemoryRecords.withRecords(0L, Compression.NONE, 0,
                        record(NOW, "user-a", "clicked-1"), record(NOW + 1, "user-b", "clicked-2"),
                        record(NOW + 2, "user-c", "clicked-3")),
                MemoryRecords.withIdempotentRecords(3L, Compression.NONE, 1000L, (short) 2, 7, 1,
                        record(NOW + 10, "order-1", "paid"), record(NOW + 11, "order-2", "paid")),
                MemoryRecords.withRecords(5L, Compression.NONE, 1,
                        new SimpleRecord(NOW + 20, bytes("k"), bytes("with-headers"), new Header[] {
                            new RecordHeader("trace-id", bytes("abc")), new RecordHeader("retry", null)}),
                        new SimpleRecord(NOW + 21, bytes("k"), bytes("one-header"), new Header[] {
                            new RecordHeader("trace-id", bytes("def"))})),
                MemoryRecords.withRecords(7L, Compression.NONE, 2,
                        new SimpleRecord(NOW + 30, null, bytes("keyless")),
                        new SimpleRecord(NOW + 31, bytes("user-a"), null)));
    }

    @Test
    void everyBatchAndRecordOfAKafkaWrittenSegmentIsPrintedWithKafkasNumbers() throws IOException {
        List<MemoryRecords> batches = kafkaBatches();
        Path segment = write(dir.resolve(SEGMENT), concat(batches));

        Run run = klog("dump", segment.toString());

        assertThat(run.status())
                .as("klog dump of a sound segment exits 0; stderr was:%n%s", run.err())
                .isZero();
        assertThat(run.errLines()).as("a sound segment prints nothing on stderr").isEmpty();
        assertThat(run.outLines().get(0))
                .as("the dump starts by naming the file, as kafka-dump-log does ('Dumping <file>')")
                .startsWith("Dumping").contains(segment.toString());
        assertDumped(run, expectedLines(batches, batches.size()),
                "four batches (offsets 0-2, 3-4, 5-6, 7-8) and their nine records, in file order");
    }

    @Test
    void aSegmentCutInTheMiddleOfItsSecondBatchPrintsTheFirstAndOneErrorLine() throws IOException {
        List<MemoryRecords> batches = kafkaBatches();
        byte[] whole = concat(batches);
        int first = batches.get(0).sizeInBytes();
        int cut = first + batches.get(1).sizeInBytes() / 2;
        Path segment = write(dir.resolve(SEGMENT), Arrays.copyOf(whole, cut));

        Run run = klog("dump", segment.toString());

        assertThat(run.status())
                .as("a truncated segment (a torn write after a crash) makes klog dump exit 1; stderr was:%n%s",
                        run.err())
                .isEqualTo(Klog.FAILED);
        assertOneErrorLine(run, segment, first, "truncated");
        assertDumped(run, expectedLines(batches, 1),
                "the first batch is whole and is printed before the damage is reported; the cut one is not");
    }

    @Test
    void afterATruncatedFileTheNextFileIsStillDumpedAndTheStatusIsOne() throws IOException {
        List<MemoryRecords> batches = kafkaBatches();
        byte[] whole = concat(batches);
        int first = batches.get(0).sizeInBytes();
        Path truncated = write(dir.resolve("truncated").resolve(SEGMENT),
                Arrays.copyOf(whole, first + batches.get(1).sizeInBytes() / 2));
        Path good = write(dir.resolve("good").resolve(SEGMENT), whole);

        Run run = klog("dump", truncated.toString(), good.toString());

        assertThat(run.status())
                .as("one damaged file among several makes the status 1; stderr was:%n%s", run.err())
                .isEqualTo(Klog.FAILED);
        assertOneErrorLine(run, truncated, first, "truncated");
        List<Map<String, String>> expected = new ArrayList<>(expectedLines(batches, 1));
        expected.addAll(expectedLines(batches, batches.size()));
        assertDumped(run, expected, "the truncated file's first batch, then all of the good file: one damaged file"
                + " does not stop the others");
        assertThat(run.out())
                .as("the good file is announced after the truncated one")
                .contains("Dumping " + good);
    }

    @Test
    void aMissingFileGetsOneErrorLineAndTheOtherFilesAreStillDumped() throws IOException {
        List<MemoryRecords> batches = kafkaBatches();
        Path missing = dir.resolve("no-such-dir").resolve(SEGMENT);
        Path good = write(dir.resolve(SEGMENT), concat(batches));

        Run run = klog("dump", missing.toString(), good.toString());

        assertThat(run.status())
                .as("a missing file makes the status 1, after the other files are dumped; stderr was:%n%s", run.err())
                .isEqualTo(Klog.FAILED);
        assertThat(run.errLines())
                .as("exactly one error line for the missing file, never a stack trace; stderr was:%n%s", run.err())
                .hasSize(1);
        assertThat(run.errLines().get(0)).as("the error line names the missing file")
                .contains(missing.toString());
        assertDumped(run, expectedLines(batches, batches.size()), "the good file is dumped whole");
    }

    @Test
    void aBatchLengthOf2GiBIsReportedAsOneErrorLineWithoutAllocatingIt() throws IOException {
        List<MemoryRecords> batches = kafkaBatches();
        byte[] whole = concat(batches);
        int first = batches.get(0).sizeInBytes();
        // The second batch claims 0x7fffffff bytes: the reader must compare that with the file's size
        // before it allocates anything, or one bad length is an OutOfMemoryError.
        ByteBuffer.wrap(whole).putInt(first + 8, 0x7fffffff);
        Path segment = write(dir.resolve(SEGMENT), whole);

        Run run = klog("dump", segment.toString());

        assertThat(run.status())
                .as("an impossible batchLength makes klog dump exit 1 with an error, not crash; stderr was:%n%s",
                        run.err())
                .isEqualTo(Klog.FAILED);
        assertOneErrorLine(run, segment, first, "batchLength");
        assertDumped(run, expectedLines(batches, 1), "the first batch is whole and printed; nothing after it");
    }

    @Test
    @PassesOnSkeleton("the dispatcher and the flag parsing are given code: no exercise runs without a file")
    void dumpWithoutAFileIsAUsageErrorWithStatusTwo() {
        Run run = klog("dump");

        assertThat(run.status()).as("a misuse exits with status 2 (Klog.USAGE); stderr was:%n%s", run.err())
                .isEqualTo(Klog.USAGE);
        assertThat(run.errLines())
                .as("the misuse is explained and the usage printed on stderr, no stack trace")
                .anySatisfy(line -> assertThat(line).startsWith("usage: klog dump"))
                .noneSatisfy(line -> assertThat(line).contains("Exception"));
        assertThat(run.out()).as("nothing is dumped").isEmpty();
    }

    // ---------------------------------------------------------------- expected output, from Kafka's reading

    /** The batch and record lines of the first {@code count} batches, with the numbers Kafka reads. */
    private static List<Map<String, String>> expectedLines(List<MemoryRecords> batches, int count) {
        List<Map<String, String>> lines = new ArrayList<>();
        long position = 0;
        for (MemoryRecords records : batches.subList(0, count)) {
            MutableRecordBatch b = records.batches().iterator().next();
            Map<String, String> batch = new LinkedHashMap<>();
            batch.put("baseOffset", "" + b.baseOffset());
            batch.put("lastOffset", "" + b.lastOffset());
            batch.put("count", "" + b.countOrNull());
            batch.put("baseSequence", "" + b.baseSequence());
            batch.put("lastSequence", "" + b.lastSequence());
            batch.put("producerId", "" + b.producerId());
            batch.put("producerEpoch", "" + b.producerEpoch());
            batch.put("partitionLeaderEpoch", "" + b.partitionLeaderEpoch());
            batch.put("isTransactional", "" + b.isTransactional());
            batch.put("isControl", "" + b.isControlBatch());
            batch.put("position", "" + position);
            batch.put("CreateTime", "" + b.maxTimestamp());
            batch.put("size", "" + b.sizeInBytes());
            batch.put("magic", "" + b.magic());
            batch.put("crc", "" + b.checksum());
            lines.add(batch);
            for (Record r : b) {
                Map<String, String> record = new LinkedHashMap<>();
                record.put("offset", "" + r.offset());
                record.put("CreateTime", "" + r.timestamp());
                record.put("keySize", "" + r.keySize());
                record.put("valueSize", "" + r.valueSize());
                record.put("sequence", "" + r.sequence());
                record.put("headerKeys", Arrays.stream(r.headers()).map(Header::key)
                        .collect(Collectors.joining(",", "[", "]")));
                record.put("key", r.hasKey() ? text(r.key()) : "null");
                record.put("payload", r.hasValue() ? text(r.value()) : "null");
                lines.add(record);
            }
            position += b.sizeInBytes();
        }
        return lines;
    }

    private static void assertDumped(Run run, List<Map<String, String>> expected, String what) {
        List<String> lines = run.outLines().stream()
                .filter(l -> l.startsWith("baseOffset:") || l.startsWith("| offset:")).toList();
        assertThat(lines)
                .as("%s: one 'baseOffset: ...' line per batch and one '| offset: ...' line per record;"
                        + " stdout was:%n%s%nstderr was:%n%s", what, run.out(), run.err())
                .hasSize(expected.size());
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Map<String, String> want = expected.get(i);
            boolean batchLine = want.containsKey("baseOffset");
            assertThat(line)
                    .as("%s: line %d is a %s line", what, i, batchLine ? "batch" : "record")
                    .startsWith(batchLine ? "baseOffset:" : "| offset:");
            assertThat(fields(line))
                    .as("%s: line %d shows the numbers Kafka reads from the same bytes (a record's sequence is"
                            + " baseSequence + offsetDelta; -1 and null mark what is absent):%n%s", what, i, line)
                    .containsAllEntriesOf(want);
        }
    }

    private static void assertOneErrorLine(Run run, Path file, long batchStart, String problem) {
        assertThat(run.errLines())
                .as("exactly one error line for the damaged file, no stack trace; stderr was:%n%s", run.err())
                .hasSize(1);
        String line = run.errLines().get(0);
        assertThat(line).as("the error line names the file").contains(file.toString());
        assertThat(line).as("the error line says what is wrong").containsIgnoringCase(problem);
        List<Long> positions = new ArrayList<>();
        Matcher m = Pattern.compile("byte (\\d+)").matcher(line);
        while (m.find()) {
            positions.add(Long.parseLong(m.group(1)));
        }
        assertThat(positions)
                .as("the error line names the byte position in the file: the damaged batch starts at byte %d,"
                        + " its batchLength field at byte %d: %s", batchStart, batchStart + 8, line)
                .containsAnyOf(batchStart, batchStart + 8);
    }

    /** "baseOffset: 0 lastOffset: 2 ..." -> {baseOffset=0, lastOffset=2, ...}. */
    private static Map<String, String> fields(String line) {
        String[] tokens = line.split(" ");
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i].endsWith(":") && tokens[i].length() > 1) {
                fields.put(tokens[i].substring(0, tokens[i].length() - 1), i + 1 < tokens.length ? tokens[i + 1] : "");
            }
        }
        return fields;
    }

    // ---------------------------------------------------------------- running klog

    private record Run(int status, String out, String err) {
        List<String> outLines() {
            return out.lines().toList();
        }

        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    private static Run klog(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            status = Klog.run(args, o, e);
        }
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Path write(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.write(file, bytes);
    }

    private static byte[] concat(List<MemoryRecords> batches) {
        ByteBuffer all = ByteBuffer.allocate(batches.stream().mapToInt(MemoryRecords::sizeInBytes).sum());
        batches.forEach(b -> all.put(b.buffer()));
        return all.array();
    }

    private static SimpleRecord record(long timestamp, String key, String value) {
        return new SimpleRecord(timestamp, bytes(key), bytes(value));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ByteBuffer bytes) {
        return StandardCharsets.UTF_8.decode(bytes.duplicate()).toString();
    }
}
