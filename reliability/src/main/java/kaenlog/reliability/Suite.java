package kaenlog.reliability;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import kaenlog.reliability.cluster.ClusterFaults;

/**
 * The report's scenarios in the report's order, each under a name ({@code reliability/run --only
 * NAME}) and run in a directory of its own. What a scenario returns says where the report prints
 * it, and the report prints every result of one kind the same way:
 * <ul>
 * <li>{@link #rows()}: a {@link Figures}, its rows in the summary table and its details under its
 *     title (several rows: override {@code rows()}; one row per probe: {@link ProbeFigures});</li>
 * <li>{@link #tables()}: a {@link TableFigures}, its own table after the summary table and its
 *     details under its title;</li>
 * <li>{@link #findings()}: a {@link Finding}, its lines under "findings" (never the exit status).</li>
 * </ul>
 * Adding a row is one entry in the list of its kind (and its size in {@link Sizes} when it has
 * one). A result of a new shape implements one of the three kinds, or its entry turns it into one
 * (as the findings below do): the report itself does not change.
 */
final class Suite {
    /** A scenario of the report: its name, and how it runs in a directory of its own. */
    record Entry<T>(String name, Scenario<T> scenario) {
    }

    interface Scenario<T> {
        T run(Path dir) throws IOException;
    }

    private final Sizes sizes;
    /** The names the command line chose ({@code --only}); empty: every scenario. */
    private final Set<String> only;
    private final BrokerProcess.Options options = BrokerProcess.Options.ofThisClasspath();
    /** Row 6's result: finding F3 is measured in its row 6a. */
    private BoundedBroker.Result bounded;

    Suite(Sizes sizes) {
        this(sizes, Set.of());
    }

    /**
     * The scenarios {@code only} names ({@link #chosen}); a name of a cluster row
     * ({@link ClusterFaults.Scenario}, e.g. COORDINATOR_KILLED) chooses the cluster table with that row alone.
     */
    Suite(Sizes sizes, Set<String> only) {
        this.sizes = sizes;
        this.only = Set.copyOf(only);
    }

    Sizes sizes() {
        return sizes;
    }

    /** The summary table's scenarios. */
    List<Entry<Figures>> rows() {
        return List.of(
                new Entry<>("crash", dir -> CrashRecovery.run(dir, options, sizes.crash())),
                new Entry<>("roll", dir -> RollCrash.run(dir, options, 11)),
                new Entry<>("compaction", dir -> CompactionCrash.run(dir, System.getProperty("java.class.path"), 5,
                        new int[] {0, 1})),
                new Entry<>("txn-kill9", dir -> TxnKill9.run(dir, options)),
                new Entry<>("streams-eos", dir -> StreamsEosKill9.run(dir, options, sizes.streams())),
                new Entry<>("acks", dir -> AckLoss.run(dir, sizes.acks())),
                new Entry<>("hostile", dir -> HostileClients.run(dir, options, sizes.hostile())),
                new Entry<>("fuzz", dir -> DecoderFuzz.run(sizes.fuzz())),
                new Entry<>("load", dir -> Load.run(dir, sizes.load())),
                new Entry<>("bounded", this::bounded),
                new Entry<>("neighbour", dir -> OfflineNeighbour.run(dir, options)),
                new Entry<>("response", dir -> ResponsePath.run(dir, options, sizes.response())),
                new Entry<>("groups", dir -> GroupCoordinatorAttacks.run(dir, options, sizes.groups())));
    }

    /** The scenarios with a table of their own. */
    List<Entry<TableFigures>> tables() {
        return List.of(
                new Entry<>("storage", dir -> StorageFaults.run(dir, options)),
                new Entry<>("lost-files", dir -> LostFiles.run(dir, options)),
                new Entry<>("cluster", dir -> ClusterFaults.run(dir, options, sizes.cluster(), clusterRows())));
    }

    /** The cluster table's rows: those {@code only} names, or all of them. */
    private List<ClusterFaults.Scenario> clusterRows() {
        List<ClusterFaults.Scenario> named = Arrays.stream(ClusterFaults.Scenario.values())
                .filter(s -> only.contains(s.name())).toList();
        return named.isEmpty() || only.contains("cluster") ? List.of(ClusterFaults.Scenario.values()) : named;
    }

    /** The entries of {@code entries} the command line chose: all, or those named (the cluster's by a row's name too). */
    <T> List<Entry<T>> chosen(List<Entry<T>> entries) {
        boolean clusterRow = Arrays.stream(ClusterFaults.Scenario.values()).anyMatch(s -> only.contains(s.name()));
        return entries.stream().filter(e -> only.isEmpty() || only.contains(e.name())
                || e.name().equals("cluster") && clusterRow).toList();
    }

    /** The names of the cluster table's rows, each a name {@code --only} takes. */
    static List<String> clusterRowNames() {
        return Arrays.stream(ClusterFaults.Scenario.values()).map(Enum::name).toList();
    }

