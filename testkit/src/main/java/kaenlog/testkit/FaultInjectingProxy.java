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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A loopback TCP proxy between clients and a broker that reads whole frames (an int32 length, then
 * the payload: kaen-log's frames and Kafka's alike) in both directions and,
 * by a seeded random draw per frame, drops a request, drops a response, or delays one. A TCP
 * connection cannot lose one frame and deliver the next, so a dropped frame ends the connection:
 * the frame is thrown away and both sides are closed, the way a lost segment surfaces to a client
 * as a timeout after which it gives the connection up (Kafka's request.timeout.ms). A dropped
 * request was never seen by the broker; a dropped response was processed, and only its answer is
 * lost: the case that makes a producer resend what is already written.
 *
 * <p>Each connection draws from its own {@code Random(seed, connection number, direction)}, so a
 * run is repeatable up to the interleaving of threads.
 *
 * <p>{@link #blackhole()} partitions the link until {@link #heal()}: what a dropped-packets firewall
 * rule does to TCP. Nothing is forwarded either way and a new connection is accepted but not put
 * through; the frames sent meanwhile wait, as TCP's retransmissions would, and arrive in order after
 * the heal, unless an end gave the connection up first (its own timeout: a ZooKeeper session that
 * expires, a request that times out). Nothing is dropped, so a partition alone never reorders or
 * loses a frame: only the ends' timeouts act on it.
 */
public final class FaultInjectingProxy implements Closeable {
    /** Larger than any frame a kaen-log broker or a Kafka client sends here. */
    private static final int MAX_FRAME_BYTES = 16 << 20;
    /**
     * @param requestDropRate  probability that a request frame is dropped (and the connection cut)
     * @param responseDropRate probability that a response frame is dropped (and the connection cut)
     * @param delayRate        probability that a frame that is not dropped is held back first
     * @param maxDelayMs       held back 1..max ms
     * @param silentDrops      drop the frame and keep the connection (what TCP cannot do; a client then
     *                         learns of the loss only from a timeout of its own)
     */
    public record Faults(long seed, double requestDropRate, double responseDropRate, double delayRate, int maxDelayMs,
                         boolean silentDrops) {
        /** The issue's rates: 2% of requests and 10% of responses dropped, 20% of the others delayed 1-3 ms. */
        public static Faults issue(long seed) {
            return new Faults(seed, 0.02, 0.10, 0.20, 3, false);
        }

        /** Answers lost and nothing else: the request was processed, its answer never arrives. */
        public static Faults lostAnswers(long seed, double responseDropRate) {
            return new Faults(seed, 0, responseDropRate, 0, 1, false);
        }
    }

    private final ServerSocket server;
    private final InetSocketAddress broker;
    private final Faults faults;
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong requestsForwarded = new AtomicLong();
    private final AtomicLong requestsDropped = new AtomicLong();
    private final AtomicLong responsesForwarded = new AtomicLong();
    private final AtomicLong responsesDropped = new AtomicLong();
    private final AtomicLong delayed = new AtomicLong();
    private final AtomicLong blackholes = new AtomicLong();
    private final Object partition = new Object();
    private boolean blackholed;
    private volatile boolean closed;
    private volatile Consumer<byte[]> requestObserver = frame -> { };

    public FaultInjectingProxy(String brokerHost, int brokerPort, Faults faults) throws IOException {
        this.broker = new InetSocketAddress(brokerHost, brokerPort);
        this.faults = faults;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "fault-proxy-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        threads.add(acceptor);
    }

    public int port() {
        return server.getLocalPort();
    }

    public long connections() {
        return connections.get();
    }

    public long requestsDropped() {
        return requestsDropped.get();
    }

    public long responsesDropped() {
        return responsesDropped.get();
    }

    public long delayed() {
        return delayed.get();
    }

    public long requestsForwarded() {
        return requestsForwarded.get();
    }

    public long responsesForwarded() {
        return responsesForwarded.get();
    }

    /**
     * Shows every request frame that crosses, before it is forwarded, to {@code observer} (on the
     * connection's own thread: it must be quick and thread-safe), e.g. to see which api keys and
     * versions a client sends.
     */
    public void observeRequests(Consumer<byte[]> observer) {
        this.requestObserver = observer;
    }

    /** Every fault injected: drops, delays and partitions. */
    public long faultsInjected() {
        return requestsDropped.get() + responsesDropped.get() + delayed.get() + blackholes.get();
    }

    /** Partitions the link: from now on no frame crosses it, either way, until {@link #heal()}. */
    public void blackhole() {
        synchronized (partition) {
            if (!blackholed) {
                blackholes.incrementAndGet();
            }
            blackholed = true;
        }
    }

    /** Ends the partition: the frames held back go on, in order, and new connections are put through. */
    public void heal() {
        synchronized (partition) {
            blackholed = false;
            partition.notifyAll();
        }
    }

    public boolean blackholed() {
        synchronized (partition) {
            return blackholed;
        }
    }

    /** How many times the link was partitioned. */
    public long blackholes() {
        return blackholes.get();
    }

    /** Waits while the link is partitioned (or until the proxy closes). */
    private void awaitHealed() throws InterruptedException {
        synchronized (partition) {
            while (blackholed && !closed) {
                partition.wait(100);
            }
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                continue; // closed, or a client that went away before it was accepted
            }
            long n = connections.incrementAndGet();
            Socket upstream = new Socket();
            try {
                awaitHealed(); // a partitioned link takes the connection but puts nothing through
                upstream.connect(broker, 10_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            } catch (IOException | InterruptedException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                if (e instanceof InterruptedException) {
                    return;
                }
                continue;
            }
            synchronized (sockets) {
                if (closed) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    return;
                }
                sockets.add(client);
                sockets.add(upstream);
                Random requests = new Random(faults.seed() * 1_000_003L + n * 2);
                Random responses = new Random(faults.seed() * 1_000_003L + n * 2 + 1);
                pump("requests-" + n, client, upstream, requests, faults.requestDropRate(), requestsForwarded,
                        requestsDropped, frame -> requestObserver.accept(frame));
                pump("responses-" + n, upstream, client, responses, faults.responseDropRate(), responsesForwarded,
                        responsesDropped, frame -> { });
            }
        }
    }

    private void pump(String name, Socket from, Socket to, Random random, double dropRate, AtomicLong forwarded,
                      AtomicLong dropped, Consumer<byte[]> observer) {
        Thread t = new Thread(() -> {
            try {
                InputStream in = new BufferedInputStream(from.getInputStream());
                OutputStream out = new BufferedOutputStream(to.getOutputStream());
                for (byte[] frame = readFrame(in); frame != null; frame = readFrame(in)) {
                    observer.accept(frame);
                    awaitHealed();
                    if (random.nextDouble() < dropRate) {
                        dropped.incrementAndGet();
                        if (faults.silentDrops()) {
                            continue;
                        }
                        return;
                    }
                    if (random.nextDouble() < faults.delayRate()) {
                        delayed.incrementAndGet();
                        Thread.sleep(1 + random.nextInt(faults.maxDelayMs()));
                    }
                    writeFrame(out, frame);
                    forwarded.incrementAndGet();
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                // one side went away: cut the other
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "fault-proxy-" + name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
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
        heal();
        server.close();
        List<Thread> all;
        synchronized (sockets) {
            sockets.forEach(FaultInjectingProxy::closeQuietly);
            all = List.copyOf(threads);
        }
        for (Thread t : all) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
