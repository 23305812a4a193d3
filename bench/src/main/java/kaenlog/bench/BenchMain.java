package kaenlog.bench;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs every benchmark and prints each comparison as a ratio, kaen-log over its reference
 * (kafka-clients, or the raw FileChannel). Absolute numbers on a shared 2-core machine drift from
 * run to run; the ratio of two things measured side by side in one run holds much better.
 * Arguments are JMH's own (e.g. -wi 1 -i 2 for a quick run).
 */
public final class BenchMain {
    /** kaen-log's benchmark, its reference, and the goal for the ratio. */
    private record Pair(String kaen, String reference, String versus, double goal) {
    }

    private static final Pair[] PAIRS = {
        new Pair("BatchBench.encodeKaen", "BatchBench.encodeKafka", "kafka-clients", 1.0),
        new Pair("BatchBench.decodeKaen", "BatchBench.decodeKafka", "kafka-clients", 1.0),
        new Pair("LogBench.appendLog", "LogBench.appendRaw", "raw FileChannel write", 0.7),
        new Pair("LogBench.fetchLog", "LogBench.fetchRaw", "raw FileChannel read", 0.0),
    };

    private BenchMain() {
    }

    public static void main(String[] args) throws RunnerException, org.openjdk.jmh.runner.options.CommandLineOptionException {
        CommandLineOptions cli = new CommandLineOptions(args);
        Collection<RunResult> results = new Runner(new OptionsBuilder().parent(cli).include("kaenlog.bench.*").build()).run();
        Map<String, Double> score = new TreeMap<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark().replace("kaenlog.bench.", "");
            String shape = r.getParams().getParam("shape");
            score.put(shape == null ? name : name + " " + shape, r.getPrimaryResult().getScore());
        }
        System.out.println();
        System.out.printf("%-34s %-22s %14s %14s %7s %6s%n", "kaen-log", "versus", "kaen ops/s", "ref ops/s", "ratio", "goal");
        for (Pair pair : PAIRS) {
            for (Map.Entry<String, Double> e : score.entrySet()) {
                if (!e.getKey().startsWith(pair.kaen())) {
                    continue;
                }
                String suffix = e.getKey().substring(pair.kaen().length());
                Double reference = score.get(pair.reference() + suffix);
                if (reference == null) {
                    continue;
                }
                double ratio = e.getValue() / reference;
                System.out.printf("%-34s %-22s %14.0f %14.0f %6.2fx %6s%n", e.getKey(), pair.versus(), e.getValue(),
                        reference, ratio, pair.goal() > 0 ? String.format(">=%.1f", pair.goal()) : "-");
            }
        }
    }
}
