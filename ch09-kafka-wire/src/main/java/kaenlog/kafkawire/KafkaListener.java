package kaenlog.kafkawire;

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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import kaenlog.broker.CloseConnectionException;
import kaenlog.produce.Frames;
import kaenlog.produce.MalformedMessageException;

/**
 * The second listener: Kafka's protocol on its own port, beside kaen-log's. Same shape as chapter
 * 3's broker — one accepting thread, one thread per connection, blocking I/O, and Kafka's framing
 * is chapter 3's (an int32 length, then the payload), so {@link Frames} reads it. A connection
 * whose bytes do not parse is closed with one line in the broker's log; the others are served on.
 */
public final class KafkaListener implements Closeable {
    /** Kafka's socket.request.max.bytes default is 100 MiB; a producer's max.request.size is 1 MiB. */
    public static final int MAX_REQUEST_BYTES = 8 << 20;

    private final ServerSocket server;
    private final KafkaApis apis;
    private final PrintStream log;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    private KafkaListener(ServerSocket server, KafkaApis apis, PrintStream log) {
        this.server = server;
        this.apis = apis;
        this.log = log;
        this.acceptor = new Thread(this::acceptLoop, "klog-kafka-" + server.getLocalPort() + "-acceptor");
        this.acceptor.setDaemon(true);
    }

    /** Listens on {@code host:port} (0 = any free port) and answers through {@code backend}. */
    public static KafkaListener start(Backend backend, String host, int port, PrintStream log) throws IOException {
        ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getByName(host), port));
        } catch (IOException e) {
            server.close();
            throw e;
        }
        KafkaApis apis = new KafkaApis(backend, host, server.getLocalPort(), log);
        KafkaListener listener = new KafkaListener(server, apis, log);
        listener.acceptor.start();
        return listener;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Metadata will send clients to {@code host:port} instead of this listener's own address. */
    public void advertise(String host, int port) {
        apis.advertise(host, port);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.println("kafka: accept failed: " + e.getMessage());
                }
                continue;
            }
            open.add(socket);
            Thread connection = new Thread(() -> serve(socket), "klog-kafka-connection");
            connection.setDaemon(true);
            try {
                connection.start();
            } catch (OutOfMemoryError noThread) {
                log.println("kafka: cannot start a connection thread: " + noThread.getMessage());
                closeQuietly(socket);
                open.remove(socket);
            }
        }
    }

    private void serve(Socket socket) {
        String reason = null;
        try {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = new BufferedOutputStream(socket.getOutputStream());
            while (true) {
                byte[] frame = Frames.readFrame(in, MAX_REQUEST_BYTES);
                if (frame == null) {
                    return;
                }
                Optional<byte[]> response = apis.handle(frame);
                if (response.isPresent()) {
                    Frames.writeFrame(out, response.get());
                }
            }
        } catch (MalformedMessageException | CloseConnectionException e) {
            reason = e.getMessage();
        } catch (EOFException e) {
            reason = "the client hung up in the middle of a frame";
        } catch (IOException e) {
            reason = "I/O error: " + e.getMessage();
        } catch (CancellationException e) {
            reason = "a wait was cancelled: the broker is shutting down";
        } catch (RuntimeException e) {
            reason = "internal error: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        } finally {
            if (reason != null && !closed) {
                log.println("kafka: connection from " + socket.getRemoteSocketAddress() + " closed: " + reason);
            }
            closeQuietly(socket);
            open.remove(socket);
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        open.forEach(KafkaListener::closeQuietly);
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException ignored) {
            // closing is all that was left to do
        }
    }
}
