package kaenlog.kafkawire;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import kaenlog.broker.Send;

/**
 * One Kafka request in, one Kafka response out (or none, for acks=0): read the header, check the
 * api key and version against {@link ApiKey}, let the request's class parse it and answer it
 * through the kaen-log broker, and put the response header in front.
 *
 * <p>An api key or version this listener does not answer gets Kafka's UNSUPPORTED_VERSION (35) in
 * ApiVersions' v0 layout, with the table of what it does answer: the documented fallback for an
 * ApiVersions request too new for the broker, and a word instead of a dropped connection for
 * anything else. The connection stays open: frames are length-prefixed, so the next one is found.
 */
public final class KafkaApis {
    private final Backend backend;
    private volatile String host;
    private volatile int port;
    private final PrintStream log;

    /** {@code host} and {@code port} are what Metadata advertises: where clients reach this listener. */
    public KafkaApis(Backend backend, String host, int port, PrintStream log) {
        this.backend = backend;
        this.host = host;
        this.port = port;
        this.log = log;
    }

    /** Where Metadata tells clients to connect from now on (a proxy in front of this listener, say). */
    public void advertise(String newHost, int newPort) {
        this.host = newHost;
        this.port = newPort;
    }

    public Optional<byte[]> handle(byte[] frame) throws IOException {
        KafkaReader in = new KafkaReader(frame);
        RequestHeader header = RequestHeader.parse(in);
        if (!header.supported()) {
            if (header.key() != ApiKey.API_VERSIONS) {
                log.println("kafka: api key " + header.apiKey() + " v" + header.apiVersion() + " from client '"
                        + header.clientId() + "' is not answered here: UNSUPPORTED_VERSION");
            }
            return Optional.of(withHeader(header.correlationId(), false,
                    ApiVersions.response((short) 0, KafkaErrors.UNSUPPORTED_VERSION)));
        }
        ApiKey key = header.requireKey();
        short version = header.apiVersion();
        Optional<byte[]> body = switch (key) {
            case API_VERSIONS -> {
                ApiVersions.parseRequest(in, version);
                yield Optional.of(ApiVersions.response(version, KafkaErrors.NONE));
            }
            case METADATA -> Optional.of(Metadata.response(Metadata.answer(Metadata.parse(in, version), backend),
                    host, port, version));
            case PRODUCE -> Produce.answer(Produce.parse(in, version), backend)
                    .map(topics -> Produce.response(topics, version));
            case FETCH -> Optional.of(Fetch.response(Fetch.answer(Fetch.parse(in, version), backend,
                    backend.fetchMaxBytes()), version));
            case LIST_OFFSETS -> Optional.of(ListOffsets.response(
                    ListOffsets.answer(ListOffsets.parse(in, version), backend), version));
            case INIT_PRODUCER_ID -> Optional.of(InitProducerIdApi.answer(InitProducerIdApi.parse(in, version),
                    backend));
        };
        boolean headerV1 = key.responseHeaderVersion(version) >= 1;
        return body.map(b -> withHeader(header.correlationId(), headerV1, b));
    }

    /**
     * {@link #handle} as a {@link Send} that includes the frame's length, for a connection's socket:
     * a Fetch's records go from the segment files to the socket with transferTo, never through the
     * heap (Kafka's FileRecords.writeTo); the frame length and the response header leave in one write.
     */
    public Optional<Send> handleSend(byte[] frame) throws IOException {
        KafkaReader in = new KafkaReader(frame);
        RequestHeader header = RequestHeader.parse(in);
        if (!header.supported() || header.requireKey() != ApiKey.FETCH) {
            return handle(frame).map(response -> new Send().bytes(ByteBuffer.allocate(4).putInt(response.length).flip())
                    .bytes(response));
        }
        short version = header.apiVersion();
        List<Fetch.TopicResponse> answer = Fetch.answer(Fetch.parse(in, version), backend, backend.fetchMaxBytes());
        Send body;
        try {
            body = Fetch.body(answer, version);
        } catch (RuntimeException e) {
            Fetch.close(answer);
            throw e;
        }
        KafkaWriter head = new KafkaWriter().int32(header.correlationId());
        if (ApiKey.FETCH.responseHeaderVersion(version) >= 1) {
            head.noTaggedFields();
        }
        byte[] headBytes = head.toByteArray();
        return Optional.of(new Send().bytes(ByteBuffer.allocate(4 + headBytes.length)
                .putInt(Math.toIntExact(headBytes.length + body.sizeInBytes())).put(headBytes).flip()).then(body));
    }

    /** Response header v0 is the correlation id; v1 adds (empty) tagged fields. */
    static byte[] withHeader(int correlationId, boolean headerV1, byte[] body) {
        KafkaWriter out = new KafkaWriter().int32(correlationId);
        if (headerV1) {
            out.noTaggedFields();
        }
        byte[] head = out.toByteArray();
        byte[] response = new byte[head.length + body.length];
        System.arraycopy(head, 0, response, 0, head.length);
        System.arraycopy(body, 0, response, head.length, body.length);
        return response;
    }

    /** The api keys this listener answers, for the broker's start-up lines. */
    public static List<ApiKey> answered() {
        return List.of(ApiKey.values());
    }
}
