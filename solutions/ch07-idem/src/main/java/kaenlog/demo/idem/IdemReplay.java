package kaenlog.demo.idem;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import kaenlog.batch.BatchHeader;
import kaenlog.cli.Flags;
import kaenlog.cli.ScratchDir;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.idem.Idempotence;
import kaenlog.idem.IdempotentAppend;
import kaenlog.idem.ProducerState;
import kaenlog.idem.Verdict;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;

/**
 * {@code klog idem-replay [FILE|-]}: replays a script of idempotent batches against a fresh
 * partition, so a learner can try a scenario of their own and see the verdicts. One step a line:
 *
 * <pre>
 * # a comment; blank lines are skipped
 * 1000 0 0 1        PID EPOCH FIRST_SEQ LAST_SEQ: a batch of LAST-FIRST+1 records
 * restart           close the log, reopen it, rebuild the producer state from the active segment
 * show 1000         print producer 1000's window
 * </pre>
 *
 * Each batch prints one line: {@code APPEND base=N}, {@code DUPLICATE first..last} (the offsets of
 * the first write) or {@code OUT_OF_ORDER expected=E got=G}. The whole script is parsed before
 * anything runs: a malformed line is reported with its number, nothing is replayed, exit status 2.
 */
public final class IdemReplay implements Subcommand {
    /** A longer batch is surely a typo (or a wrap the learner did not mean). */
    static final int MAX_BATCH_RECORDS = 1000;

    @Override
    public String name() {
        return "idem-replay";
    }

    @Override
    public String usage() {
        return "[--segment-bytes N] [--now-ms MS] [FILE|-]   (lines: PID EPOCH FIRST_SEQ LAST_SEQ | restart | show PID)";
    }

    @Override
    public String summary() {
        return "chapter 7: replay a script of idempotent batches and print each verdict";
    }

    /** One line of the script. */
    sealed interface Step {
        int line();
    }

    record Batch(int line, long producerId, short epoch, int firstSeq, int lastSeq, int count) implements Step {
    }

    record Restart(int line) implements Step {
    }

    record Show(int line, long producerId) implements Step {
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        return run(args, System.in, out, err);
    }

    /** {@link #run(List, PrintStream, PrintStream)} with the input {@code -} reads. */
    public int run(List<String> args, InputStream stdin, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("segment-bytes", "now-ms"), Set.of());
        int segmentBytes = flags.intValue("segment-bytes", LogConfig.DEFAULT_SEGMENT_BYTES, 128, Integer.MAX_VALUE);
        long nowMs = flags.nowMs(IdemDemo.DEFAULT_NOW_MS);
        List<String> files = flags.positional();
        if (files.size() > 1) {
            throw new UsageException("one script at a time, not " + files.size());
        }
        String source = files.isEmpty() ? "-" : files.get(0);
        List<Step> steps = parse(read(source, stdin));
        try (ScratchDir dir = ScratchDir.create("kaenlog-ch07-replay-")) {
            replay(steps, dir.resolve("replay-0"), LogConfig.defaults().withSegmentBytes(segmentBytes), nowMs, out);
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> read(String source, InputStream stdin) throws UsageException {
        try {
            if (source.equals("-")) {
                return new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8)).lines().toList();
            }
            return Files.readAllLines(Path.of(source), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new UsageException("no such file: " + source);
        } catch (IOException | UncheckedIOException e) {
            throw new UsageException("cannot read " + source + ": " + e.getMessage());
        }
    }

