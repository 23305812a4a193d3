package kaenlog.kafkawire;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import kaenlog.broker.CloseConnectionException;
import kaenlog.broker.Leadership;
import kaenlog.broker.LogText;
import kaenlog.broker.RateLimitedLog;
import kaenlog.broker.SocketServer;
import kaenlog.broker.Send;

/**
 * One Kafka request in, one Kafka response out (or none, for acks=0): read the header, check the
 * api key and version against {@link ApiKey}, let the request's class parse it and answer it
 * through the kaen-log broker, and put the response header in front.
 *
 * <p>What this listener does not answer gets Kafka's answer for it. An ApiVersions request at a
 * version too new is answered UNSUPPORTED_VERSION (35) in ApiVersions' v0 layout, with the table of
 * what is answered (Kafka's {@code ApiVersionsRequest.getErrorResponse}): the client asks again at the
 * highest version listed. Any other api key or version outside the table closes the connection, as
 * Kafka's SocketServer does (its RequestContext cannot parse the request: an InvalidRequestException
 * closes the channel); a client that follows ApiVersions never sends one. Either way the broker's log
 * gets one line naming the client (escaped, {@link LogText}) and what it asked for, rate limited: a
 * client can send such requests as fast as it likes.
 */
public final class KafkaApis {
    private final Backend backend;
    private volatile String host;
    private volatile int port;
    private final PrintStream log;
    private final RateLimitedLog troubles;
    private ClassicGroups groups;
    /** A later chapter's requests (chapter 11's transactions), when one is on the classpath. */
    private final List<KafkaApiExtension> extensions = KafkaApiExtension.load();

    /** {@code host} and {@code port} are what Metadata advertises: where clients reach this listener. */
    public KafkaApis(Backend backend, String host, int port, PrintStream log) {
        this.backend = backend;
        this.host = host;
        this.port = port;
        this.log = log;
        this.troubles = new RateLimitedLog(log, SocketServer.TROUBLE_LOG_INTERVAL_MS);
    }

