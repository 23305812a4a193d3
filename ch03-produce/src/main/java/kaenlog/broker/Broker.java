package kaenlog.broker;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.batch.CorruptBatchException;
import kaenlog.produce.ApiKeys;
import kaenlog.produce.Frames;
import kaenlog.produce.MalformedMessageException;
import kaenlog.produce.Partition;
import kaenlog.workbook.Todo;

/**
 * A kaen-log broker on plain JDK threads and blocking I/O (no async runtime, no selector): one thread accepts connections, one thread per connection reads a request frame,
 * lets the {@link RequestHandler} for its apiKey answer, writes the response frame, and reads the
 * next. A third thread, the ticker, moves the broker's time forward (no clock is read here: it
 * sleeps {@code tickMs} and adds {@code tickMs}, or asks the clock {@code klog serve} passed in) and
 * lets every partition expire what waited too long. The time never goes back, not even across a
 * restart ({@link TimeCheckpoint}). A fourth thread runs the chapters' {@link BackgroundTask}s
 * (chapter 6: retention, the cleaner) when the broker's time says they are due.
 *
 * <p>One client cannot hurt another: anything malformed it sends (a frame too long or negative, a
 * frame cut off, bytes that do not decode, an unknown apiKey, a partition name that is not one)
 * closes THAT connection, with one line naming the reason in the broker's log; every other
 * connection is served on. Partitions live in directories under the data directory and are opened
 * (and recovered) on first use.
 */
public final class Broker implements BrokerContext, Closeable {
    private final BrokerConfig config;
    private final PrintStream log;
    private final Map<Short, RequestHandler> handlers;
    private final List<BackgroundTask> tasks;
    private final Map<BackgroundTask, Long> nextRunMs = new ConcurrentHashMap<>();
    /** One task run at a time: the tasks thread and a test calling {@link #runDueTasks()}. */
    private final Object tasksLock = new Object();
    private long checkpointedMs;
    private final ServerSocket server;
    private final Map<String, Partition> partitions = new ConcurrentHashMap<>();
    /** Guards opening, ticking and closing partitions. */
    private final Object partitionsLock = new Object();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> waiting = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    private volatile long nowMs;
    private volatile boolean closed;
    private Thread acceptor;
    private Thread ticker;
    private Thread tasksThread;

    /** One client connection and the thread that serves it. */
    private static final class Connection {
        final int id;
        final Socket socket;
        final String peer;
        Thread thread;

        Connection(int id, Socket socket) {
            this.id = id;
            this.socket = socket;
            InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
            this.peer = remote.getAddress().getHostAddress() + ":" + remote.getPort();
        }
    }

    private Broker(BrokerConfig config, PrintStream log, Map<Short, RequestHandler> handlers,
                   List<BackgroundTask> tasks, ServerSocket server, long startMs) {
        this.config = config;
        this.log = log;
        this.handlers = handlers;
        this.tasks = tasks;
        this.server = server;
        this.nowMs = startMs;
        this.checkpointedMs = startMs;
        for (BackgroundTask task : tasks) {
            nextRunMs.put(task, startMs + config.configs().brokerLong(task.intervalKey()));
        }
    }

