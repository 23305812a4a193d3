package kaenlog.broker;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.wire.PartitionNames;

/**
 * The partitions' logs of one broker, Kafka's {@code LogManager}: it opens and recovers them at
 * start ({@code loadLogs}), opens or creates one on first use ({@code getOrCreateLog}), closes them,
 * and deletes one by renaming it first ({@code asyncDelete}). Each lives in a directory under the
 * data directory. The partitions open at once are capped
 * ({@code max.open.partitions}): the one unused longest is closed, and reopened on demand; a
 * partition a request is using is never closed under it ({@link SocketServer.ConnectionScope}: the
 * request running on a connection's thread holds what it opened until it is answered).
 */
final class LogManager implements SocketServer.ConnectionScope {
    private final BrokerConfig config;
    /** The configs in force (the broker's: a topic's configs may change while it runs). */
    private final Supplier<PartitionConfigs> configs;
    private final int maxOpenPartitions;
    private final PrintStream log;
    private final List<BrokerExtension> extensions;
    /** Guarded by this. */
    private final Map<String, OpenPartition> partitions = new HashMap<>();
    /** Guarded by this: every client partition the broker holds, open or only on disk ({@code max.partitions}). */
    private final Set<String> held = new HashSet<>();
    private long partitionUses;
    /** A partition being deleted is renamed to this prefix and a number first ({@link #deletePartition}). */
    static final String DELETING_PREFIX = "deleting.";
    /** Guarded by this: the number of the last {@code deleting.N}. */
    private long deletions;
    /** The partitions the request on this connection's thread uses; none is closed under it. */
    private final ThreadLocal<List<OpenPartition>> inUse = new ThreadLocal<>();
    private volatile boolean closed;

    /** An open partition, the requests using it right now, and when it was last used (for closing the idlest). */
    private static final class OpenPartition {
        final Partition partition;
        int users;
        long lastUse;
        /** Held open for a replica of a cluster (chapter 10): never closed to make room. */
        boolean held;

        OpenPartition(Partition partition) {
            this.partition = partition;
        }
    }

    LogManager(BrokerConfig config, Supplier<PartitionConfigs> configs, int maxOpenPartitions, PrintStream log,
               List<BrokerExtension> extensions) {
        this.config = config;
        this.configs = configs;
        this.maxOpenPartitions = maxOpenPartitions;
        this.log = log;
        this.extensions = extensions;
    }

    /** Opens (and recovers) every partition already in the data directory, so the tasks see them all. */
    void openPartitionsOnDisk() throws IOException {
        finishDeletions();
        List<String> names;
        List<Path> entries;
        try (var all = Files.list(config.dataDir())) {
            entries = all.sorted().toList();
        }
        names = entries.stream().filter(Files::isDirectory).map(p -> p.getFileName().toString())
                .filter(name -> PartitionNames.problem(name) == null).toList();
        reportStrays(entries);
        synchronized (this) {
            names.stream().filter(n -> !PartitionNames.isInternal(n)).forEach(held::add);
        }
        for (String name : names) {
            partition(name);
        }
    }

    /** Removes what a deletion left when the broker stopped between its rename and its last file. */
    private void finishDeletions() throws IOException {
        List<Path> left;
        try (var dirs = Files.list(config.dataDir())) {
            left = dirs.filter(p -> p.getFileName().toString().startsWith(DELETING_PREFIX)).sorted().toList();
        }
        for (Path dir : left) {
            log.println("removing " + dir.getFileName() + ": a deleted partition's files, left when the broker stopped");
            deleteTree(dir);
        }
    }