    /** The group coordinator behind this listener's group requests (made at its first use). */
    public synchronized ClassicGroups groups() {
        if (groups == null) {
            groups = backend.withOffsets(ClassicGroups.Limits.of(backend), log);
        }
        return groups;
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
            return Optional.of(notAnswered(header));
        }
        ApiKey key = header.requireKey();
        short version = header.apiVersion();
        Optional<byte[]> body = switch (key) {
            case API_VERSIONS -> {
                ApiVersions.parseRequest(in, version);
                yield Optional.of(ApiVersions.response(version, KafkaErrors.NONE));
            }
            case METADATA -> Optional.of(Metadata.response(Metadata.answer(Metadata.parse(in, version), backend,
                    new Metadata.Node(Metadata.NODE_ID, host, port)), version));
            case PRODUCE -> Produce.answer(Produce.parse(in, version), backend)
                    .map(topics -> Produce.response(topics, version));
            case FETCH -> Optional.of(Fetch.response(Fetch.answer(Fetch.parse(in, version), backend,
                    backend.fetchMaxBytes()), version));
            case LIST_OFFSETS -> Optional.of(ListOffsets.response(
                    ListOffsets.answer(ListOffsets.parse(in, version), backend), version));
            case INIT_PRODUCER_ID -> {
                InitProducerIdApi.Request init = InitProducerIdApi.parse(in, version);
                if (init.transactionalId() != null) {
                    for (KafkaApiExtension extension : extensions) {
                        Optional<byte[]> answer = extension.initProducerId(init, version, backend);
                        if (answer.isPresent()) {
                            yield answer;
                        }
                    }
                    notBuilt(header, "transactions (InitProducerId for transactional.id "
                            + LogText.quote(init.transactionalId()) + ")", "TRANSACTIONAL_ID_AUTHORIZATION_FAILED");
                }
                yield Optional.of(InitProducerIdApi.answer(init, backend));
            }
            case CREATE_TOPICS -> Optional.of(CreateTopics.response(
                    CreateTopics.answer(CreateTopics.parse(in, version), backend), version));
            case DELETE_TOPICS -> Optional.of(DeleteTopics.response(
                    DeleteTopics.answer(DeleteTopics.parse(in, version), backend), version));
            case DESCRIBE_CONFIGS -> {
                DescribeConfigs.Request describe = DescribeConfigs.parse(in, version);
                yield Optional.of(DescribeConfigs.response(DescribeConfigs.answer(describe, backend, clusterView()),
                        version, describe.documentation()));
            }
            case ALTER_CONFIGS -> Optional.of(AlterConfigs.response(
                    AlterConfigs.answer(AlterConfigs.parse(in, version), backend, false), key, version));
            case INCREMENTAL_ALTER_CONFIGS -> Optional.of(AlterConfigs.response(
                    AlterConfigs.answer(IncrementalAlterConfigs.parse(in, version), backend, true), key, version));
            case CREATE_PARTITIONS -> Optional.of(CreatePartitions.response(
                    CreatePartitions.answer(CreatePartitions.parse(in, version), backend), version));
            case DELETE_RECORDS -> Optional.of(DeleteRecords.response(
                    DeleteRecords.answer(DeleteRecords.parse(in, version), backend), version));
            case DESCRIBE_LOG_DIRS -> Optional.of(DescribeLogDirs.response(
                    DescribeLogDirs.answer(DescribeLogDirs.parse(in, version), backend), version));
            case FIND_COORDINATOR, JOIN_GROUP, SYNC_GROUP, HEARTBEAT, LEAVE_GROUP, OFFSET_COMMIT, OFFSET_FETCH,
                 DESCRIBE_GROUPS, LIST_GROUPS, DELETE_GROUPS, OFFSET_DELETE -> Optional.of(GroupApis.answer(key, in, version, header.clientId(),
                    groups(), backend, self(), extensions));
            case ADD_PARTITIONS_TO_TXN, ADD_OFFSETS_TO_TXN, END_TXN, TXN_OFFSET_COMMIT -> Optional.of(extensionOf(key)
                    .answer(key, in, version, backend, groups()));
        };
        boolean headerV1 = key.responseHeaderVersion(version) >= 1;
        return body.map(b -> withHeader(header.correlationId(), headerV1, b));
    }

    /** Every extension's own work at {@code nowMs} ({@link KafkaApiExtension#tick}), on the listener's ticker. */
    public void tickExtensions(long nowMs) throws IOException {
        for (KafkaApiExtension extension : extensions) {
            extension.tick(nowMs, backend);
        }
    }

    /** The extension that answers a later chapter's key ({@link RequestHeader#supported} said one does). */
    private KafkaApiExtension extensionOf(ApiKey key) {
        return extensions.stream().filter(e -> e.answers().contains(key)).findFirst()
                .orElseThrow(() -> new CloseConnectionException("kafka: " + key + " is not answered here"));
    }

    /**
     * This broker as clients reach it, as the cluster it answers for lists it ({@link
     * Backend#clusterView}): alone, {@link Metadata#NODE_ID} at the advertised address; a member of
     * chapter 10's cluster, its id and the address it registered (its {@code --advertised-host}), or,
     * before it has read its own registration back, its id at this listener's address.
     */
    private Metadata.Node self() {
        Leadership.ClusterView view = clusterView();
        int id = view.brokerId();
        return view.liveBrokers().stream().filter(b -> b.id() == id && b.kafkaPort() >= 0).findFirst()
                .map(b -> new Metadata.Node(id, b.host(), b.kafkaPort())).orElse(new Metadata.Node(id, host, port));
    }

    /** The cluster this broker answers for, as Metadata lists it (alone: itself at this listener's address). */
    private Leadership.ClusterView clusterView() {
        return backend.clusterView(new Metadata.Node(Metadata.NODE_ID, host, port));
    }

    /**
     * An api key or version outside {@link ApiKey}: ApiVersions' fallback (no line: kafka-clients 4.1.1
     * asks v4 first on every connection, and this is the protocol working), else one rate-limited line
     * and the connection closed, as Kafka does.
     */
    private byte[] notAnswered(RequestHeader header) {
        if (header.key() == ApiKey.API_VERSIONS) {
            return withHeader(header.correlationId(), false,
                    ApiVersions.response((short) 0, KafkaErrors.UNSUPPORTED_VERSION));
        }
        String asked = header.key() != null ? header.key() + " v" + header.apiVersion() + " (this broker answers v"
                + header.key().minVersion + ".." + header.key().maxVersion + ")"
                : "api key " + header.apiKey() + " v" + header.apiVersion() + " (not one this broker answers)";
        troubles.println("kafka-not-answered", "kafka: client " + LogText.quote(header.clientId()) + " asked for "
                + asked + ": closing its connection, as Kafka does", backend == null ? 0 : backend.nowMs());
        throw new CloseConnectionException("kafka: " + asked + " is not answered here");
    }

    /** One rate-limited line: a client asked for something this broker does not build, and what it was answered. */
    private void notBuilt(RequestHeader header, String what, String answer) {
        troubles.println("kafka-not-built", "kafka: client " + LogText.quote(header.clientId()) + " asked for " + what
                + ", which this broker does not build: answered " + answer, backend == null ? 0 : backend.nowMs());
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
        return List.of(ApiKey.answered());
    }
}
