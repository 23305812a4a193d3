package kaenlog.log;

import static kaenlog.log.LogFixtures.fileNames;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.storage.internals.log.LogFileUtils;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 1: a segment is named by its base offset, 20 digits, zero padded
 * ({@code 00000000000000000042.log}), exactly as Kafka names them (LogFileUtils.filenamePrefixFromOffset).
 * Twenty digits hold any non-negative long, and the padding makes a plain sort of the names a sort
 * by offset. Reading a name back is how a restarted broker finds its segments, so anything that is
 * not such a name must be ignored.
 */
@Order(1)
class SegmentFilesTest {
    private static final String LOG = Segment.LOG_SUFFIX;
    private static final String INDEX = Segment.INDEX_SUFFIX;

    @Test
    void aSegmentIsNamedByItsBaseOffsetInTwentyZeroPaddedDigits() {
        assertThat(Segment.fileName(0, LOG))
                .as("base offset 0: twenty zeros, then the suffix (Kafka's first segment is 00000000000000000000.log)")
                .isEqualTo("00000000000000000000.log");
        assertThat(Segment.fileName(42, INDEX))
                .as("base offset 42 padded to 20 digits, with the index suffix: the .log and .index of a segment share the prefix")
                .isEqualTo("00000000000000000042.index");
        assertThat(Segment.fileName(Long.MAX_VALUE, LOG))
                .as("Long.MAX_VALUE has 19 digits and still gets a leading zero: every name has exactly 20 digits")
                .isEqualTo("09223372036854775807.log");
    }

    @Test
    void theNamesSortInOffsetOrder() {
        List<Long> offsets = new ArrayList<>(List.of(0L, 9L, 10L, 99L, 100L, 4_096L, 1_000_000L,
                123_456_789_012L, 9_999_999_999_999L, Long.MAX_VALUE - 1, Long.MAX_VALUE));
        Collections.shuffle(offsets, new Random(3));
        List<String> names = new ArrayList<>(offsets.stream().map(o -> Segment.fileName(o, LOG)).toList());

        Collections.sort(names);

        List<String> byOffset = offsets.stream().sorted().map(o -> Segment.fileName(o, LOG)).toList();
        assertThat(names)
                .as("sorting the names as text sorts the segments by offset: zero padding is what makes \"..09.log\""
                        + " come before \"..10.log\" (unpadded, \"10.log\" would sort before \"9.log\")")
                .containsExactlyElementsOf(byOffset);
    }

    @Test
    void aNameReadsBackAsTheOffsetItWasMadeFrom() {
        Random random = new Random(11);
        List<Long> offsets = new ArrayList<>(List.of(0L, 1L, 42L, 1_000_000_007L, Long.MAX_VALUE));
        for (int i = 0; i < 200; i++) {
            offsets.add(random.nextLong() & Long.MAX_VALUE);
        }
        for (long offset : offsets) {
            String name = Segment.fileName(offset, LOG);
            assertThat(Segment.parseBaseOffset(name, LOG))
                    .as("parseBaseOffset(fileName(%d)) gives %d back: the broker finds its segments after a restart"
                            + " by reading the offsets out of the names", offset, offset)
                    .isEqualTo(OptionalLong.of(offset));
            assertThat(Segment.parseBaseOffset(Segment.fileName(offset, INDEX), INDEX))
                    .as("the same for the .index file of base offset %d", offset)
                    .isEqualTo(OptionalLong.of(offset));
        }
    }

    @Test
    void aNameWithAnotherSuffixIsNotASegmentOfThatKind() {
        assertThat(Segment.parseBaseOffset("00000000000000000042.index", LOG))
                .as("an .index file is not a .log segment: asked for \".log\", the answer is empty")
                .isEmpty();
        assertThat(Segment.parseBaseOffset("00000000000000000042.log.swap", LOG))
                .as("a compaction leftover (.log.swap, chapter 6) is not a segment")
                .isEmpty();
        assertThat(Segment.parseBaseOffset("00000000000000000042.log", INDEX))
                .as("a .log file is not an index")
                .isEmpty();
    }

    @Test
    void aNameThatIsNotExactlyTwentyDigitsIsRefused() {
        assertThat(Segment.parseBaseOffset("0000000000000000042.log", LOG))
                .as("19 digits: not a name fileName would write, so not a segment")
                .isEmpty();
        assertThat(Segment.parseBaseOffset("000000000000000000042.log", LOG))
                .as("21 digits: not a segment either")
                .isEmpty();
        assertThat(Segment.parseBaseOffset("42.log", LOG))
                .as("an unpadded offset is not a segment name")
                .isEmpty();
        assertThat(Segment.parseBaseOffset(".log", LOG))
                .as("a bare suffix is not a segment name")
                .isEmpty();
    }

