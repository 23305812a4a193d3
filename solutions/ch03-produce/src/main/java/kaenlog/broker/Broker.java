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
import java.util.HashMap;
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
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.batch.CorruptBatchException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.Frames;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames;
import kaenlog.wire.RequestEnvelope;
import kaenlog.wire.ResponseEnvelope;
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
 *
 * <p>And no client, nor all of them together, can exhaust it ({@link ConnectionLimits}): connections
 * beyond {@code max.connections} are closed at once, a connection that sends no whole request for
 * {@code connections.max.idle.ms} is closed, request bytes in memory share one {@link MemoryPool}
 * ({@code queued.max.request.bytes}: a client waits for room), and the partitions open at once are
 * capped (the one unused longest is closed, and reopened on demand). The acceptor outlives whatever
 * a connection causes: a thread that cannot start (a pids limit), {@code accept} failing at the
 * file-descriptor limit (it backs off and logs one line per interval).
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
    private final ConnectionLimits limits;
    private final MemoryPool pool;
    private final ThreadFactory connectionThreads;
    private final RateLimitedLog troubles;
    /** Guarded by partitionsLock. */
    private final Map<String, OpenPartition> partitions = new HashMap<>();
    /** Guards opening, ticking and closing partitions. */
    private final Object partitionsLock = new Object();
    private long partitionUses;
    private final ThreadLocal<Connection> current = new ThreadLocal<>();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> waiting = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    private volatile long nowMs;
    private volatile boolean closed;
    private Thread acceptor;
    /** Listeners a later chapter added ({@link #listen}): same limits, same pool, another protocol. */
    private final List<Listener> listeners = new ArrayList<>();
    private Thread ticker;
    private Thread tasksThread;

    /** A trouble that can repeat as fast as a loop runs is logged once per this much broker time. */
    public static final long TROUBLE_LOG_INTERVAL_MS = 5_000;
    /** The acceptor's pause after a failure doubles from the first to the last. */
    static final long FIRST_BACKOFF_MS = 10;
    static final long MAX_BACKOFF_MS = 1_000;

    /** An open partition, the requests using it right now, and when it was last used (for closing the idlest). */
    private static final class OpenPartition {
        final Partition partition;
        int users;
        long lastUse;

        OpenPartition(Partition partition) {
            this.partition = partition;
        }
    }

    /** One client connection and the thread that serves it. */
    private static final class Connection {
        final int id;
        final Socket socket;
        final String peer;
        Thread thread;
        /** Since when (broker time) the client owes a request; -1 while the broker is busy with one. */
        volatile long clientsTurnSinceMs;
        /** Set by whoever closes the connection from outside (the idle check), for its log line. */
        volatile String closeReason;
        /** Partitions the current request uses: none is closed under it. Its own thread only. */
        final List<OpenPartition> inUse = new ArrayList<>();

        Connection(int id, Socket socket) {
            this.id = id;
            this.socket = socket;
            InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
            this.peer = remote.getAddress().getHostAddress() + ":" + remote.getPort();
        }
    }

    private Broker(BrokerConfig config, ConnectionLimits limits, PrintStream log, Map<Short, RequestHandler> handlers,
                   List<BackgroundTask> tasks, ServerSocket server, long startMs, ThreadFactory connectionThreads) {
        this.config = config;
        this.limits = limits;
        this.log = log;
        this.handlers = handlers;
        this.tasks = tasks;
        this.server = server;
        this.connectionThreads = connectionThreads;
        this.pool = new MemoryPool(limits.queuedMaxRequestBytes());
        this.troubles = new RateLimitedLog(log, TROUBLE_LOG_INTERVAL_MS);
        this.nowMs = startMs;
        this.checkpointedMs = startMs;
        for (BackgroundTask task : tasks) {
            nextRunMs.put(task, startMs + config.configs().brokerLong(task.intervalKey()));
        }
    }

    /** Starts a broker with the handlers registered on the classpath (ServiceLoader) and the default limits. */
    public static Broker start(BrokerConfig config, PrintStream log) throws IOException {
        return start(config, ConnectionLimits.defaults(), log);
    }

    /** Starts a broker with the handlers registered on the classpath (ServiceLoader). */
    public static Broker start(BrokerConfig config, ConnectionLimits limits, PrintStream log) throws IOException {
        List<RequestHandler> found = ServiceLoader.load(RequestHandler.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        return start(config, limits, log, found, Thread::new);
    }

    /** Starts a broker with these handlers (the highest priority per apiKey wins) and the default limits. */
    public static Broker start(BrokerConfig config, PrintStream log, List<RequestHandler> candidates)
            throws IOException {
        return start(config, ConnectionLimits.defaults(), log, candidates, Thread::new);
    }

    /**
     * Starts a broker with these handlers and limits, and the background tasks of the
     * {@link BrokerExtension}s on the classpath; {@code connectionThreads} makes each connection's
     * thread (a test passes one whose threads fail to start, as under a pids limit).
     */
    public static Broker start(BrokerConfig config, ConnectionLimits limits, PrintStream log,
                               List<RequestHandler> candidates, ThreadFactory connectionThreads) throws IOException {
        if (limits.queuedMaxRequestBytes() < config.maxFrameBytes()) {
            throw new IllegalArgumentException("queued.max.request.bytes (" + limits.queuedMaxRequestBytes()
                    + ") must hold at least one frame of the largest size (" + config.maxFrameBytes() + ")");
        }
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
        warmUpSocketClose();
        Broker broker = new Broker(config, limits, log, handlers, tasks, server, startMs, connectionThreads);
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
     * Closes one socket now, while file descriptors are plentiful. A JDK trap: the first socket close
     * of a JVM initializes {@code sun.nio.ch.FileDispatcherImpl}, which opens a descriptor of its own;
     * at the descriptor limit (EMFILE) that initialization fails for good, and from then on every
     * close throws NoClassDefFoundError: no socket is ever closed again and the broker leaks until it
     * dies. Measured with {@code prlimit --nofile} on a broker that had not closed a socket yet.
     */
    private static void warmUpSocketClose() throws IOException {
        try (Socket warm = new Socket()) {
            warm.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        }
    }

    /**
     * One handler per apiKey: the highest priority wins, so a later chapter replaces an earlier
     * chapter's handler by registering one for the same key with a higher priority (chapter 7's
     * idempotent produce over chapter 3's). Two handlers sharing the highest priority of a key are
     * an error: which one ran would depend on the order of the classpath.
     */
    public static Map<Short, RequestHandler> chooseHandlers(List<RequestHandler> candidates) {
        // BEGIN-SOLUTION ch03 task 9: one handler per apiKey, the highest priority wins (BrokerTest)
        Map<Short, List<RequestHandler>> byKey = new TreeMap<>();
        for (RequestHandler candidate : candidates) {
            byKey.computeIfAbsent(candidate.apiKey(), k -> new ArrayList<>()).add(candidate);
        }
        Map<Short, RequestHandler> chosen = new TreeMap<>();
        byKey.forEach((apiKey, list) -> {
            list.sort(Comparator.comparingInt(RequestHandler::priority).reversed());
            if (list.size() > 1 && list.get(0).priority() == list.get(1).priority()) {
                throw new IllegalStateException("apiKey " + apiKey + ": " + list.get(0).getClass().getName()
                        + " and " + list.get(1).getClass().getName() + " both have priority "
                        + list.get(0).priority());
            }
            chosen.put(apiKey, list.get(0));
        });
        return chosen;
        // END-SOLUTION
    }

    /** Every key of a handler must be in chapter 3's table of api keys, the one list of them. */
    private static void refuseKeysOutsideTheTable(Map<Short, RequestHandler> handlers) {
        handlers.forEach((key, handler) -> {
            if (ApiKeys.of(key).isEmpty()) {
                throw new IllegalStateException(handler.getClass().getName() + " answers apiKey " + key
                        + ", which kaenlog.wire.ApiKeys does not list: add the key to that table first");
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

    /**
     * How the connections of one listener are served. The broker's own port speaks kaen-log's
     * requests ({@link #serve}); chapter 9 adds a port that speaks Kafka's, over the same framing
     * (an int32 length, then the payload), so the same limits and the same memory pool hold.
     */
    @FunctionalInterface
    public interface ConnectionProtocol {
        void serve(InputStream in, OutputStream out) throws IOException;
    }

    /** A second listening socket of this broker; closing it stops accepting there. */
    public final class Listener implements Closeable {
        private final ServerSocket socket;
        private final Thread thread;

        private Listener(ServerSocket socket, ConnectionProtocol protocol) {
            this.socket = socket;
            this.thread = new Thread(() -> acceptLoop(socket, protocol), "klog-broker-" + socket.getLocalPort()
                    + "-acceptor");
            this.thread.setDaemon(true);
        }

        public int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() {
            closeQuietly(socket);
            thread.interrupt();
            joinUninterruptibly(thread);
        }
    }

    /**
     * Listens on one more port, serving its connections with {@code protocol}, under this broker's
     * limits: {@code max.connections} counts the connections of every port together, and request
     * bytes come from the same pool. Port 0 picks a free one ({@link Listener#port()}).
     */
    public Listener listen(String host, int port, ConnectionProtocol protocol) throws IOException {
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(host), port));
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        Listener listener = new Listener(socket, protocol);
        synchronized (this) {
            if (closed) {
                socket.close();
                throw new IOException("the broker is closed");
            }
            listeners.add(listener);
        }
        listener.thread.start();
        return listener;
    }

    private void startThreads() {
        acceptor = new Thread(() -> acceptLoop(server, this::serve), "klog-broker-" + port() + "-acceptor");
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

    /**
     * Accepts until the broker closes, whatever happens: like Kafka's Acceptor, a failure is logged
     * (once per interval) and the loop goes on; after a failure it pauses, longer each time in a row,
     * so that a lasting one (no file descriptor left: EMFILE) does not spin a core.
     */
    private void acceptLoop(ServerSocket listening, ConnectionProtocol protocol) {
        long backoffMs = 0;
        while (!closed && !listening.isClosed()) {
            Socket socket;
            try {
                socket = listening.accept();
            } catch (IOException e) {
                if (closed || listening.isClosed()) {
                    return;
                }
                backoffMs = backOff(backoffMs, "accept", "accept failed: " + e.getMessage());
                continue;
            }
            backoffMs = admit(socket, protocol) ? 0 : backOff(backoffMs, "thread", null);
        }
    }

    /**
     * Serves a new connection on a thread of its own, or closes it at once: when {@code max.connections}
     * are open, or when its thread cannot start. Java reports a thread the system refuses (a pids or
     * nproc limit) as {@code OutOfMemoryError: unable to create native thread}; it is caught here,
     * around the start only, and costs this connection, not the acceptor. False when a thread failed.
     */
    private synchronized boolean admit(Socket socket, ConnectionProtocol protocol) {
        if (closed) {
            closeQuietly(socket);
            return true;
        }
        Connection connection;
        try {
            connection = new Connection(connectionIds.incrementAndGet(), socket);
        } catch (RuntimeException gone) {
            closeQuietly(socket); // closed by the client before we looked at it
            return true;
        }
        if (connections.size() >= limits.maxConnections()) {
            troubles.println("max.connections", "connection " + connection.id + " (" + connection.peer
                    + ") refused: max.connections (" + limits.maxConnections() + ") are open", nowMs);
            closeQuietly(socket);
            return true;
        }
        connection.clientsTurnSinceMs = nowMs;
        connections.add(connection);
        Thread thread = connectionThreads.newThread(() -> runConnection(connection, protocol));
        thread.setName("klog-broker-" + port() + "-connection-" + connection.id);
        thread.setDaemon(true);
        connection.thread = thread;
        try {
            thread.start();
            return true;
        } catch (OutOfMemoryError noThread) {
            connections.remove(connection);
            closeQuietly(socket);
            troubles.println("thread", "connection " + connection.id + " (" + connection.peer + ") refused: its"
                    + " thread did not start (" + noThread.getMessage() + ")", nowMs);
            return false;
        }
    }

    /** Logs (rate-limited) and pauses; the next pause is twice as long, up to the maximum. */
    private long backOff(long previousMs, String kind, String line) {
        if (line != null) {
            troubles.println(kind, line + " (backing off, at most " + MAX_BACKOFF_MS + " ms)", nowMs);
        }
        long pauseMs = previousMs == 0 ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, 2 * previousMs);
        try {
            Thread.sleep(pauseMs);
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        }
        return pauseMs;
    }

    /** The connection thread: serve until the client hangs up, or log why the connection is closed. */
    private void runConnection(Connection connection, ConnectionProtocol protocol) {
        current.set(connection);
        String reason = null;
        PooledFrameInput in = null;
        try {
            connection.socket.setTcpNoDelay(true);
            in = new PooledFrameInput(new BufferedInputStream(connection.socket.getInputStream()), pool,
                    config.maxFrameBytes(), turnsOf(connection));
            protocol.serve(in, in.releasingOnFlush(new BufferedOutputStream(connection.socket.getOutputStream())));
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
            if (connection.closeReason != null) {
                reason = connection.closeReason;
            }
            // Log first, close second: whoever sees the connection closed can already read why.
            if (reason != null && !closed) {
                log.println("connection " + connection.id + " (" + connection.peer + ") closed: " + reason);
            }
            closeQuietly(connection.socket);
            if (in != null) {
                in.releaseAll();
            }
            releasePartitions(connection);
            connections.remove(connection);
            current.remove();
        }
    }

    /** The idle clock runs while the client owes a request; a new request frees the last one's partitions. */
    private PooledFrameInput.Turns turnsOf(Connection connection) {
        return new PooledFrameInput.Turns() {
            @Override
            public void clientsTurn() {
                connection.clientsTurnSinceMs = nowMs;
                releasePartitions(connection);
            }

            @Override
            public void brokersTurn() {
                connection.clientsTurnSinceMs = -1;
            }
        };
    }

    /**
     * Serves one connection until the client hangs up between two requests (readFrame returns
     * null): read a request frame (apiKey · correlationId · body), find the handler for its apiKey,
     * and write back a response frame (correlationId · body) unless the handler answers nothing
     * (acks=0). Whatever is malformed is thrown, not answered: the caller logs the reason and
     * closes this connection only.
     */
    void serve(InputStream in, OutputStream out) throws IOException {
        // BEGIN-SOLUTION ch03 task 9: serve one connection: read a frame, dispatch, answer (BrokerTest)
        while (true) {
            byte[] payload = Frames.readFrame(in, config.maxFrameBytes());
            if (payload == null) {
                return;
            }
            RequestEnvelope request = RequestEnvelope.decode(payload);
            RequestHandler handler = handlers.get(request.apiKey());
            if (handler == null) {
                throw new MalformedMessageException("unknown apiKey " + request.apiKey() + " (this broker answers "
                        + handlers.keySet() + ")");
            }
            Optional<byte[]> answer = handler.handle(request.body(), this);
            if (answer.isPresent()) {
                Frames.writeFrame(out, new ResponseEnvelope(request.correlationId(), answer.get()).encode());
            }
        }
        // END-SOLUTION
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
            for (OpenPartition open : partitions.values()) {
                open.partition.tick(nowMs);
            }
        }
        closeIdleConnections();
    }

    /** connections.max.idle.ms: a connection whose client has owed a whole request that long is closed. */
    private void closeIdleConnections() {
        for (Connection connection : connections) {
            long since = connection.clientsTurnSinceMs;
            if (since >= 0 && nowMs - since >= limits.connectionsMaxIdleMs()) {
                connection.closeReason = "idle: no whole request for " + (nowMs - since) + " ms"
                        + " (connections.max.idle.ms " + limits.connectionsMaxIdleMs() + ")";
                closeQuietly(connection.socket);
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
                for (Partition partition : openPartitions()) {
                    if (closed) {
                        return;
                    }
                    runTask(task, partition, now);
                }
                nextRunMs.put(task, now + config.configs().brokerLong(task.intervalKey()));
            }
        }
    }

    /** The partitions open right now (a background task may find one closed under it: it is logged). */
    private List<Partition> openPartitions() {
        synchronized (partitionsLock) {
            return partitions.values().stream().map(open -> open.partition).toList();
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
        synchronized (partitionsLock) {
            return use(openOrCreate(name, dir));
        }
    }

    @Override
    public Optional<Partition> existingPartition(String name) throws IOException {
        Path dir = PartitionNames.resolve(config.dataDir(), name);
        synchronized (partitionsLock) {
            if (!partitions.containsKey(name) && !Files.isDirectory(dir)) {
                return Optional.empty();
            }
            return Optional.of(use(openOrCreate(name, dir)));
        }
    }

    /** With partitionsLock held: the open partition, or opens it, closing the idlest one if too many are open. */
    private OpenPartition openOrCreate(String name, Path dir) throws IOException {
        if (closed) {
            throw new CancellationException("the broker is shutting down");
        }
        OpenPartition open = partitions.get(name);
        if (open == null) {
            closeIdlestPartitionsOverLimit();
            open = new OpenPartition(Partition.openOrOffline(name, dir,
                    config.configs().logConfig(name, config.logConfig()), log::println));
            partitions.put(name, open);
        }
        return open;
    }

    /** With partitionsLock held: counts a use, and the request running on this thread as a user until it is answered. */
    private Partition use(OpenPartition open) {
        open.lastUse = ++partitionUses;
        Connection connection = current.get();
        if (connection != null) {
            open.users++;
            connection.inUse.add(open);
        }
        return open.partition;
    }

    private void releasePartitions(Connection connection) {
        if (connection.inUse.isEmpty()) {
            return;
        }
        synchronized (partitionsLock) {
            connection.inUse.forEach(open -> open.users--);
        }
        connection.inUse.clear();
    }

    /**
     * With partitionsLock held: makes room for one more partition by closing those no request uses,
     * the least recently used first. If every open partition is in use, one more is opened anyway:
     * the requests in flight, and so this overshoot, are bounded by max.connections.
     */
    private void closeIdlestPartitionsOverLimit() {
        while (partitions.size() >= limits.maxOpenPartitions()) {
            OpenPartition idlest = null;
            for (OpenPartition open : partitions.values()) {
                if (open.users == 0 && (idlest == null || open.lastUse < idlest.lastUse)) {
                    idlest = open;
                }
            }
            if (idlest == null) {
                return;
            }
            partitions.remove(idlest.partition.name());
            try {
                idlest.partition.close();
            } catch (IOException e) {
                log.println("closing partition " + idlest.partition.name() + ": " + e.getMessage());
            }
        }
    }

    /** Partitions open right now (at most max.open.partitions, but for those in use). */
    public int openPartitionCount() {
        synchronized (partitionsLock) {
            return partitions.size();
        }
    }

    /** Bytes of the request memory pool free right now. */
    public long poolAvailableBytes() {
        return pool.available();
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

    public ConnectionLimits limits() {
        return limits;
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
        List<Listener> added;
        synchronized (this) {
            added = List.copyOf(listeners);
        }
        added.forEach(Listener::close);
        pool.close();
        if (acceptor != null) {
            acceptor.interrupt(); // it may be pausing after a failure
        }
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
            for (OpenPartition each : partitions.values()) {
                try {
                    each.partition.close();
                } catch (IOException e) {
                    log.println("closing partition " + each.partition.name() + ": " + e.getMessage());
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
