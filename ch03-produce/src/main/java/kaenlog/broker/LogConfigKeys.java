package kaenlog.broker;

import java.util.List;
import java.util.Set;
import kaenlog.log.LogConfig;
import kaenlog.wire.RequestEnvelope;

/** Chapter 3's own configs: the storage settings of {@link LogConfig}, per partition. */
public final class LogConfigKeys implements BrokerExtension {
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    /**
     * Partitions the broker holds (on disk or open), checked within a request too. Kafka has no such
     * limit (partitions are created by an operator or Metadata's auto-create); kaen-log's clients create
     * them by producing, so without one a single request could create thousands of directories.
     */
    public static final String MAX_PARTITIONS = "max.partitions";
    public static final long DEFAULT_MAX_PARTITIONS = 10_000;
    /**
     * The operator accepts that a partition's files hold fewer offsets than it wrote (a segment file
     * deleted, a directory restored from an old copy): it opens anyway and goes on past the missing
     * offsets, instead of staying offline. kaen-log's own key ({@code klog serve --accept-data-loss P}
     * sets it for one partition); Kafka, finding a log end below its log start, deletes the segments
     * and starts again at the log start without asking.
     */
    public static final String ACCEPT_DATA_LOSS = "accept.data.loss";
    /**
     * The largest record batch a produce may carry (Kafka's broker config {@code message.max.bytes},
     * default 1048588: 1 MiB plus a batch header's worth); larger is answered MESSAGE_TOO_LARGE, the
     * partition's neighbours in the same request are answered as usual.
     */
    public static final String MESSAGE_MAX_BYTES = "message.max.bytes";
    /** One partition's own {@code message.max.bytes} (Kafka's topic config of this name). */
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final long DEFAULT_MESSAGE_MAX_BYTES = 1_048_588;
    /**
     * The largest request frame (Kafka's {@code socket.request.max.bytes}); a frame announcing more
     * closes its connection with one line, as Kafka's NetworkReceive does (InvalidReceiveException).
     * Kafka's default is 104857600; kaen-log's is {@link BrokerConfig#DEFAULT_SOCKET_REQUEST_MAX_BYTES},
     * because every frame must fit in the request memory pool ({@code queued.max.request.bytes}).
     */
    public static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";

    @Override
    public List<ConfigKey> configKeys() {
        return List.of(
                ConfigKey.whole(SEGMENT_BYTES, LogConfig.DEFAULT_SEGMENT_BYTES, 1024, Integer.MAX_VALUE, ConfigKey.Scope.PARTITION, 3,
                        "roll a new active segment when the next batch would not fit"),
                ConfigKey.whole(INDEX_INTERVAL_BYTES, LogConfig.DEFAULT_INDEX_INTERVAL_BYTES, 0, Integer.MAX_VALUE,
                        ConfigKey.Scope.PARTITION, 3, "bytes of batches between two sparse index entries"),
                ConfigKey.whole(FLUSH_MESSAGES, LogConfig.NEVER, 1, Long.MAX_VALUE, ConfigKey.Scope.PARTITION, 3,
                        "fsync after this many records (Kafka's default: never; the page cache and replicas are"
                                + " the durability)"),
                ConfigKey.whole(FLUSH_MS, LogConfig.NEVER, 0, Long.MAX_VALUE, ConfigKey.Scope.PARTITION, 3,
                        "fsync when the oldest unflushed record is this old (Kafka's default: never)"),
                ConfigKey.whole(MAX_PARTITIONS, DEFAULT_MAX_PARTITIONS, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 3,
                        "partitions the broker holds; a produce that would create one more is answered"
                                + " UNKNOWN_PARTITION and leaves nothing on disk (kaen-log's own limit: Kafka has none)"),
                ConfigKey.choice(ACCEPT_DATA_LOSS, "false", Set.of("true", "false"), ConfigKey.Scope.PARTITION, 3,
                        "true: a partition whose files hold fewer offsets than it wrote opens anyway, past the"
                                + " missing ones (default: it stays offline, its one log line names them)"),
                ConfigKey.whole(MESSAGE_MAX_BYTES, DEFAULT_MESSAGE_MAX_BYTES, 0, Integer.MAX_VALUE, ConfigKey.Scope.BROKER,
                        3, "the largest record batch a produce may carry; larger is answered MESSAGE_TOO_LARGE"),
                ConfigKey.whole(MAX_MESSAGE_BYTES, DEFAULT_MESSAGE_MAX_BYTES, 0, Integer.MAX_VALUE,
                        ConfigKey.Scope.PARTITION, 3, "one partition's message.max.bytes (unset: the broker's)"),
                ConfigKey.whole(SOCKET_REQUEST_MAX_BYTES, BrokerConfig.DEFAULT_SOCKET_REQUEST_MAX_BYTES,
                        RequestEnvelope.HEADER_BYTES, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 3,
                        "the largest request frame; a larger one closes the connection (Kafka's default: 104857600;"
                                + " queued.max.request.bytes must hold one)"));
    }
}