    @Test
    void lettersSignsAndSpacesAreRefused() {
        for (String name : List.of("0000000000000000004a.log", "abcdefghijklmnopqrst.log", "-0000000000000000042.log",
                "+0000000000000000042.log", " 0000000000000000042.log", "0000000000000000x042.log")) {
            assertThat(Segment.parseBaseOffset(name, LOG))
                    .as("\"%s\" has a character that is not a decimal digit: not a segment name", name)
                    .isEmpty();
        }
    }

    @Test
    void twentyDigitsAboveLongMaxValueAreRefusedNotWrapped() {
        for (String name : List.of("09223372036854775808.log", "99999999999999999999.log")) {
            assertThatCode(() -> Segment.parseBaseOffset(name, LOG))
                    .as("\"%s\" is twenty digits too large for a long: parseBaseOffset answers empty, never an exception"
                            + " (Log.open reads every name in the directory: one stray file must not stop the broker"
                            + " from starting)", name)
                    .doesNotThrowAnyException();
        }
        assertThat(Segment.parseBaseOffset("09223372036854775807.log", LOG))
                .as("Long.MAX_VALUE is the largest offset a name can hold")
                .isEqualTo(OptionalLong.of(Long.MAX_VALUE));
        assertThat(Segment.parseBaseOffset("09223372036854775808.log", LOG))
                .as("Long.MAX_VALUE + 1 does not fit in a long: empty, never an exception and never a negative offset")
                .isEmpty();
        assertThat(Segment.parseBaseOffset("99999999999999999999.log", LOG))
                .as("twenty nines overflow a long: empty, never an exception")
                .isEmpty();
    }

    @Test
    void onlyTheNamesFileNameWritesAreAccepted() {
        String arabicIndicOne = "\u0660".repeat(19) + "\u0661" + LOG;
        assertThat(Segment.parseBaseOffset(arabicIndicOne, LOG))
                .as("\"%s\" is twenty digits, but not ASCII ones: fileName(1) is 00000000000000000001.log, and a name"
                        + " that does not round trip must be ignored, or Log.open would try to open a segment file"
                        + " that does not exist", arabicIndicOne)
                .isEmpty();
    }

    @Test
    void anEmptyLogStartsAtOffsetZeroWithOneEmptySegment(@TempDir Path dir) throws IOException {
        try (Log log = Log.open(dir, LogConfig.defaults())) {
            assertThat(log.logEndOffset())
                    .as("the log end offset is the offset the next record will get: 0 in an empty log")
                    .isZero();
            assertThat(log.highWatermark())
                    .as("nothing is committed yet: high watermark 0 (exclusive, so no offset is below it)")
                    .isZero();
            assertThat(log.logStartOffset()).as("an empty log starts at offset 0").isZero();
            assertThat(log.segments()).as("one segment, the active one, at base offset 0").hasSize(1);
            assertThat(fileNames(dir))
                    .as("the first segment's file is named by base offset 0 in 20 digits, as in Kafka")
                    .contains("00000000000000000000.log");
        }
    }

    private static final String NAMING = "a segment is named by its base offset in exactly 20 zero-padded decimal digits,"
            + " then the suffix, so that any long fits and the names sort in offset order";
    private static final String READING = "a name is a segment's only when it is exactly what fileName writes: 20 ASCII"
            + " digits that fit in a long, then the suffix; anything else is empty, never an exception";
    /** The suffixes of a segment's files, as Kafka's LogFileUtils names them. */
    private static final String[] SUFFIXES = {LogFileUtils.LOG_FILE_SUFFIX, LogFileUtils.INDEX_FILE_SUFFIX,
        LogFileUtils.TIME_INDEX_FILE_SUFFIX, LogFileUtils.TXN_INDEX_FILE_SUFFIX};

    @Test
    void everyOffsetIsNamedAsKafkasLogFileUtilsNamesIt() {
        Property.forAll(Gens.longs(0, Long.MAX_VALUE).zip(Gens.elements(SUFFIXES), Named::new)).check(n ->
                Judge.agree("base offset " + n.offset() + " with suffix " + n.suffix(), "file name",
                        () -> Segment.fileName(n.offset(), n.suffix()), "LogFileUtils names it", kafkaName(n), NAMING));
    }