    /** Every step of the script, or a {@link UsageException} naming the first malformed line. */
    static List<Step> parse(List<String> lines) throws UsageException {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            int number = i + 1;
            String text = lines.get(i);
            int hash = text.indexOf('#');
            String[] words = (hash < 0 ? text : text.substring(0, hash)).trim().split("\\s+");
            if (words.length == 1 && words[0].isEmpty()) {
                continue;
            }
            steps.add(step(number, words, text.trim()));
        }
        return steps;
    }

    private static Step step(int line, String[] words, String text) throws UsageException {
        if (words.length == 1 && words[0].equals("restart")) {
            return new Restart(line);
        }
        if (words.length == 2 && words[0].equals("show")) {
            return new Show(line, number(line, "PID", words[1], 0, Long.MAX_VALUE));
        }
        if (words.length != 4) {
            throw new UsageException("line " + line + ": expected 'PID EPOCH FIRST_SEQ LAST_SEQ', 'restart' or"
                    + " 'show PID', not '" + text + "'");
        }
        long pid = number(line, "PID", words[0], 0, Long.MAX_VALUE);
        short epoch = (short) number(line, "EPOCH", words[1], 0, Short.MAX_VALUE);
        int first = (int) number(line, "FIRST_SEQ", words[2], 0, Integer.MAX_VALUE);
        int last = (int) number(line, "LAST_SEQ", words[3], 0, Integer.MAX_VALUE);
        // Sequences wrap from Integer.MAX_VALUE to 0, so LAST below FIRST is a batch across the wrap.
        long count = last >= first ? (long) last - first + 1 : (long) Integer.MAX_VALUE - first + 1 + last + 1;
        if (count > MAX_BATCH_RECORDS) {
            throw new UsageException("line " + line + ": " + first + ".." + last + " would be a batch of " + count
                    + " records (at most " + MAX_BATCH_RECORDS + "; LAST_SEQ below FIRST_SEQ wraps past "
                    + Integer.MAX_VALUE + " to 0)");
        }
        return new Batch(line, pid, epoch, first, last, (int) count);
    }

    private static long number(int line, String field, String word, long min, long max) throws UsageException {
        long value;
        try {
            value = Long.parseLong(word);
        } catch (NumberFormatException e) {
            throw new UsageException("line " + line + ": " + field + " must be a whole number, not '" + word + "'");
        }
        if (value < min || value > max) {
            throw new UsageException("line " + line + ": " + field + " must be between " + min + " and " + max
                    + ", not " + value);
        }
        return value;
    }

    /** Runs the steps on a fresh log in {@code dir}, one output line per step. */
    static void replay(List<Step> steps, Path dir, LogConfig config, long nowMs, PrintStream out) throws IOException {
        Log log = Log.open(dir, config);
        ProducerState state = new ProducerState();
        try {
            for (Step step : steps) {
                if (step instanceof Batch b) {
                    IdempotentAppend result = Idempotence.appendIdempotent(log, state,
                            Idempotence.producerBatch(b.producerId(), b.epoch(), b.firstSeq(), values(b), nowMs));
                    out.println(line(result));
                } else if (step instanceof Restart) {
                    log.close();
                    log = Log.open(dir, config);
                    state = Idempotence.rebuildProducerState(log);
                    out.println("restart: producers " + state.producerIds() + " · log end offset " + log.logEndOffset()
                            + " · segments " + log.segments().size());
                } else if (step instanceof Show s) {
                    out.println(state.get(s.producerId())
                            .map(e -> "window " + s.producerId() + " epoch " + e.producerEpoch() + " " + e.window()
                                    + " expected " + e.expectedFirstSeq())
                            .orElse("window " + s.producerId() + " [] expected 0 (no state)"));
                }
            }
        } finally {
            log.close();
        }
    }

    /** The verdict line of one batch. */
    static String line(IdempotentAppend result) {
        Verdict verdict = result.verdict();
        if (verdict instanceof Verdict.Duplicate d) {
            return "DUPLICATE " + d.firstOffset() + ".." + d.lastOffset();
        }
        if (verdict instanceof Verdict.OutOfOrderSequenceNumber o) {
            return "OUT_OF_ORDER expected=" + o.expected() + " got=" + o.got();
        }
        return "APPEND base=" + result.baseOffset();
    }

    private static List<String> values(Batch b) {
        List<String> values = new ArrayList<>(b.count());
        for (int i = 0; i < b.count(); i++) {
            values.add("pid " + b.producerId() + " seq " + BatchHeader.incrementSequence(b.firstSeq(), i));
        }
        return values;
    }
}
