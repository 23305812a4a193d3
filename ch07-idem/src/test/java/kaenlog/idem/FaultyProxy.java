package kaenlog.idem;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.produce.Frames;

/**
 * A loopback TCP proxy between a producer and a broker that loses answers: every request frame is
 * forwarded, but each response frame is, with probability {@code dropRate}, thrown away and both
 * connections are cut instead. The request was processed; its answer never arrives. That is the
 * chapter's opening scene, made repeatable by a seeded {@link Random}: the same seed gives the same
 * verdict for the n-th answer.
 */
final class FaultyProxy implements Closeable {
    private final ServerSocket server;
    private final int brokerPort;
    private final double dropRate;
    private final Random random;
    private final List<Socket> sockets = new ArrayList<>();
    private final AtomicInteger forwarded = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();
    private volatile boolean closed;

    FaultyProxy(int brokerPort, long seed, double dropRate) throws IOException {
        this.brokerPort = brokerPort;
        this.dropRate = dropRate;
        this.random = new Random(seed);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "faulty-proxy-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    int forwardedResponses() {
        return forwarded.get();
    }

    int droppedResponses() {
        return dropped.get();
    }

    int connections() {
        return connections.get();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket broker = new Socket();
                broker.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), brokerPort));
                client.setTcpNoDelay(true);
                broker.setTcpNoDelay(true);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(broker);
                }
                connections.incrementAndGet();
                start("requests", () -> pump(client, broker, false));
                start("responses", () -> pump(broker, client, true));
            } catch (IOException e) {
                if (!closed) {
                    throw new IllegalStateException("proxy accept failed", e);
                }
            }
        }
    }

    private static void start(String name, Runnable body) {
        Thread thread = new Thread(body, "faulty-proxy-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Copies frames from {@code from} to {@code to}; answers may be lost on the way. */
    private void pump(Socket from, Socket to, boolean answers) {
        try {
            InputStream in = new BufferedInputStream(from.getInputStream());
            OutputStream out = new BufferedOutputStream(to.getOutputStream());
            while (true) {
                byte[] frame = Frames.readFrame(in, 4 * Frames.DEFAULT_MAX_FRAME_BYTES);
                if (frame == null) {
                    break;
                }
                if (answers && drop()) {
                    dropped.incrementAndGet();
                    break;
                }
                Frames.writeFrame(out, frame);
                if (answers) {
                    forwarded.incrementAndGet();
                }
            }
        } catch (IOException e) {
            // the other side is gone: cut both
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private boolean drop() {
        synchronized (random) {
            return random.nextDouble() < dropRate;
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        synchronized (sockets) {
            sockets.forEach(FaultyProxy::closeQuietly);
        }
    }
}