    /** Starts a broker with the handlers registered on the classpath (ServiceLoader). */
    public static Broker start(BrokerConfig config, PrintStream log) throws IOException {
        List<RequestHandler> found = ServiceLoader.load(RequestHandler.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        return start(config, log, found);
    }

    /**
     * Starts a broker with these handlers (the highest priority per apiKey wins) and the background
     * tasks of the {@link BrokerExtension}s on the classpath.
     */
    public static Broker start(BrokerConfig config, PrintStream log, List<RequestHandler> candidates)
            throws IOException {
        if (candidates.isEmpty()) {
            throw new IllegalStateException("no request handlers: none is registered in"
                    + " META-INF/services/kaenlog.broker.RequestHandler on the classpath");
        }
        Map<Short, RequestHandler> handlers = chooseHandlers(candidates);
        refuseKeysOutsideTheTable(handlers);
        List<BackgroundTask> tasks = BrokerExtension.load().stream()
                .flatMap(e -> e.backgroundTasks().stream()).toList();
        Files.createDirectories(config.dataDir());
        // The broker's time never goes back: not below its last time before a restart.
        long startMs = Math.max(config.startNowMs(), TimeCheckpoint.read(config.dataDir()));
        ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getByName(config.host()), config.port()));
        } catch (IOException e) {
            server.close();
            throw e;
        }
        Broker broker = new Broker(config, log, handlers, tasks, server, startMs);
        broker.logWhatItRuns(candidates);
        try {
            broker.openPartitionsOnDisk();
        } catch (IOException | RuntimeException e) {
            broker.close();
            throw e;
        }
        broker.startThreads();
        return broker;
    }

    /**
     * One handler per apiKey: the highest priority wins, so a later chapter replaces an earlier
     * chapter's handler by registering one for the same key with a higher priority (chapter 7's
     * idempotent produce over chapter 3's). Two handlers sharing the highest priority of a key are
     * an error: which one ran would depend on the order of the classpath.
     */
    public static Map<Short, RequestHandler> chooseHandlers(List<RequestHandler> candidates) {
        throw new Todo("ch03 task 9: one handler per apiKey, the highest priority wins (BrokerTest)");
    }

    /** Every key of a handler must be in chapter 3's table of api keys, the one list of them. */
    private static void refuseKeysOutsideTheTable(Map<Short, RequestHandler> handlers) {
        handlers.forEach((key, handler) -> {
            if (ApiKeys.of(key).isEmpty()) {
                throw new IllegalStateException(handler.getClass().getName() + " answers apiKey " + key
                        + ", which kaenlog.produce.ApiKeys does not list: add the key to that table first");
            }
        });
    }

    /** The start-up lines: which class answers each api key (and which it replaced), the tasks. */
    private void logWhatItRuns(List<RequestHandler> candidates) {
        log.println("broker time " + nowMs + " ms" + (config.clock() == null ? " (virtual)" : " (wall clock)"));
        handlers.forEach((key, handler) -> {
            ApiKeys.ApiKey row = ApiKeys.of(key).orElseThrow();
            List<String> replaced = candidates.stream().filter(c -> c.apiKey() == key && c != handler)
                    .map(c -> c.getClass().getName() + " (chapter " + c.chapter() + ")").toList();
            log.println("apiKey " + key + " " + row.name() + ": " + handler.getClass().getName() + " (chapter "
                    + handler.chapter() + ")" + (replaced.isEmpty() ? "" : ", replacing " + String.join(", ", replaced)));
        });
        for (BackgroundTask task : tasks) {
            log.println("task " + task.name() + ": " + task.getClass().getName() + ", every "
                    + config.configs().brokerLong(task.intervalKey()) + " ms (" + task.intervalKey() + ")");
        }
        log.flush();
    }

    /** Opens (and recovers) every partition already in the data directory, so the tasks see them all. */
    private void openPartitionsOnDisk() throws IOException {
        List<String> names;
        try (var dirs = Files.list(config.dataDir())) {
            names = dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .filter(name -> PartitionNames.problem(name) == null).sorted().toList();
        }
        for (String name : names) {
            partition(name);
        }
    }

    private void startThreads() {
        acceptor = new Thread(this::acceptLoop, "klog-broker-" + port() + "-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        if (config.tickMs() > 0) {
            ticker = new Thread(this::tickLoop, "klog-broker-" + port() + "-ticker");
            ticker.setDaemon(true);
            ticker.start();
            if (!tasks.isEmpty()) {
                tasksThread = new Thread(this::tasksLoop, "klog-broker-" + port() + "-tasks");
                tasksThread.setDaemon(true);
                tasksThread.start();
            }
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.println("accept failed: " + e.getMessage());
                }
                continue;
            }
            synchronized (this) {
                if (closed) {
                    closeQuietly(socket);
                    return;
                }
                Connection connection = new Connection(connectionIds.incrementAndGet(), socket);
                connections.add(connection);
                connection.thread = new Thread(() -> runConnection(connection),
                        "klog-broker-" + port() + "-connection-" + connection.id);
                connection.thread.setDaemon(true);
                connection.thread.start();
            }
        }
    }

    /** The connection thread: serve until the client hangs up, or log why the connection is closed. */
    private void runConnection(Connection connection) {
        String reason = null;
        try {
            connection.socket.setTcpNoDelay(true);
            serve(new BufferedInputStream(connection.socket.getInputStream()),
                    new BufferedOutputStream(connection.socket.getOutputStream()));
        } catch (MalformedMessageException | CloseConnectionException e) {
            reason = e.getMessage();
        } catch (CorruptBatchException e) {
            reason = "corrupt batch: " + e.getMessage();
        } catch (EOFException e) {
            reason = "the client hung up in the middle of a frame";
        } catch (IOException e) {
            reason = "I/O error: " + e.getMessage();
        } catch (CancellationException e) {
            reason = "a wait was cancelled: " + e.getMessage();
        } catch (Todo e) {
            reason = e.getMessage() + " (an exercise not written yet)";
        } catch (RuntimeException e) {
            reason = "internal error: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        } finally {
            // Log first, close second: whoever sees the connection closed can already read why.
            if (reason != null && !closed) {
                log.println("connection " + connection.id + " (" + connection.peer + ") closed: " + reason);
            }
            closeQuietly(connection.socket);
            connections.remove(connection);
        }
    }

    /**
     * Serves one connection until the client hangs up between two requests (readFrame returns
     * null): read a request frame (apiKey · correlationId · body), find the handler for its apiKey,
     * and write back a response frame (correlationId · body) unless the handler answers nothing
     * (acks=0). Whatever is malformed is thrown, not answered: the caller logs the reason and
     * closes this connection only.
     */
    void serve(InputStream in, OutputStream out) throws IOException {
        throw new Todo("ch03 task 9: serve one connection: read a frame, dispatch, answer (BrokerTest)");
    }

    private void tickLoop() {
        try {
            while (!closed) {
                Thread.sleep(config.tickMs());
                if (config.clock() == null) {
                    advanceTime(config.tickMs());
                } else {
                    advanceTimeTo(config.clock().getAsLong());
                }
                checkpointTime(false);
            }
        } catch (InterruptedException stop) {
            // close() interrupts the ticker
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                log.println("ticker stopped: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }

    /**
     * Moves the broker's time forward by {@code ms} and lets every open partition answer the parked
     * fetches whose deadline has come and time out the acks=all produces that waited too long. The
     * ticker calls it; a test with {@code tickMs} 0 calls it itself and decides when time passes.
     */
    public void advanceTime(long ms) throws IOException {
        if (ms < 0) {
            throw new IllegalArgumentException("time only moves forward, not by " + ms + " ms");
        }
        synchronized (partitionsLock) {
            if (closed) {
                throw new IllegalStateException("the broker is closed");
            }
            nowMs += ms;
            for (Partition partition : partitions.values()) {
                partition.tick(nowMs);
            }
        }
    }

    /** Moves the broker's time to {@code targetMs} if that is later; an earlier time changes nothing. */
    public void advanceTimeTo(long targetMs) throws IOException {
        long now = nowMs;
        if (targetMs > now) {
            advanceTime(targetMs - now);
        }
    }

    /** Writes the time to the data directory at most once a second of broker time, and at close. */
    private void checkpointTime(boolean always) throws IOException {
        long now = nowMs;
        if (always || now - checkpointedMs >= 1000) {
            TimeCheckpoint.write(config.dataDir(), now);
            checkpointedMs = now;
        }
    }

    private void tasksLoop() {
        try {
            while (!closed) {
                Thread.sleep(config.tickMs());
                runDueTasks();
            }
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs every background task whose time has come on every open partition, then schedules its
     * next run one interval later. The tasks thread calls it; a test with {@code tickMs} 0 calls it
     * itself after moving the time. A task that fails on one partition is logged and the others go on.
     */
    public void runDueTasks() {
        synchronized (tasksLock) {
            for (BackgroundTask task : tasks) {
                long now = nowMs;
                if (closed || now < nextRunMs.get(task)) {
                    continue;
                }
                for (Partition partition : List.copyOf(partitions.values())) {
                    if (closed) {
                        return;
                    }
                    runTask(task, partition, now);
                }
                nextRunMs.put(task, now + config.configs().brokerLong(task.intervalKey()));
            }
        }
    }

    private void runTask(BackgroundTask task, Partition partition, long now) {
        try {
            task.run(partition, config.configs().of(partition.name()), now)
                    .ifPresent(line -> log.println(task.name() + " " + partition.name() + ": " + line));
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                log.println(task.name() + " " + partition.name() + " failed: " + e.getClass().getSimpleName() + ": "
                        + e.getMessage());
            }
        }
    }

    @Override
    public long nowMs() {
        return nowMs;
    }

    @Override
    public PartitionConfigs configs() {
        return config.configs();
    }

    @Override
    public Partition partition(String name) throws IOException {
        Path dir = PartitionNames.resolve(config.dataDir(), name);
        Partition open = partitions.get(name);
        if (open != null) {
            return open;
        }
        synchronized (partitionsLock) {
            if (closed) {
                throw new CancellationException("the broker is shutting down");
            }
            Partition partition = partitions.get(name);
            if (partition == null) {
                partition = Partition.openOrOffline(name, dir, config.configs().logConfig(name, config.logConfig()),
                        log::println);
                partitions.put(name, partition);
            }
            return partition;
        }
    }

    @Override
    public <T> T await(CompletableFuture<T> answer) {
        waiting.add(answer);
        try {
            if (closed) {
                answer.cancel(false);
            }
            return answer.join();
        } finally {
            waiting.remove(answer);
        }
    }

    /** The port the broker listens on (the one picked when the config said 0). */
    public int port() {
        return server.getLocalPort();
    }

    /** host:port, e.g. 127.0.0.1:9092. */
    public String address() {
        return server.getInetAddress().getHostAddress() + ":" + port();
    }

    public BrokerConfig config() {
        return config;
    }

    /** Connections being served right now. */
    public int connectionCount() {
        return connections.size();
    }

    /** Blocks until {@link #close()} has finished (klog serve waits here). */
    public void awaitClosed() throws InterruptedException {
        closedLatch.await();
    }

    /**
     * Stops accepting, closes every connection (a parked fetch is cancelled, its client gets no
     * answer), waits for the threads to end, and closes the partitions. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        closeQuietly(server);
        if (ticker != null) {
            ticker.interrupt();
        }
        // The tasks thread is not interrupted: an interrupt closes a FileChannel in the middle of a
        // segment swap. It sees `closed` after the task it runs (the swap is crash-safe either way).
        List<Connection> open = List.copyOf(connections);
        open.forEach(c -> closeQuietly(c.socket));
        waiting.forEach(f -> f.cancel(false));
        joinUninterruptibly(acceptor);
        joinUninterruptibly(ticker);
        joinUninterruptibly(tasksThread);
        synchronized (tasksLock) {
            // a test's runDueTasks() may still be running: let it end before the partitions close
        }
        open.forEach(c -> joinUninterruptibly(c.thread));
        synchronized (partitionsLock) {
            for (Partition partition : partitions.values()) {
                try {
                    partition.close();
                } catch (IOException e) {
                    log.println("closing partition " + partition.name() + ": " + e.getMessage());
                }
            }
            partitions.clear();
        }
        try {
            checkpointTime(true);
        } catch (IOException e) {
            log.println("writing " + TimeCheckpoint.FILE_NAME + ": " + e.getMessage());
        }
        closedLatch.countDown();
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException ignored) {
            // closing is all that was left to do with it
        }
    }

    private static void joinUninterruptibly(Thread thread) {
        if (thread == null) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
