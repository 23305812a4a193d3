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
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import kaenlog.batch.CorruptBatchException;
import kaenlog.wire.MalformedMessageException;
import kaenlog.workbook.Todo;

/**
 * The broker's network side, Kafka's {@code SocketServer} on plain JDK threads and blocking I/O (no
 * selector): one thread per listening socket accepts (Kafka's {@code Acceptor}), one thread per
 * connection reads a request frame, lets the {@link ConnectionProtocol} answer it, and reads the next.
 *
 * <p>One client cannot hurt another: anything malformed it sends closes THAT connection, with one
 * line naming the reason in the broker's log; every other connection is served on. And no client,
 * nor all of them together, can exhaust it ({@link ConnectionLimits}): connections beyond
 * {@code max.connections} are closed at once, a connection that sends no whole request for
 * {@code connections.max.idle.ms} is closed, and request bytes in memory share one
 * {@link MemoryPool} ({@code queued.max.request.bytes}: a client waits for room). The acceptor
 * outlives whatever a connection causes: a thread that cannot start (a pids limit), {@code accept}
 * failing at the file-descriptor limit (it backs off and logs one line per interval).
 */
public final class SocketServer {
    /** A trouble that can repeat as fast as a loop runs is logged once per this much broker time. */
    public static final long TROUBLE_LOG_INTERVAL_MS = 5_000;
    /** The acceptor's pause after a failure doubles from the first to the last. */
    static final long FIRST_BACKOFF_MS = 10;
    static final long MAX_BACKOFF_MS = 1_000;
    /** A request that waited this long (broker time) for room in the full pool sheds the oldest unfinished frame. */
    public static final long SHED_AFTER_MS = 1_000;

    /**
     * How the connections of one listener are served. The broker's own port speaks kaen-log's
     * requests ({@link Broker#serve}); chapter 9 adds a port that speaks Kafka's, over the same framing
     * (an int32 length, then the payload), so the same limits and the same memory pool hold.
     */
    @FunctionalInterface
    public interface ConnectionProtocol {
        void serve(InputStream in, OutputStream out) throws IOException;
    }

    /**
     * What the broker ties to a connection's thread: the partitions its current request uses, which
     * must not be closed under it ({@link LogManager}). Each is called on the connection's thread.
     */
    interface ConnectionScope {
        /** The connection's thread starts serving. */
        void enter();

        /** The client's turn again: the last request is answered, what it used is free. */
        void requestDone();

        /** The connection ends. */
        void exit();
    }

    private final ServerSocket server;
    private final ConnectionLimits limits;
    private final int maxFrameBytes;
    private final PrintStream log;
    private final LongSupplier clock;
    private final ConnectionScope scope;
    private final MemoryPool pool;
    private final ThreadFactory connectionThreads;
    private final RateLimitedLog troubles;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
    /** Listeners a later chapter added ({@link #listen}): same limits, same pool, another protocol. */
    private final List<Listener> listeners = new ArrayList<>();
    private List<Connection> closedConnections = List.of();
    private volatile boolean closed;
    private Thread acceptor;
    /** Since when (broker time) the idle check has seen a request waiting for room in the pool; -1 if none. */
    private volatile long poolWaitSeenMs = -1;

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
        /** Since when (broker time) the pool holds bytes for a frame of this client that has not all arrived; -1 if none. */
        volatile long partialFrameSinceMs = -1;
        /** While a response is being written: when (broker time) its last byte moved; -1 otherwise. */
        volatile long writeProgressMs = -1;

