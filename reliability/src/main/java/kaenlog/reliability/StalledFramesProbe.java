package kaenlog.reliability;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import kaenlog.produce.Frames;

/**
 * A finding, measured: how many connections that send only a frame's 4-byte length (the largest
 * the broker accepts, 1 MiB) and then nothing it takes to exhaust a broker with a 64 MiB heap. The
 * broker allocates the frame's buffer as soon as it has read the length and keeps it for as long
 * as the client keeps the connection (there is no idle timeout and no limit on connections), so
 * memory is bounded per connection, never in total. Kafka has the same per-connection allocation
 * and bounds the rest with {@code connections.max.idle.ms}, {@code max.connections} and
 * {@code queued.max.request.bytes}.
 *
 * <p>The broker runs with {@code -XX:+ExitOnOutOfMemoryError}, so the first OutOfMemoryError ends
 * it: the count is where it ran out. (Without that flag the error kills whichever thread allocates
 * at that moment; {@code Broker.acceptLoop} catches only IOException, so when that thread is the
 * acceptor, the process lives on and never accepts again.)
 */
public final class StalledFramesProbe {
    /**
     * What happened.
     *
     * @param stalledWhenDied stalled connections when the broker ran out of heap, -1 if it never did up to {@code cap}
     * @param exitStatus      the broker's exit status when it died, else -1
     */
    public record Result(String maxHeap, int stalledWhenDied, int cap, int exitStatus) {
        public List<String> lines() {
            return List.of("clients that send only a 1 MiB frame length and wait, against a -Xmx" + maxHeap + " broker: "
                    + (stalledWhenDied < 0 ? "it held all " + cap
                    : "it ran out of heap at client " + stalledWhenDied + " (4 bytes each) and exited, status "
                    + exitStatus + " (-XX:+ExitOnOutOfMemoryError)"));
        }
    }

    private StalledFramesProbe() {
    }

    public static Result run(Path dir, BrokerProcess.Options options, int cap) throws IOException {
        String heap = "64m";
        List<Socket> stalled = new ArrayList<>();
        int diedAt = -1;
        try (BrokerProcess broker = BrokerProcess.start(dir, options.withMaxHeap(heap))) {
            long base = broker.procStatus("Threads");
            try {
                for (int i = 1; i <= cap && diedAt < 0; i++) {
                    Socket s = new Socket();
                    stalled.add(s);
                    try {
                        s.connect(new InetSocketAddress(broker.host(), broker.port()), 5_000);
                        s.getOutputStream().write(ByteBuffer.allocate(4).putInt(Frames.DEFAULT_MAX_FRAME_BYTES).array());
                    } catch (IOException refused) {
                        diedAt = i;
                        break;
                    }
                    // Give the broker the time to accept it and read the length (a thread each).
                    int held = i;
                    Deadline.in(200).await(() -> !broker.isAlive() || base >= 0 && broker.procStatus("Threads") >= base + held);
                    Deadline.pause(5);
                    if (!broker.isAlive()) {
                        diedAt = i;
                    }
                }
            } finally {
                for (Socket s : stalled) {
                    s.close();
                }
            }
            int status = -1;
            if (diedAt > 0) {
                Deadline.in(5_000).await(() -> !broker.isAlive());
                status = broker.isAlive() ? -1 : broker.kill();
            }
            return new Result(heap, diedAt, cap, status);
        }
    }
}