    /**
     * One line at start for the entries of the data directory that are not partitions: a file (where
     * a partition's directory may have been: a file named like a partition is not one) or a
     * directory whose name is not a partition name. They are left alone; the broker's own files
     * ({@link TimeCheckpoint}) are not strays.
     */
    private void reportStrays(List<Path> entries) {
        List<String> strays = new ArrayList<>();
        for (Path entry : entries) {
            String name = entry.getFileName().toString().replaceAll("\\p{Cntrl}", "?"); // a name is not a line
            if (brokerFiles().contains(name) || brokerFiles().contains(name.replaceFirst("\\.tmp$", ""))) {
                continue;
            }
            if (!Files.isDirectory(entry)) {
                strays.add(name + (PartitionNames.problem(name) == null ? " (a file named like a partition)"
                        : " (a file)"));
            } else if (PartitionNames.problem(name) != null) {
                strays.add(name + " (a directory whose name is not a partition name)");
            }
        }
        if (!strays.isEmpty()) {
            log.println("data directory " + config.dataDir() + ": " + strays.size() + " entr"
                    + (strays.size() == 1 ? "y is" : "ies are") + " not partitions, left alone and not served: "
                    + String.join(", ", strays));
        }
    }

    /** The broker's own files in the data directory: chapter 3's time checkpoint and the later chapters'. */
    private java.util.Set<String> brokerFiles() {
        java.util.Set<String> files = new java.util.TreeSet<>(List.of(TimeCheckpoint.FILE_NAME, TopicConfigFile.FILE_NAME));
        extensions.forEach(extension -> files.addAll(extension.dataDirFiles()));
        return files;
    }

    /**
     * The partition called {@code name}, opened or created, and kept open until {@link #release}:
     * a replica of a cluster (chapter 10) is always in use, by its fetcher or its leader's state,
     * so it is never closed to make room under max.open.partitions.
     */
    Partition hold(String name) throws IOException {
        Path dir = PartitionNames.resolve(config.dataDir(), name);
        synchronized (this) {
            OpenPartition open = openOrCreate(name, dir);
            open.held = true;
            return use(open);
        }
    }

    /** The partition may be closed again to make room. */
    synchronized void release(String name) {
        OpenPartition open = partitions.get(name);
        if (open != null) {
            open.held = false;
        }
    }

    /** The partition called {@code name}, opened or created (see {@link BrokerContext#partition}). */
    Partition partition(String name) throws IOException {
        Path dir = PartitionNames.resolve(config.dataDir(), name);
        synchronized (this) {
            return use(openOrCreate(name, dir));
        }
    }

    /** The partition called {@code name} if it exists (see {@link BrokerContext#existingPartition}). */
    Optional<Partition> existingPartition(String name) throws IOException {
        Path dir = PartitionNames.resolve(config.dataDir(), name);
        synchronized (this) {
            if (!partitions.containsKey(name) && !Files.isDirectory(dir)) {
                return Optional.empty();
            }
            return Optional.of(use(openOrCreate(name, dir)));
        }
    }

    /** With the monitor held: the open partition, or opens it, closing the idlest one if too many are open. */
    private OpenPartition openOrCreate(String name, Path dir) throws IOException {
        if (closed) {
            throw new CancellationException("the broker is shutting down");
        }
        OpenPartition open = partitions.get(name);
        if (open == null) {
            refuseOverMaxPartitions(name, dir);
            closeIdlestPartitionsOverLimit();
            Partition partition = Partition.openOrOffline(name, dir,
                    configs.get().logConfig(name, config.logConfig()),
                    Boolean.parseBoolean(configs.get().value(name, LogConfigKeys.ACCEPT_DATA_LOSS)), log::println);
            appendHook(name).ifPresent(partition::setAppendHook);
            open = new OpenPartition(partition);
            partitions.put(name, open);
            if (!PartitionNames.isInternal(name)) {
                held.add(name);
            }
        }
        return open;
    }