        Connection(int id, Socket socket) {
            this.id = id;
            this.socket = socket;
            InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
            this.peer = remote.getAddress().getHostAddress() + ":" + remote.getPort();
        }
    }

    private SocketServer(ServerSocket server, ConnectionLimits limits, int maxFrameBytes, PrintStream log,
                         LongSupplier clock, ConnectionScope scope, ThreadFactory connectionThreads) {
        this.server = server;
        this.limits = limits;
        this.maxFrameBytes = maxFrameBytes;
        this.log = log;
        this.clock = clock;
        this.scope = scope;
        this.connectionThreads = connectionThreads;
        this.pool = new MemoryPool(limits.queuedMaxRequestBytes());
        this.troubles = new RateLimitedLog(log, TROUBLE_LOG_INTERVAL_MS);
    }

    /**
     * Binds the broker's port (not accepting yet: {@link #startAccepting}); {@code connectionThreads}
     * makes each connection's thread (a test passes one whose threads fail to start, as under a pids limit).
     */
    static SocketServer bind(BrokerConfig config, ConnectionLimits limits, PrintStream log, LongSupplier clock,
                             ConnectionScope scope, ThreadFactory connectionThreads) throws IOException {
        refuseAPoolTooSmall(config, limits);
        ServerSocket server = bindSocket(config.host(), config.port());
        warmUpSocketClose();
        return new SocketServer(server, limits, config.maxFrameBytes(), log, clock, scope, connectionThreads);
    }

    /** The request memory pool must hold at least one frame of the largest size, or a client could wait forever. */
    static void refuseAPoolTooSmall(BrokerConfig config, ConnectionLimits limits) {
        if (limits.queuedMaxRequestBytes() < config.maxFrameBytes()) {
            throw new IllegalArgumentException("queued.max.request.bytes (" + limits.queuedMaxRequestBytes()
                    + ") must hold at least one frame of the largest size (" + config.maxFrameBytes() + ")");
        }
    }

    /**
     * A listening socket opened as a channel's (ServerSocketChannel): the sockets it accepts have a
     * SocketChannel, which a fetch's records need to go out with transferTo ({@link Send}); served in
     * blocking mode, as before, through the socket's streams.
     */
    private static ServerSocket bindSocket(String host, int port) throws IOException {
        ServerSocket socket = ServerSocketChannel.open().socket();
        try {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(host), port));
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return socket;
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

    /** Starts the broker's own acceptor, serving its connections with {@code protocol}. */
    void startAccepting(ConnectionProtocol protocol) {
        acceptor = new Thread(() -> acceptLoop(server, protocol, true), "klog-broker-" + port() + "-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A second listening socket of this broker; closing it stops accepting there. */
    public final class Listener implements Closeable {
        private final ServerSocket socket;
        private final Thread thread;

        private Listener(ServerSocket socket, ConnectionProtocol protocol, boolean kaenLogFraming) {
            this.socket = socket;
            this.thread = new Thread(() -> acceptLoop(socket, protocol, kaenLogFraming), "klog-broker-"
                    + socket.getLocalPort() + "-acceptor");
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
     * Listens on one more port, serving its connections with {@code protocol}, under the same
     * limits: {@code max.connections} counts the connections of every port together, and request
     * bytes come from the same pool. Port 0 picks a free one ({@link Listener#port()}).
     */
    /** The ports of the listeners added with {@link #listen}, in the order they were added. */
    synchronized List<Integer> listenerPorts() {
        return listeners.stream().map(Listener::port).toList();
    }

    Listener listen(String host, int port, ConnectionProtocol protocol) throws IOException {
        return listen(host, port, protocol, false);
    }

    /**
     * As {@link #listen(String, int, ConnectionProtocol)}; {@code kaenLogFraming}: the port speaks the
     * broker's own framing (chapter 10's inter-broker listener), so its fetches are answered as on the
     * broker's own port, the records sent from the files ({@link ResponseChannel#servesKaenLog}).
     */
    Listener listen(String host, int port, ConnectionProtocol protocol, boolean kaenLogFraming) throws IOException {
        ServerSocket socket = bindSocket(host, port);
        Listener listener = new Listener(socket, protocol, kaenLogFraming);
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

    /**
     * Accepts until the broker closes, whatever happens: like Kafka's Acceptor, a failure is logged
     * (once per interval) and the loop goes on; after a failure it pauses, longer each time in a row,
     * so that a lasting one (no file descriptor left: EMFILE) does not spin a core.
     */
    private void acceptLoop(ServerSocket listening, ConnectionProtocol protocol, boolean kaenLogPort) {
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
            backoffMs = admit(socket, protocol, kaenLogPort) ? 0 : backOff(backoffMs, "thread", null);
        }
    }

    /**
     * Serves a new connection on a thread of its own, or closes it at once: when {@code max.connections}
     * are open, or when its thread cannot start. Java reports a thread the system refuses (a pids or
     * nproc limit) as {@code OutOfMemoryError: unable to create native thread}; it is caught here,
     * around the start only, and costs this connection, not the acceptor. False when a thread failed.
     */
    private synchronized boolean admit(Socket socket, ConnectionProtocol protocol, boolean kaenLogPort) {
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
                    + ") refused: max.connections (" + limits.maxConnections() + ") are open", clock.getAsLong());
            closeQuietly(socket);
            return true;
        }
        connection.clientsTurnSinceMs = clock.getAsLong();
        connections.add(connection);
        return startThread(connection, protocol, kaenLogPort);
    }

    /** With the monitor held: starts the connection's thread, or closes the connection if it cannot start. */
    private boolean startThread(Connection connection, ConnectionProtocol protocol, boolean kaenLogPort) {
        Thread thread = connectionThreads.newThread(() -> runConnection(connection, protocol, kaenLogPort));
        thread.setName("klog-broker-" + port() + "-connection-" + connection.id);
        thread.setDaemon(true);
        connection.thread = thread;
        try {
            thread.start();
            return true;
        } catch (OutOfMemoryError noThread) {
            connections.remove(connection);
            closeQuietly(connection.socket);
            troubles.println("thread", "connection " + connection.id + " (" + connection.peer + ") refused: its"
                    + " thread did not start (" + noThread.getMessage() + ")", clock.getAsLong());
            return false;
        }
    }

    /** Logs (rate-limited) and pauses; the next pause is twice as long, up to the maximum. */
    private long backOff(long previousMs, String kind, String line) {
        if (line != null) {
            troubles.println(kind, line + " (backing off, at most " + MAX_BACKOFF_MS + " ms)", clock.getAsLong());
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
    private void runConnection(Connection connection, ConnectionProtocol protocol, boolean kaenLogPort) {
        scope.enter();
        String reason = null;
        PooledFrameInput in = null;
        try {
            connection.socket.setTcpNoDelay(true);
            in = new PooledFrameInput(new BufferedInputStream(connection.socket.getInputStream()), pool,
                    maxFrameBytes, turnsOf(connection));
            OutputStream out = in.releasingOnWrite(new BufferedOutputStream(
                    new WatchedOutput(connection.socket.getOutputStream(), () -> writing(connection),
                            () -> notWriting(connection)), 64 * 1024));
            ResponseChannel.bind(new ResponseChannel(connection.socket.getChannel(), out, in, kaenLogPort,
                    in::releaseAll, () -> writing(connection), () -> notWriting(connection)));
            protocol.serve(in, out);
        } catch (IOException | RuntimeException e) {
            reason = whyClosed(e);
        } finally {
            if (connection.closeReason != null) {
                reason = connection.closeReason;
            }
            // Log first, close second: whoever sees the connection closed can already read why. The reason
            // may quote what the client sent (a parse error): one line, escaped and cut (LogText).
            if (reason != null && !closed) {
                log.println("connection " + connection.id + " (" + connection.peer + ") closed: " + LogText.clean(reason));
            }
            closeQuietly(connection.socket);
            if (in != null) {
                in.releaseAll();
            }
            connections.remove(connection);
            ResponseChannel.unbind();
            scope.exit();
        }
    }

    /** A response write moved bytes (or starts): its stall clock starts again. */
    private void writing(Connection connection) {
        connection.writeProgressMs = clock.getAsLong();
    }

    private static void notWriting(Connection connection) {
        connection.writeProgressMs = -1;
    }

    /**
     * The socket's output, in chunks, telling the connection when a write starts and ends: a client
     * that stops reading blocks a write inside the kernel, where no timeout of Java's blocking
     * sockets reaches; {@link #closeIdleConnections} sees the write's clock and closes the socket.
     */
    private static final class WatchedOutput extends OutputStream {
        private static final int CHUNK_BYTES = 64 * 1024;
        private final OutputStream out;
        private final Runnable progress;
        private final Runnable done;

        WatchedOutput(OutputStream out, Runnable progress, Runnable done) {
            this.out = out;
            this.progress = progress;
            this.done = done;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                for (int at = off; at < off + len; at += CHUNK_BYTES) {
                    progress.run();
                    out.write(b, at, Math.min(CHUNK_BYTES, off + len - at));
                }
            } finally {
                done.run();
            }
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    /** The broker's log line for what ended a connection. */
    private static String whyClosed(Exception e) {
        if (e instanceof MalformedMessageException || e instanceof CloseConnectionException) {
            return e.getMessage();
        } else if (e instanceof CorruptBatchException) {
            return "corrupt batch: " + e.getMessage();
        } else if (e instanceof EOFException) {
            return "the client hung up in the middle of a frame";
        } else if (e instanceof IOException) {
            return "I/O error: " + e.getMessage();
        } else if (e instanceof CancellationException) {
            return "a wait was cancelled: " + e.getMessage();
        } else if (e instanceof Todo) {
            return e.getMessage() + " (an exercise not written yet)";
        }
        return "internal error: " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** The idle clock runs while the client owes a request; a new request frees the last one's partitions. */
    private PooledFrameInput.Turns turnsOf(Connection connection) {
        return new PooledFrameInput.Turns() {
            @Override
            public void clientsTurn() {
                connection.clientsTurnSinceMs = clock.getAsLong();
                scope.requestDone();
            }

            @Override
            public void brokersTurn() {
                connection.clientsTurnSinceMs = -1;
            }

            @Override
            public void holdsPartialFrame(boolean holds) {
                connection.partialFrameSinceMs = holds ? clock.getAsLong() : -1;
            }
        };
    }

    /**
     * While the pool is full and a request waits for room, one connection at a time is shed: every
     * {@link #SHED_AFTER_MS} of broker time that a request waited, the connection whose unfinished
     * frame has held its pool bytes the longest is closed (a client that announced a frame and sends
     * nothing more is the one that loses, not the next client that asks). Kafka mutes a channel when
     * its pool is empty and leaves a stalled frame to connections.max.idle.ms (10 minutes by default).
     */
    private void shedTheOldestPartialFrame(long nowMs) {
        if (pool.waiting() == 0) {
            poolWaitSeenMs = -1;
            return;
        }
        if (poolWaitSeenMs < 0) {
            poolWaitSeenMs = nowMs;
            return;
        }
        if (nowMs - poolWaitSeenMs < SHED_AFTER_MS) {
            return;
        }
        poolWaitSeenMs = nowMs;
        Connection oldest = null;
        for (Connection connection : connections) {
            long since = connection.partialFrameSinceMs;
            if (since >= 0 && (oldest == null || since < oldest.partialFrameSinceMs)) {
                oldest = connection;
            }
        }
        if (oldest != null) {
            oldest.closeReason = "shed: its unfinished frame held pool bytes for " + (nowMs - oldest.partialFrameSinceMs)
                    + " ms, the longest, while another request waited " + SHED_AFTER_MS + " ms for room"
                    + " (queued.max.request.bytes " + pool.capacity() + ")";
            closeQuietly(oldest.socket);
        }
    }

    /** connections.max.idle.ms: a connection whose client has owed a whole request that long is closed. */
    void closeIdleConnections(long nowMs) {
        shedTheOldestPartialFrame(nowMs);
        for (Connection connection : connections) {
            long moved = connection.writeProgressMs;
            if (moved >= 0 && nowMs - moved >= limits.writeStallMaxMs()) {
                connection.closeReason = "the client reads nothing: a response write moved no byte for "
                        + (nowMs - moved) + " ms (write.stall.max.ms " + limits.writeStallMaxMs() + ")";
                closeQuietly(connection.socket);
                continue;
            }
            long since = connection.clientsTurnSinceMs;
            if (since >= 0 && nowMs - since >= limits.connectionsMaxIdleMs()) {
                connection.closeReason = "idle: no whole request for " + (nowMs - since) + " ms"
                        + " (connections.max.idle.ms " + limits.connectionsMaxIdleMs() + ")";
                closeQuietly(connection.socket);
            }
        }
    }

    /** The port the broker listens on (the one picked when the config said 0). */
    int port() {
        return server.getLocalPort();
    }

    /** host:port, e.g. 127.0.0.1:9092. */
    String address() {
        return server.getInetAddress().getHostAddress() + ":" + port();
    }

    ConnectionLimits limits() {
        return limits;
    }

    /** Connections being served right now. */
    int connectionCount() {
        return connections.size();
    }

    /** Bytes of the request memory pool free right now. */
    long poolAvailableBytes() {
        return pool.available();
    }

    /**
     * Stops accepting on every port and closes every connection's socket, without waiting for the
     * threads ({@link #awaitShutdown}): a connection parked in a wait is woken by the broker.
     */
    void shutdown() {
        synchronized (this) {
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
        closedConnections = List.copyOf(connections);
        closedConnections.forEach(c -> closeQuietly(c.socket));
    }

    /** Waits for the acceptor and for the thread of every connection {@link #shutdown} closed. */
    void awaitShutdown() {
        joinUninterruptibly(acceptor);
        closedConnections.forEach(c -> joinUninterruptibly(c.thread));
    }

    static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException ignored) {
            // closing is all that was left to do with it
        }
    }

    static void joinUninterruptibly(Thread thread) {
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
