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
import kaenlog.produce.Frames;
import kaenlog.produce.MalformedMessageException;
import kaenlog.produce.Partition;
import kaenlog.workbook.Todo;

/**
 * A kaen-log broker on plain JDK threads and blocking I/O, like the course's original (Rust std, no
 * async runtime): one thread accepts connections, one thread per connection reads a request frame,
 * lets the {@link RequestHandler} for its apiKey answer, writes the response frame, and reads the
 * next. A third thread, the ticker, moves the broker's virtual time forward (no clock is read: it
 * sleeps {@code tickMs} and adds {@code tickMs}) and lets every partition expire what waited too long.
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

    private Broker(BrokerConfig config, PrintStream log, Map<Short, RequestHandler> handlers, ServerSocket server) {
        this.config = config;
        this.log = log;
        this.handlers = handlers;
        this.server = server;
        this.nowMs = config.startNowMs();
    }

    /** Starts a broker with the handlers registered on the classpath (ServiceLoader). */
    public static Broker start(BrokerConfig config, PrintStream log) throws IOException {
        List<RequestHandler> found = ServiceLoader.load(RequestHandler.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        return start(config, log, found);
    }

    /** Starts a broker with these handlers (the highest priority per apiKey wins). */
    public static Broker start(BrokerConfig config, PrintStream log, List<RequestHandler> candidates)
            throws IOException {
        if (candidates.isEmpty()) {
            throw new IllegalStateException("no request handlers: none is registered in"
                    + " META-INF/services/kaenlog.broker.RequestHandler on the classpath");
        }
        Map<Short, RequestHandler> handlers = chooseHandlers(candidates);
        Files.createDirectories(config.dataDir());
        ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getByName(config.host()), config.port()));
        } catch (IOException e) {
            server.close();
            throw e;
        }
        Broker broker = new Broker(config, log, handlers, server);
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

    private void startThreads() {
        acceptor = new Thread(this::acceptLoop, "klog-broker-" + port() + "-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        if (config.tickMs() > 0) {
            ticker = new Thread(this::tickLoop, "klog-broker-" + port() + "-ticker");
            ticker.setDaemon(true);
            ticker.start();
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
                advanceTime(config.tickMs());
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

    @Override
    public long nowMs() {
        return nowMs;
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
                partition = Partition.openOrOffline(name, dir, config.logConfig(), log::println);
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
        List<Connection> open = List.copyOf(connections);
        open.forEach(c -> closeQuietly(c.socket));
        waiting.forEach(f -> f.cancel(false));
        joinUninterruptibly(acceptor);
        joinUninterruptibly(ticker);
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
