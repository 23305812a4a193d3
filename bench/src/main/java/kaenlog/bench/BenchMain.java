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
 * Runs every benchmark and prints each comparison as a speed ratio, kaen-log over its reference
 * (kafka-clients, or the raw FileChannel): above 1 kaen-log is faster. Scores are ops/s for
 * throughput benchmarks and ms per shot for single-shot ones. Absolute numbers on a shared 2-core machine drift from
 * run to run; the ratio of two things measured side by side in one run holds much better.
 * Arguments are JMH's own (e.g. -wi 1 -i 2 for a quick run, or a regular expression such as
 * LogBench to run some of them).
 */
public final class BenchMain {
    /** kaen-log's benchmark, its reference, and the goal for the ratio. */
    private record Pair(String kaen, String reference, String versus, double goal) {
    }

    private static final Pair[] PAIRS = {
        new Pair("BatchBench.encodeKaen", "BatchBench.encodeKafka", "kafka-clients", 1.0),
        new Pair("BatchBench.decodeKaen", "BatchBench.decodeKafka", "kafka-clients", 1.0),
        new Pair("BatchBench.validateKaen", "BatchBench.decodeKafka", "kafka-clients", 0.0),
        new Pair("LogBench.appendLog", "LogBench.appendRaw", "raw FileChannel write", 0.7),
        new Pair("LogBench.fetchLog", "LogBench.fetchRaw", "raw FileChannel read", 0.0),
        new Pair("LogBench.fetchSend", "LogBench.fetchRaw", "raw FileChannel read", 0.9),
        new Pair("LogBench.fetchSend", "LogBench.fetchRawSend", "raw transferTo", 0.0),
    };

    private BenchMain() {
    }

    public static void main(String[] args) throws RunnerException, org.openjdk.jmh.runner.options.CommandLineOptionException {
        CommandLineOptions cli = new CommandLineOptions(args);
        OptionsBuilder options = new OptionsBuilder();
        options.parent(cli);
        if (cli.getIncludes().isEmpty()) {
            options.include("kaenlog.bench.*");
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        Map<String, Double> score = new TreeMap<>();
        java.util.Set<String> timed = new java.util.HashSet<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark().replace("kaenlog.bench.", "");
            String shape = r.getParams().getParam("shape");
            String key = shape == null ? name : name + " " + shape;
            score.put(key, r.getPrimaryResult().getScore());
            if (r.getPrimaryResult().getScoreUnit().endsWith("/op")) {
                timed.add(key);
            }
        }
        System.out.println();
        System.out.printf("%-34s %-22s %14s %14s %7s %6s%n", "kaen-log", "versus", "kaen score", "ref score", "speed", "goal");
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
                // Throughput (ops/s): more is faster. Single-shot time (ms/op): less is faster.
                // Either way the ratio printed is kaen-log's speed over the reference's.
                double ratio = timed.contains(e.getKey()) ? reference / e.getValue() : e.getValue() / reference;
                System.out.printf("%-34s %-22s %14.2f %14.2f %6.2fx %6s%n", e.getKey(), pair.versus(), e.getValue(),
                        reference, ratio, pair.goal() > 0 ? String.format(">=%.1f", pair.goal()) : "-");
            }
        }
    }
}
