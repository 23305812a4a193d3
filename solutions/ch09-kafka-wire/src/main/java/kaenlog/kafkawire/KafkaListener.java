package kaenlog.kafkawire;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Optional;
import kaenlog.broker.Broker;
import kaenlog.broker.ResponseChannel;
import kaenlog.broker.Send;
import kaenlog.broker.SocketServer;
import kaenlog.wire.Frames;

/**
 * The second listener: Kafka's protocol on its own port, beside kaen-log's. Kafka frames its
 * requests as chapter 3 does (an int32 length, then the payload), so the broker's own connection
 * machinery serves this port too ({@link Broker#listen}): one thread per connection, and the same
 * limits — max.connections counts both ports, request bytes come from the same pool, an idle
 * connection is closed. A connection whose bytes do not parse is closed with one line in the
 * broker's log; the others are served on.
 */
public final class KafkaListener implements Closeable {
    private final SocketServer.Listener listener;
    private final KafkaApis apis;
    private final GroupTicker groupTicker;

    private KafkaListener(SocketServer.Listener listener, KafkaApis apis, GroupTicker groupTicker) {
        this.listener = listener;
        this.apis = apis;
        this.groupTicker = groupTicker;
    }

    /** Listens on {@code host:port} (0 = any free port) beside {@code broker}, answering through it. */
    public static KafkaListener start(Broker broker, String host, int port, PrintStream log) throws IOException {
        KafkaApis apis = new KafkaApis(new Backend(broker), host, port, log);
        int maxFrameBytes = broker.config().maxFrameBytes();
        SocketServer.Listener listener = broker.listen(host, port, (in, out) -> serve(in, out, apis, maxFrameBytes));
        apis.advertise(host, listener.port());
        new TopicStore(broker).holes().forEach(log::println);
        return new KafkaListener(listener, apis, GroupTicker.start(broker, apis, log));
    }

    /**
     * One connection: a request frame in, a response frame out (none for acks=0), until the client
     * hangs up. On a broker's connection the response goes to the socket's channel (a Fetch's
     * records with transferTo, {@link KafkaApis#handleSend}); elsewhere, as bytes to {@code out}.
     */
    static void serve(InputStream in, OutputStream out, KafkaApis apis, int maxFrameBytes) throws IOException {
        Optional<ResponseChannel> socket = ResponseChannel.current();
        while (true) {
            byte[] frame = Frames.readFrame(in, maxFrameBytes);
            if (frame == null) {
                return;
            }
            if (socket.isPresent()) {
                Optional<Send> send = apis.handleSend(frame);
                if (send.isPresent()) {
                    socket.get().send(send.get());
                }
                continue;
            }
            Optional<byte[]> response = apis.handle(frame);
            if (response.isPresent()) {
                Frames.writeFrame(out, response.get());
            }
        }
    }

    /** The group coordinator behind this port. */
    public ClassicGroups groups() {
        return apis.groups();
    }

    public int port() {
        return listener.port();
    }

    /** Metadata will send clients to {@code host:port} instead of this listener's own address. */
    public void advertise(String host, int port) {
        apis.advertise(host, port);
    }

    @Override
    public void close() {
        groupTicker.close();
        apis.groups().close();
        listener.close();
    }
}