    /** The findings, F1 to F5. F3 comes with row 6 (its name is row 6's): it is measured in row 6a. */
    List<Entry<Finding>> findings() {
        return List.of(
                new Entry<>("F1", this::damagedSegmentFiles),
                new Entry<>("F2", this::lyingBatch),
                new Entry<>("bounded", dir -> stalledFrames()),
                new Entry<>("F4", this::silentDrop),
                new Entry<>("F5", dir -> offsetsLogNotUtf8()));
    }

    /** Every name, in the report's order, each once. */
    List<String> names() {
        List<String> names = new ArrayList<>();
        for (List<? extends Entry<?>> kind : List.of(rows(), tables(), findings())) {
            kind.stream().map(Entry::name).filter(n -> !names.contains(n)).forEach(names::add);
        }
        names.addAll(clusterRowNames());
        return names;
    }

    private BoundedBroker.Result bounded(Path dir) throws IOException {
        bounded = BoundedBroker.run(dir, options, sizes.bounds());
        return bounded;
    }

    private Finding damagedSegmentFiles(Path dir) throws IOException {
        SegmentFileFuzz.Result damaged = SegmentFileFuzz.run(dir, sizes.disk());
        return new Finding("F1 damaged segment files: " + damaged.inputs() + " inputs, " + damaged.untypedTotal()
                + " untyped errors from Log.open (expected: a typed CorruptBatchException, or the segment"
                + " truncated/split as Kafka's LogLoader does)", damaged.details());
    }

    private Finding lyingBatch(Path dir) throws IOException {
        return new Finding("F2 a batch whose lastOffsetDelta disagrees with its record count:",
                LyingBatchProbe.run(dir, options).lines());
    }

    private Finding stalledFrames() {
        List<String> lines = new ArrayList<>(bounded.stalled().lines());
        lines.add("expected: the sum is bounded as Kafka bounds it (queued.max.request.bytes,"
                + " connections.max.idle.ms, max.connections): the broker lives and serves on");
        return new Finding("F3 memory held by frames that never finish (measured in row 6a):", lines);
    }

    private Finding silentDrop(Path dir) throws IOException {
        boolean blocked = AckLoss.idempotentProducerWaitsForeverOnASilentDrop(dir, 3_000);
        return Finding.of("F4 a response lost without the connection closing: chapter 7's IdempotentProducer "
                + (blocked ? "was still waiting after 3 s (no request timeout; Kafka's request.timeout.ms is 30 s,"
                + " then it resends)" : "gave up or resent within 3 s"));
    }

    private Finding offsetsLogNotUtf8() {
        Findings.OffsetCommitUtf8 utf8 = Findings.offsetCommitUtf8();
        return Finding.of("F5 an offsets-log key whose group is 20,000 bytes that are not UTF-8: OffsetCommitKey.decode"
                + " threw " + utf8.keyThrew() + ", OffsetCommitValue.decode (metadata) threw " + utf8.valueThrew()
                + " (expected: CorruptOffsetRecordException naming the field)");
    }

    /** How large each scenario runs: the sizes, or with {@code --quick} the tests' where a scenario has them. */
    record Sizes(CrashRecovery.Config crash, AckLoss.Config acks, HostileClients.Config hostile, DecoderFuzz.Config fuzz,
                 SegmentFileFuzz.Config disk, Load.Config load, BoundedBroker.Config bounds,
                 ResponsePath.Config response, GroupCoordinatorAttacks.Config groups, ClusterFaults.Config cluster,
                 StreamsEosKill9.Config streams) {
        static Sizes of(boolean quick) {
            return new Sizes(CrashRecovery.Config.full(), AckLoss.Config.full(), HostileClients.Config.full(),
                    quick ? new DecoderFuzz.Config(4, 200_000) : DecoderFuzz.Config.full(),
                    quick ? new SegmentFileFuzz.Config(6, 1_000) : SegmentFileFuzz.Config.full(), Load.Config.full(),
                    quick ? BoundedBroker.Config.quick() : BoundedBroker.Config.full(),
                    quick ? ResponsePath.Config.quick() : ResponsePath.Config.full(),
                    quick ? GroupCoordinatorAttacks.Config.quick() : GroupCoordinatorAttacks.Config.full(),
                    quick ? ClusterFaults.Config.quick() : ClusterFaults.Config.full(),
                    quick ? StreamsEosKill9.Config.quick() : StreamsEosKill9.Config.full());
        }

        /** The report's line of sizes. */
        String line() {
            return String.format("sizes: %d SIGKILL cycles, %,d records through the faulty proxy, %d x %,d load records"
                            + " with %d consumers, %,d decoder mutations, %,d damaged segment files, %d cluster scenarios"
                            + " of at least %,d acknowledged records, %d SIGKILLs or SIGSTOPs of a Kafka Streams"
                            + " application in each of its %d rows", crash.cycles(), acks.records(), load.producers(),
                    load.recordsPerProducer(), load.consumers(), fuzz.mutations(), disk.inputs(),
                    ClusterFaults.Scenario.values().length, cluster.records(), streams.kills(),
                    StreamsEosKill9.Restart.values().length);
        }
    }
}
