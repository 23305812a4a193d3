package kaenlog.testkit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
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

/**
 * A loopback TCP proxy between a producer and a broker that loses answers: every request frame (an
 * int32 length, then the payload: kaen-log's frames and Kafka's alike) is forwarded, but each
 * response frame is, with probability {@code dropRate}, thrown away and both connections are cut
 * instead. The request was processed; its answer never arrives. That is the
 * chapter's opening scene, made repeatable by a seeded {@link Random}: the same seed gives the same
 * verdict for the n-th answer.
 */
public final class FaultyProxy implements Closeable {
    private static final int MAX_FRAME_BYTES = 16 << 20;
    private final ServerSocket server;
    private final int brokerPort;
    private final double dropRate;
    private final Random random;
    private final List<Socket> sockets = new ArrayList<>();
    private final AtomicInteger forwarded = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();
    private volatile boolean closed;

    public FaultyProxy(int brokerPort, long seed, double dropRate) throws IOException {
        this.brokerPort = brokerPort;
        this.dropRate = dropRate;
        this.random = new Random(seed);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "faulty-proxy-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public int forwardedResponses() {
        return forwarded.get();
    }

    public int droppedResponses() {
        return dropped.get();
    }

    public int connections() {
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
                byte[] frame = readFrame(in);
                if (frame == null) {
                    break;
                }
                if (answers && drop()) {
                    dropped.incrementAndGet();
                    break;
                }
                writeFrame(out, frame);
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

    /** An int32 length, then that many bytes; null at a clean end of stream. */
    private static byte[] readFrame(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int length;
        try {
            length = data.readInt();
        } catch (EOFException end) {
            return null;
        }
        if (length < 0 || length > MAX_FRAME_BYTES) {
            throw new IOException("frame length " + length + " is out of range");
        }
        byte[] frame = new byte[length];
        data.readFully(frame);
        return frame;
    }

    private static void writeFrame(OutputStream out, byte[] frame) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(frame.length);
        data.write(frame);
        data.flush();
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