    /**
     * With the monitor held: a partition that does not exist yet is created only under
     * {@code max.partitions}. Checked at each creation, so one request naming 10,000 new partitions
     * creates at most what is left under the cap, and no directory for the rest.
     */
    private void refuseOverMaxPartitions(String name, Path dir) {
        if (held.contains(name) || Files.isDirectory(dir) || PartitionNames.isInternal(name)) {
            return; // the broker's own partitions (__producer_ids-0) are never refused to the broker
        }
        long max = configs.get().brokerLong(LogConfigKeys.MAX_PARTITIONS);
        if (held.size() >= max) {
            throw new PartitionLimitException("partition " + name + " not created: the broker holds max.partitions ("
                    + max + ")");
        }
    }

    /**
     * Removes a partition this request created whose produce failed, if nothing was written to it and
     * no other request uses it: a refused or failed produce leaves no directory behind.
     */
    synchronized void removeIfEmpty(String name) throws IOException {
        OpenPartition open = partitions.get(name);
        if (open == null || open.users > 1 || !isEmpty(open.partition)) {
            return;
        }
        List<OpenPartition> request = inUse.get();
        if (request != null && request.remove(open)) {
            open.users--;
        }
        if (open.users > 0) {
            return;
        }
        partitions.remove(name);
        held.remove(name);
        closePartition(open.partition);
        Path dir = PartitionNames.resolve(config.dataDir(), name);
        if (Files.isDirectory(dir)) {
            try (var files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    private static boolean isEmpty(Partition partition) {
        if (partition.isOffline()) {
            return true;
        }
        try {
            return partition.locked(log -> log.logEndOffset() == 0 && log.logStartOffset() == 0);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Partitions the broker holds, open or on disk (at most max.partitions). */
    synchronized int heldPartitionCount() {
        return held.size();
    }

    /** The client partitions in the data directory, sorted (a directory being deleted is none). */
    synchronized List<String> clientPartitionNames() throws IOException {
        if (!Files.isDirectory(config.dataDir())) {
            return List.of();
        }
        try (var dirs = Files.list(config.dataDir())) {
            return dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .filter(name -> PartitionNames.problem(name) == null && !PartitionNames.isInternal(name))
                    .sorted().toList();
        }
    }

    /**
     * Closes the partition and removes its directory: renamed first to {@code deleting.N} (no dash
     * before a number, so never a partition's name), then deleted. Kafka's LogManager.asyncDelete
     * renames to {@code -delete} the same way: from the rename on, the partition is gone even if the
     * files are not, and a restart finishes the deletion ({@link #openPartitionsOnDisk}).
     */
    synchronized void deletePartition(String name) throws IOException {
        Path dir = PartitionNames.resolve(config.dataDir(), name);
        OpenPartition open = partitions.remove(name);
        if (open != null) {
            closePartition(open.partition);
        }
        held.remove(name);
        if (!Files.isDirectory(dir)) {
            return;
        }
        Path doomed = config.dataDir().resolve(DELETING_PREFIX + (++deletions));
        while (Files.exists(doomed)) {
            doomed = config.dataDir().resolve(DELETING_PREFIX + (++deletions));
        }
        Files.move(dir, doomed, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        deleteTree(doomed);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * The later chapters' step in front of the partition's appends ({@link BrokerExtension#appendHook}), if any,
     * wrapped by the one extension that wraps it ({@link BrokerExtension#wrapAppendHook}).
     */
    private Optional<Log.AppendHook> appendHook(String name) {
        List<Log.AppendHook> hooks = extensions.stream().flatMap(e -> e.appendHook(name).stream()).toList();
        if (hooks.size() > 1) {
            throw new IllegalStateException("two extensions put a step in front of " + name + "'s appends: "
                    + hooks.stream().map(h -> h.getClass().getName()).toList() + "; at most one may");
        }
        if (hooks.isEmpty()) {
            return Optional.empty();
        }
        List<Log.AppendHook> wrapped = extensions.stream()
                .flatMap(e -> e.wrapAppendHook(name, hooks.get(0)).stream()).toList();
        if (wrapped.size() > 1) {
            throw new IllegalStateException("two extensions wrap the step in front of " + name + "'s appends: "
                    + wrapped.stream().map(h -> h.getClass().getName()).toList() + "; at most one may");
        }
        return Optional.of(wrapped.isEmpty() ? hooks.get(0) : wrapped.get(0));
    }

    /** With the monitor held: counts a use, and the request running on this thread as a user until it is answered. */
    private Partition use(OpenPartition open) {
        open.lastUse = ++partitionUses;
        List<OpenPartition> request = inUse.get();
        if (request != null) {
            open.users++;
            request.add(open);
        }
        return open.partition;
    }

    @Override
    public void enter() {
        inUse.set(new ArrayList<>());
    }

    @Override
    public void requestDone() {
        List<OpenPartition> request = inUse.get();
        if (request == null || request.isEmpty()) {
            return;
        }
        synchronized (this) {
            request.forEach(open -> open.users--);
        }
        request.clear();
    }

    @Override
    public void exit() {
        requestDone();
        inUse.remove();
    }

    /**
     * With the monitor held: makes room for one more partition by closing those no request uses,
     * the least recently used first. If every open partition is in use, one more is opened anyway:
     * the requests in flight, and so this overshoot, are bounded by max.connections.
     */
    private void closeIdlestPartitionsOverLimit() {
        while (partitions.size() >= maxOpenPartitions) {
            OpenPartition idlest = null;
            for (OpenPartition open : partitions.values()) {
                if (open.users == 0 && !open.held && (idlest == null || open.lastUse < idlest.lastUse)) {
                    idlest = open;
                }
            }
            if (idlest == null) {
                return;
            }
            partitions.remove(idlest.partition.name());
            closePartition(idlest.partition);
        }
    }

    /**
     * The configs of {@code topics} changed: each of their open partitions' logs takes its new storage
     * settings now (a closed one takes them when it opens). An offline partition has no log to tell.
     */
    synchronized void reconfigure(Set<String> topics) throws IOException {
        for (OpenPartition open : partitions.values()) {
            String name = open.partition.name();
            boolean ofTopic = PartitionNames.parse(name).map(p -> topics.contains(p.topic())).orElse(false);
            if (ofTopic && !open.partition.isOffline()) {
                LogConfig updated = configs.get().logConfig(name, config.logConfig());
                open.partition.locked(l -> {
                    l.updateConfig(updated);
                    return null;
                });
            }
        }
    }

    /**
     * Time has reached {@code nowMs} for every open partition (parked fetches, pending produces,
     * flush.ms). Each is ticked outside this monitor: a tick waits for the partition's lock, which an
     * append holds while it writes, and every request's partition lookup waits for this monitor, so
     * ticking under it made every connection wait, every tick, for the slowest append of any partition.
     * A partition closed in the meantime ignores the tick ({@link Partition#tick}).
     */
    void tick(long nowMs) throws IOException {
        if (closed) {
            throw new IllegalStateException("the broker is closed");
        }
        for (Partition partition : openPartitions()) {
            partition.tick(nowMs);
        }
    }

    /** The partitions open right now (a background task may find one closed under it: it is logged). */
    synchronized List<Partition> openPartitions() {
        return partitions.values().stream().map(open -> open.partition).toList();
    }

    /** Partitions open right now (at most max.open.partitions, but for those in use). */
    synchronized int openPartitionCount() {
        return partitions.size();
    }

    /** No partition opens from now on (a request asking for one is cancelled); {@link #close} closes them. */
    void shutdown() {
        closed = true;
    }

    /** Closes every open partition; whoever still waits on one is told so. */
    synchronized void close() {
        closed = true;
        partitions.values().forEach(open -> closePartition(open.partition));
        partitions.clear();
    }

    private void closePartition(Partition partition) {
        try {
            partition.close();
        } catch (IOException e) {
            log.println("closing partition " + partition.name() + ": " + e.getMessage());
        }
    }
}
