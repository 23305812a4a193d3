package kaenlog.cluster;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * What a ZooKeeper watch says changed, as the event the controller or a broker reacts to (given
 * code): Kafka's ZooKeeper-era handlers, each tied to one path ({@code BrokerChangeHandler} on
 * {@code /brokers/ids}, {@code TopicChangeHandler} on {@code /brokers/topics},
 * {@code PartitionModificationsHandler} on {@code /brokers/topics/T}, {@code ControllerChangeHandler}
 * on {@code /controller}), each putting its event on a queue. A reaction reads only what its event
 * is about: the live brokers, the topics, one topic's assignment, one partition's state.
 */
record ZNodeChange(Kind kind, String topic, int partition) {
    /** Which znode changed. */
    enum Kind {
        /** {@code /controller}: created or deleted (Kafka's ControllerChange, Reelect). */
        CONTROLLER,
        /** The children of {@code /brokers/ids}: a broker registered or left (BrokerChange). */
        BROKERS,
        /** The children of {@code /brokers/topics}: a topic created or deleted (TopicChange). */
        TOPICS,
        /** {@code /brokers/topics/T}: its assignment changed, partitions added (PartitionModifications). */
        ASSIGNMENT,
        /** {@code /brokers/topics/T/partitions/P/state}: a leader or an ISR written. */
        STATE,
        /** {@code /config/topics/T}: the topic's configs ({@code min.insync.replicas}). */
        TOPIC_CONFIG,
        /** The children of {@code /admin/delete_topics}: topics to delete (TopicDeletion). */
        DELETE_TOPICS
    }

    private static final Pattern STATE = Pattern.compile(Pattern.quote(ZNodes.TOPICS)
            + "/([^/]+)/partitions/(0|[1-9][0-9]{0,9})/state");
    private static final Pattern TOPIC = Pattern.compile(Pattern.quote(ZNodes.TOPICS) + "/([^/]+)");
    private static final Pattern CONFIG = Pattern.compile(Pattern.quote(ZNodes.TOPIC_CONFIGS) + "/([^/]+)");

    /**
     * The change a watch reports, or empty: a session event (it has no path: the member handles
     * those) or a path no one watches.
     */
    static Optional<ZNodeChange> of(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
            return Optional.empty();
        }
        return of(event.getPath());
    }

    /** The change a watch on {@code path} reports, or empty for a path no one watches. */
    static Optional<ZNodeChange> of(String path) {
        switch (path) {
            case ZNodes.CONTROLLER:
                return Optional.of(new ZNodeChange(Kind.CONTROLLER, null, -1));
            case ZNodes.BROKER_IDS:
                return Optional.of(new ZNodeChange(Kind.BROKERS, null, -1));
            case ZNodes.TOPICS:
                return Optional.of(new ZNodeChange(Kind.TOPICS, null, -1));
            case ZNodes.DELETE_TOPICS:
                return Optional.of(new ZNodeChange(Kind.DELETE_TOPICS, null, -1));
            default:
                break;
        }
        Matcher m = STATE.matcher(path);
        if (m.matches() && Long.parseLong(m.group(2)) <= Integer.MAX_VALUE) {
            return Optional.of(new ZNodeChange(Kind.STATE, m.group(1), Integer.parseInt(m.group(2))));
        }
        m = TOPIC.matcher(path);
        if (m.matches()) {
            return Optional.of(new ZNodeChange(Kind.ASSIGNMENT, m.group(1), -1));
        }
        m = CONFIG.matcher(path);
        if (m.matches()) {
            return Optional.of(new ZNodeChange(Kind.TOPIC_CONFIG, m.group(1), -1));
        }
        return Optional.empty();
    }
}