    /** The name Kafka gives the file of this kind: LogFileUtils.logFile, offsetIndexFile, timeIndexFile, transactionIndexFile. */
    private static String kafkaName(Named n) {
        java.io.File dir = new java.io.File(".");
        java.io.File file = switch (n.suffix()) {
            case LogFileUtils.LOG_FILE_SUFFIX -> LogFileUtils.logFile(dir, n.offset());
            case LogFileUtils.INDEX_FILE_SUFFIX -> LogFileUtils.offsetIndexFile(dir, n.offset());
            case LogFileUtils.TIME_INDEX_FILE_SUFFIX -> LogFileUtils.timeIndexFile(dir, n.offset());
            default -> LogFileUtils.transactionIndexFile(dir, n.offset());
        };
        return file.getName();
    }

    private record Named(long offset, String suffix) {
    }

    /** A file name in a directory (a prefix, then a suffix) read back with a suffix. */
    private record FileName(String prefix, String suffix, String asked) {
        String file() {
            return prefix + suffix;
        }

        @Override
        public String toString() {
            return Property.show(file()) + " read with " + asked;
        }
    }

    /**
     * Names as a directory holds them: Kafka's own names for every offset, the same with a few bytes
     * changed, dropped or added (a sign, a letter, a 19th or 21st digit), twenty digits of any value or
     * script, strings of 18 to 22 digits that mix in other scripts' digits and signs, and any text at all;
     * each with any suffix, read with any.
     */
    private static Gen<FileName> names() {
        Gen<String> kafkas = Gens.longs(0, Long.MAX_VALUE).map(LogFileUtils::filenamePrefixFromOffset);
        Gen<String> damaged = kafkas.flatMap(name -> Gens.damaged(name.getBytes(StandardCharsets.UTF_8))
                .map(b -> new String(b, StandardCharsets.UTF_8)));
        Gen<String> digits = Gens.lists(Gens.oneOf(Gens.ints('0', '9'), Gens.elements(0x660, 0x661, 0xff11, (int) '+', (int) '-')),
                18, 22).map(cps -> cps.stream().collect(StringBuilder::new, StringBuilder::appendCodePoint,
                StringBuilder::append).toString());
        // Kafka's own names with some digits written in another script (Arabic-Indic, fullwidth): Long.parseLong
        // reads them as the same number; and twenty ASCII digits of any value, most over Long.MAX_VALUE, many
        // between it and 2^64 (where an unsigned parse wraps).
        Gen<String> otherScripts = c -> {
            StringBuilder name = new StringBuilder();
            for (char d : kafkas.generate(c).toCharArray()) {
                name.appendCodePoint(List.of((int) d, 0x660 + d - '0', 0xff10 + d - '0').get(Gens.ints(0, 2).generate(c)));
            }
            return name.toString();
        };
        Gen<String> twentyAscii = Gens.lists(Gens.ints('0', '9'), 20, 20).map(cps -> cps.stream()
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString());
        Gen<String> prefixes = Gens.oneOf(kafkas, damaged, twentyAscii, otherScripts, digits, Gens.strings(0, 24));
        Gen<String> suffixes = Gens.elements(SUFFIXES);
        return c -> new FileName(prefixes.generate(c), suffixes.generate(c), suffixes.generate(c));
    }

    @Test
    void everyFileNameIsReadBackOnlyWhenKafkasLogFileUtilsWritesIt() {
        Property.forAll(names()).check(n -> Judge.agree("the file name " + n, "base offset",
                () -> Segment.parseBaseOffset(n.file(), n.asked()), "LogFileUtils writes it for",
                kafkaWrites(n.file(), n.asked()), READING));
    }

    /**
     * The base offset whose name LogFileUtils writes as {@code file} with {@code suffix}, read back by its
     * offsetFromFileName; empty when it writes no such name. (Kafka's offsetFromFileName alone reads any
     * number before the first dot, "42.log" and "-1.log" too: see the guide's differences.)
     */
    private static OptionalLong kafkaWrites(String file, String suffix) {
        if (!file.endsWith(suffix)) {
            return OptionalLong.empty();
        }
        long offset;
        try {
            offset = LogFileUtils.offsetFromFileName(file);
        } catch (RuntimeException notANumber) {
            return OptionalLong.empty();
        }
        return offset >= 0 && (LogFileUtils.filenamePrefixFromOffset(offset) + suffix).equals(file)
                ? OptionalLong.of(offset) : OptionalLong.empty();
    }
}
