package kaenlog.reliability;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.wire.Frames;
import kaenlog.wire.ProduceRequest;

/**
 * Clients that each send a whole 1 MiB frame (a default producer's largest request) but its last byte, and then wait,
 * against a broker with a 64 MiB heap run WITHOUT {@code -XX:+ExitOnOutOfMemoryError} (so running
 * out would kill a thread, maybe the acceptor, and leave the process limping, not exit it), while a
 * well-behaved client produces and consumes. Each staller holds a megabyte of the broker's memory
 * once the broker reads it; what bounds the sum is {@code queued.max.request.bytes} (the request
 * memory pool: a staller beyond it waits, its bytes in the kernel's socket buffers) and
 * {@code connections.max.idle.ms} (a staller owes a whole request, so it is closed and its bytes
 * freed). The stallers write non-blocking from one thread, so a broker that does not read them does
 * not stall the probe; one shared buffer holds the frame they all send.
 */
public final class StalledFramesProbe {
    /**
     * What happened.
     *
     * @param stallers         staller connections opened
     * @param sentSomething    of those, the ones that got at least a byte out
     * @param idleMs           the broker's --connections-max-idle-ms
     * @param aliveThroughout  the broker process was alive at every sample
     * @param errorLines       lines of the broker's log that name an OutOfMemoryError or an uncaught exception
     * @param idleClosed       connections the broker closed as idle
     * @param peakRssKb        the broker's peak resident memory
     * @param peakThreads      the broker's largest thread count sampled
     * @param good             the well-behaved client's rounds and latencies
     * @param goodRoundsDuring rounds it completed while the stallers were held
     */
    public record Result(String maxHeap, int stallers, int sentSomething, long idleMs, boolean aliveThroughout,
                         long errorLines, long idleClosed, long peakRssKb, long peakThreads, String good,
                         long goodRoundsDuring, long goodRecords, String goodFailure) {
        public boolean ok() {
            return aliveThroughout && errorLines == 0 && goodRoundsDuring > 0 && goodFailure == null;
        }

        public List<String> lines() {
            return List.of(stallers + " clients each send a whole 1 MiB frame but its last byte (" + sentSomething
                            + " got bytes out) against a -Xmx" + maxHeap + " broker without ExitOnOutOfMemoryError: "
                            + (aliveThroughout ? "alive throughout" : "it DIED") + ", " + errorLines
                            + " OutOfMemoryError/uncaught-exception lines, peak RSS "
                            + (peakRssKb < 0 ? "n/a" : peakRssKb / 1024 + " MiB") + ", peak threads " + peakThreads,
                    "limits hit: queued.max.request.bytes (default 16 MiB: 16 stallers at a time hold memory, the"
                            + " rest wait unread) and connections.max.idle.ms " + idleMs + " (" + idleClosed
                            + " stallers closed as idle); while the pool is full a request waits until a staller is"
                            + " closed, and a round is two requests",
                    good + " (" + goodRoundsDuring + " while the stallers were held)"
                            + (goodFailure == null ? "" : "; FAILED: " + goodFailure));
        }
    }

    /** @param stallers connections, @param holdMs how long they stay, @param idleMs the broker's idle limit */
    public record Config(int stallers, long holdMs, long idleMs) {
        public static Config full() {
            return new Config(200, 8_000, 2_000);
        }
    }

    private StalledFramesProbe() {
    }

    public static Result run(Path dir, BrokerProcess.Options options, Config config) throws IOException {
        String heap = "64m";
        BrokerProcess.Options stalledOptions = options.withMaxHeap(heap).withoutExitOnOutOfMemoryError()
                .plusServeArgs("--connections-max-idle-ms", Long.toString(config.idleMs()));
        try (BrokerProcess broker = BrokerProcess.start(dir, stalledOptions)) {
            Ledger ledger = new Ledger();
            SteadyClient good = SteadyClient.start(broker, new LedgerProducer(1, "good-0", ProduceRequest.ACKS_LEADER,
                    5, 3, ledger));
            good.awaitRounds(3, 30_000);
            ByteBuffer frame = fullFrameButTheLastByte();
            List<SocketChannel> channels = new ArrayList<>();
            long[] sent = new long[config.stallers()];
            boolean[] closed = new boolean[config.stallers()];
            boolean alive = true;
            long peakThreads = 0;
            long roundsBefore = good.rounds.get();
            try {
                for (int i = 0; i < config.stallers(); i++) {
                    SocketChannel channel = SocketChannel.open(new InetSocketAddress(broker.host(), broker.port()));
                    channel.configureBlocking(false);
                    channels.add(channel);
                    pump(channels, sent, closed, frame);
                }
                Deadline hold = Deadline.in(config.holdMs());
                while (!hold.passed()) {
                    pump(channels, sent, closed, frame);
                    alive &= broker.isAlive();
                    peakThreads = Math.max(peakThreads, broker.procStatus("Threads"));
                    Deadline.pause(20);
                }
            } finally {
                for (SocketChannel channel : channels) {
                    channel.close();
                }
            }
            long roundsDuring = good.rounds.get() - roundsBefore;
            good.awaitRounds(3, 30_000);
            good.stop();
            alive &= broker.isAlive();
            int sentSomething = 0;
            for (long s : sent) {
                sentSomething += s > 0 ? 1 : 0;
            }
            List<String> log = broker.log();
            long errors = log.stream().filter(l -> l.contains("OutOfMemoryError") || l.contains("Exception in thread"))
                    .count();
            long idle = log.stream().filter(l -> l.contains("connections.max.idle.ms")).count();
            return new Result(heap, config.stallers(), sentSomething, config.idleMs(), alive, errors, idle,
                    broker.procStatus("VmHWM"), peakThreads, good.summary(), roundsDuring, ledger.ackedRecords(),
                    good.failure);
        }
    }

    /** A frame whose length says 1 MiB, and all of it but the last byte. */
    private static ByteBuffer fullFrameButTheLastByte() {
        int length = Frames.DEFAULT_MAX_FRAME_BYTES;
        ByteBuffer frame = ByteBuffer.allocate(4 + length - 1);
        frame.putInt(length);
        frame.clear();
        return frame.asReadOnlyBuffer();
    }

    /** Writes what each channel's socket takes now; a channel the broker closed is left alone. */
    private static void pump(List<SocketChannel> channels, long[] sent, boolean[] closed, ByteBuffer frame) {
        for (int i = 0; i < channels.size(); i++) {
            SocketChannel channel = channels.get(i);
            if (closed[i] || sent[i] == frame.capacity()) {
                continue;
            }
            ByteBuffer rest = frame.duplicate();
            rest.position((int) sent[i]);
            try {
                sent[i] += channel.write(rest);
            } catch (IOException closedByBroker) {
                closed[i] = true;
            }
        }
    }
}
