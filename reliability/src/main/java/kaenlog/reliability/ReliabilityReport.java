package kaenlog.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import kaenlog.reliability.cluster.ClusterFaults;

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
 * the tests use instead.
 */
public final class ReliabilityReport {
    private ReliabilityReport() {
    }

    public static void main(String[] args) {
        try {
            main(List.of(args).contains("--quick"));
        } catch (IOException | RuntimeException e) {
            // said here: the cluster rows' ZooKeeper server (NIOServerCnxnFactory) replaces the default
            // uncaught-exception handler with one that logs to slf4j, a no-op here
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void main(boolean quick) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Path root = Files.createTempDirectory("kaenlog-reliability");
        int status;
        try {
            status = report(root, quick, out);
        } finally {
            deleteTree(root);
        }
        System.exit(status);
    }

    static int report(Path root, boolean quick, PrintStream out) throws IOException {
        BrokerProcess.Options options = BrokerProcess.Options.ofThisClasspath();
        CrashRecovery.Config crash = CrashRecovery.Config.full();
        AckLoss.Config acks = AckLoss.Config.full();
        HostileClients.Config hostile = HostileClients.Config.full();
        DecoderFuzz.Config fuzz = quick ? new DecoderFuzz.Config(4, 200_000) : DecoderFuzz.Config.full();
        SegmentFileFuzz.Config disk = quick ? new SegmentFileFuzz.Config(6, 1_000) : SegmentFileFuzz.Config.full();
        Load.Config load = Load.Config.full();
        BoundedBroker.Config bounds = quick ? BoundedBroker.Config.quick() : BoundedBroker.Config.full();

        out.println("kaen-log reliability report (reference solutions; loopback only; seeded)");
        ClusterFaults.Config clusterSize = quick ? ClusterFaults.Config.quick() : ClusterFaults.Config.full();
        out.printf("sizes: %d SIGKILL cycles, %,d records through the faulty proxy, %d x %,d load records with %d"
                        + " consumers, %,d decoder mutations, %,d damaged segment files, %d cluster scenarios of at least"
                        + " %,d acknowledged records%n", crash.cycles(), acks.records(), load.producers(),
                load.recordsPerProducer(), load.consumers(), fuzz.mutations(), disk.inputs(),
                ClusterFaults.Scenario.values().length, clusterSize.records());
        out.println();

        List<Figures> scenarios = new ArrayList<>();
        scenarios.add(CrashRecovery.run(Files.createDirectories(root.resolve("crash")), options, crash));
        scenarios.add(RollCrash.run(Files.createDirectories(root.resolve("roll")), options, 11));
        scenarios.add(CompactionCrash.run(Files.createDirectories(root.resolve("compaction")),
                System.getProperty("java.class.path"), 5, new int[] {0, 1}));
        scenarios.add(AckLoss.run(Files.createDirectories(root.resolve("acks")), acks));
        scenarios.add(HostileClients.run(Files.createDirectories(root.resolve("hostile")), options, hostile));
        scenarios.add(DecoderFuzz.run(fuzz));
        scenarios.add(Load.run(Files.createDirectories(root.resolve("load")), load));
        BoundedBroker.Result bounded = BoundedBroker.run(Files.createDirectories(root.resolve("bounded")), options,
                bounds);
        scenarios.add(bounded);
        scenarios.add(OfflineNeighbour.run(Files.createDirectories(root.resolve("neighbour")), options));
        scenarios.add(ResponsePath.run(Files.createDirectories(root.resolve("response")), options,
                quick ? ResponsePath.Config.quick() : ResponsePath.Config.full()));
        scenarios.add(GroupCoordinatorAttacks.run(Files.createDirectories(root.resolve("groups")), options,
                quick ? GroupCoordinatorAttacks.Config.quick() : GroupCoordinatorAttacks.Config.full()));

        String header = String.format("%-44s %9s %9s %8s %6s %6s %8s  %s", "scenario", "runs", "records", "faults",
                "lost", "dups", "crashes", "verdict");
        out.println(header);
        out.println("-".repeat(header.length() + 4));
        for (Figures f : scenarios) {
            for (Figures.Row row : f.rows()) {
                boolean expectedDuplicates = row.scenario().contains("no idempotence");
                out.printf("%-44s %9s %9s %8s %6s %6s %8s  %s%n", row.scenario(), n(row.runs()), n(row.records()),
                        n(row.faultsInjected()), n(row.recordsLost()), n(row.duplicates()), n(row.crashesSurvived()),
                        expectedDuplicates ? "(for contrast)" : f.ok(row) ? "ok" : "FAILED");
            }
        }
        out.println("(crashes: crashes after which every check held; '-': does not apply)");
        out.println();
        StorageFaults.Result storage = StorageFaults.run(Files.createDirectories(root.resolve("storage")), options);
        storage.table().forEach(out::println);
        out.println();
        LostFiles.Result lostFiles = LostFiles.run(Files.createDirectories(root.resolve("lost-files")), options);
        lostFiles.table().forEach(out::println);
        out.println();
        ClusterFaults.Result cluster = ClusterFaults.run(Files.createDirectories(root.resolve("cluster")), options,
                clusterSize, List.of(ClusterFaults.Scenario.values()));
        cluster.table().forEach(out::println);
        for (Figures f : scenarios) {
            out.println();
            out.println(f.title() + ":");
            f.details().forEach(line -> out.println("  " + line));
        }

        out.println();
        out.println("storage faults:");
        storage.details().forEach(line -> out.println("  " + line));
        out.println();
        out.println("files lost after a clean stop:");
        lostFiles.details().forEach(line -> out.println("  " + line));
        out.println();
        out.println("the cluster under faults (three klog serve processes, ZooKeeper, a proxy on every link):");
        cluster.details().forEach(line -> out.println("  " + line));

        out.println();
        out.println("findings: what this suite once caught the reference failing, each fixed since and re-measured here");
        SegmentFileFuzz.Result damaged = SegmentFileFuzz.run(Files.createDirectories(root.resolve("disk")), disk);
        out.println("F1 damaged segment files: " + damaged.inputs() + " inputs, " + damaged.untypedTotal()
                + " untyped errors from Log.open (expected: a typed CorruptBatchException, or the segment"
                + " truncated/split as Kafka's LogLoader does)");
        damaged.details().forEach(line -> out.println("  " + line));
        LyingBatchProbe.Result lie = LyingBatchProbe.run(Files.createDirectories(root.resolve("lie")), options);
        out.println("F2 a batch whose lastOffsetDelta disagrees with its record count:");
        lie.lines().forEach(line -> out.println("  " + line));
        out.println("F3 memory held by frames that never finish (measured in row 6a):");
        bounded.stalled().lines().forEach(line -> out.println("  " + line));
        out.println("  expected: the sum is bounded as Kafka bounds it (queued.max.request.bytes,"
                + " connections.max.idle.ms, max.connections): the broker lives and serves on");
        boolean blocked = AckLoss.idempotentProducerWaitsForeverOnASilentDrop(
                Files.createDirectories(root.resolve("silent")), 3_000);
        out.println("F4 a response lost without the connection closing: chapter 7's IdempotentProducer "
                + (blocked ? "was still waiting after 3 s (no request timeout; Kafka's request.timeout.ms is 30 s,"
                + " then it resends)" : "gave up or resent within 3 s"));
        Findings.OffsetCommitUtf8 utf8 = Findings.offsetCommitUtf8();
        out.println("F5 an offsets-log key whose group is 20,000 bytes that are not UTF-8: OffsetCommitKey.decode threw "
                + utf8.keyThrew() + ", OffsetCommitValue.decode (metadata) threw " + utf8.valueThrew()
                + " (expected: CorruptOffsetRecordException naming the field)");

        boolean ok = scenarios.stream().allMatch(Figures::ok) && storage.ok() && lostFiles.ok() && cluster.ok();
        out.println();
        out.println(ok ? "every scenario of the issue held" : "SOME SCENARIOS FAILED: see FAILED above");
        return ok ? 0 : 1;
    }

    private static String n(long value) {
        return value < 0 ? "-" : String.format("%,d", value);
    }

    /** Deletes {@code root} and everything under it. */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
