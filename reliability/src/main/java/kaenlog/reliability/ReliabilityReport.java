package kaenlog.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs every scenario of the reliability suite at the full size and prints a short table
 * of what was measured: runs, records, faults injected, records lost, duplicates, crashes
 * survived; then a few lines of detail per scenario, then the findings (what the broker does not
 * survive yet, each with what Kafka does instead). Everything runs on loopback, in a temporary
 * directory deleted at the end, from seeds; no path or port is printed, and no time but the latency a
 * well-behaved client saw while the broker's limits were hit (scenario 6). Exit status 0 when
 * every scenario of the issue held (the findings do not change it), 1 otherwise.
 *
 * <p>{@code reliability/run} builds the reference and runs this; {@code --quick} runs the sizes
 * the tests use instead, {@code --only} some of the scenarios. What the report holds, and how to
 * add to it, is {@link Suite}'s: this class only prints each kind of result in its place.
 */
public final class ReliabilityReport {
    /** The summary table's columns: the header and every row. */
    private static final String SUMMARY = "%-44s %9s %9s %8s %6s %6s %8s  %s";

    private ReliabilityReport() {
    }

    public static void main(String[] args) {
        try {
            System.exit(run(args));
        } catch (IOException | RuntimeException e) {
            // said here: the cluster rows' ZooKeeper server (NIOServerCnxnFactory) replaces the default
            // uncaught-exception handler with one that logs to slf4j, a no-op here
            e.printStackTrace();
            System.exit(1);
        }
    }

    /** The command: its exit status, 2 with the usage for arguments it does not know. */
    static int run(String[] args) throws IOException {
        Suite any = new Suite(Suite.Sizes.of(false));
        Arguments arguments;
        try {
            arguments = Arguments.parse(args, any.names());
        } catch (IllegalArgumentException e) {
            System.err.println("reliability/run: " + e.getMessage());
            System.err.print(usage(any));
            return 2;
        }
        if (arguments.help()) {
            System.out.print(usage(any));
            return 0;
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Path root = Files.createTempDirectory("kaenlog-reliability");
        try {
            return report(root, new Suite(Suite.Sizes.of(arguments.quick()), arguments.only()), out);
        } finally {
            Directories.deleteTree(root);
        }
    }

    /** What the command line asked for; {@code only} is empty for every scenario. */
    record Arguments(boolean quick, boolean help, Set<String> only) {
        static Arguments parse(String[] args, List<String> names) {
            boolean quick = false;
            boolean help = false;
            Set<String> only = new LinkedHashSet<>();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> quick = true;
                    case "--help", "-h" -> help = true;
                    case "--only" -> only.addAll(chosen(i + 1 < args.length ? args[++i] : "", names));
                    default -> throw new IllegalArgumentException("unknown argument " + args[i]);
                }
            }
            return new Arguments(quick, help, only);
        }

        private static List<String> chosen(String list, List<String> names) {
            for (String name : list.split(",")) {
                if (!names.contains(name)) {
                    throw new IllegalArgumentException("--only: no scenario '" + name + "'");
                }
            }
            return List.of(list.split(","));
        }
    }

    static String usage(Suite suite) {
        return """
                usage: reliability/run [--quick] [--only NAME[,NAME...]]
                  every scenario at the issue's full size, then the findings; exit 0 when every scenario
                  held (the findings do not change it), 1 when one did not, 2 for a wrong argument
                  --quick   the sizes the tests run, where a scenario has them
                  --only    these scenarios only (the line of sizes still names every one):
                              rows      %s
                              tables    %s
                              findings  %s (F3 comes with bounded: it is measured in row 6a)
                              cluster   one row of the cluster table: %s
                """.formatted(names(suite.rows(), List.of()), names(suite.tables(), List.of()),
                names(suite.findings(), suite.rows()), String.join(" ", Suite.clusterRowNames()));
    }

    /** The entries' names, less those of {@code others}. */
    private static String names(List<? extends Suite.Entry<?>> entries, List<? extends Suite.Entry<?>> others) {
        List<String> taken = others.stream().map(Suite.Entry::name).toList();
        return String.join(" ", entries.stream().map(Suite.Entry::name).filter(n -> !taken.contains(n)).toList());
    }

    /** Runs the scenarios the suite was told to (every one by default) and prints each result in its place. */
    static int report(Path root, Suite suite, PrintStream out) throws IOException {
        out.println("kaen-log reliability report (reference solutions; loopback only; seeded)");
        out.println(suite.sizes().line());
        out.println();
        List<Figures> rows = new ArrayList<>();
        for (Suite.Entry<Figures> entry : suite.chosen(suite.rows())) {
            rows.add(run(root, entry));
        }
        printSummary(rows, out);
        List<TableFigures> tables = new ArrayList<>();
        for (Suite.Entry<TableFigures> entry : suite.chosen(suite.tables())) {
            // each table as soon as its scenario ends: the cluster's takes long
            TableFigures table = run(root, entry);
            out.println();
            table.table().forEach(out::println);
            tables.add(table);
        }
        rows.forEach(f -> printDetails(f.title(), f.details(), out));
        tables.forEach(t -> printDetails(t.title(), t.details(), out));
        printFindings(root, suite.chosen(suite.findings()), out);

        boolean ok = rows.stream().allMatch(Figures::ok) && tables.stream().allMatch(TableFigures::ok);
        out.println();
        out.println(ok ? "every scenario of the issue held" : "SOME SCENARIOS FAILED: see FAILED above");
        return ok ? 0 : 1;
    }

    /** Runs one scenario in a directory named after it. */
    private static <T> T run(Path root, Suite.Entry<T> entry) throws IOException {
        return entry.scenario().run(Files.createDirectories(root.resolve(entry.name().toLowerCase())));
    }

    private static void printSummary(List<Figures> scenarios, PrintStream out) {
        if (scenarios.isEmpty()) {
            return;
        }
        String header = String.format(SUMMARY, "scenario", "runs", "records", "faults", "lost", "dups", "crashes",
                "verdict");
        out.println(header);
        out.println("-".repeat(header.length() + 4));
        for (Figures f : scenarios) {
            for (Figures.Row row : f.rows()) {
                out.println(String.format(SUMMARY, row.scenario(), n(row.runs()), n(row.records()),
                        n(row.faultsInjected()), n(row.recordsLost()), n(row.duplicates()), n(row.crashesSurvived()),
                        f.verdict(row)));
            }
        }
        out.println("(crashes: crashes after which every check held; '-': does not apply)");
    }

    private static void printDetails(String title, List<String> details, PrintStream out) {
        out.println();
        out.println(title + ":");
        details.forEach(line -> out.println("  " + line));
    }

    /** Each finding as soon as it is measured. */
    private static void printFindings(Path root, List<Suite.Entry<Finding>> findings, PrintStream out)
            throws IOException {
        if (findings.isEmpty()) {
            return;
        }
        out.println();
        out.println("findings: what this suite once caught the reference failing, each fixed since and re-measured here");
        for (Suite.Entry<Finding> entry : findings) {
            Finding finding = run(root, entry);
            out.println(finding.line());
            finding.details().forEach(line -> out.println("  " + line));
        }
    }

    /** A count, or "-" where it does not apply. */
    private static String n(long value) {
        return value < 0 ? "-" : String.format("%,d", value);
    }
}
