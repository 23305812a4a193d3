package kaenlog.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.workbook.Todo;

/**
 * Kafka's znodes, their paths and their JSON, as Kafka 3.9's {@code kafka/zk/ZkData.scala} writes
 * and reads them, so that Kafka's own decoders read what kaen-log writes. Keys are written in the
 * order a Kafka 3.x broker's znodes show them; a reader must never depend on the order.
 */
public final class ZNodes {
    public static final String BROKER_IDS = "/brokers/ids";
    public static final String TOPICS = "/brokers/topics";
    public static final String CONTROLLER = "/controller";
    public static final String CONTROLLER_EPOCH = "/controller_epoch";
    public static final String TOPIC_CONFIGS = "/config/topics";
    /** Kafka's DeleteTopicsZNode: a child per topic an administrator asked to delete, for the controller. */
    public static final String DELETE_TOPICS = "/admin/delete_topics";
    /** Kafka's ConfigEntityChangeNotificationZNode: a sequential child per config change. */
    public static final String CONFIG_CHANGES = "/config/changes";
    /** Kafka's ConfigEntityChangeNotificationSequenceZNode.createPath: ZooKeeper appends the sequence number. */
    public static final String CONFIG_CHANGE_PREFIX = CONFIG_CHANGES + "/config_change_";

    private ZNodes() {
    }

    public static String brokerPath(int id) {
        return BROKER_IDS + "/" + id;
    }

    public static String topicPath(String topic) {
        return TOPICS + "/" + topic;
    }

    public static String partitionsPath(String topic) {
        return topicPath(topic) + "/partitions";
    }

    public static String statePath(String topic, int partition) {
        return partitionsPath(topic) + "/" + partition + "/state";
    }

    public static String topicConfigPath(String topic) {
        return TOPIC_CONFIGS + "/" + topic;
    }

    public static String deleteTopicPath(String topic) {
        return DELETE_TOPICS + "/" + topic;
    }

    /**
     * {@code /brokers/ids/N}, version 5 (Kafka's BrokerIdZNode): every listener in {@code endpoints}
     * as {@code NAME://host:port}, each name's security protocol in
     * {@code listener_security_protocol_map}, the first listener again as the top-level host and
     * port (for the oldest clients), {@code jmx_port} -1 (none), the registration time as a
     * STRING of milliseconds, and no features.
     */
    public static byte[] encodeBroker(BrokerInfo broker, long nowMs) {
        throw new Todo("ch10 task 1: /brokers/ids/N as Kafka's BrokerIdZNode v5 (ZNodeCodecsTest)");
    }

    /**
     * Reads {@code /brokers/ids/N} back: each port from the listener of that name, never the
     * top-level port. The znode is read as a request is: an endpoint that is not
     * {@code NAME://host:port} with a port of 0 to 65535, or no KAENLOG listener, is a
     * {@link ZNodeFormatException} naming it.
     */
    public static BrokerInfo decodeBroker(int id, byte[] data) {
        throw new Todo("ch10 task 1: read a broker's listeners by name, each checked like a request (ZNodeCodecsTest)");
    }

    /** {@code /controller}, version 2: who won, when (a STRING), and no KRaft migration (-1). */
    public static byte[] encodeController(int brokerId, long nowMs) {
        throw new Todo("ch10 task 1: /controller as Kafka's ControllerZNode v2 (ZNodeCodecsTest)");
    }

    public static int decodeController(byte[] data) {
        throw new Todo("ch10 task 1: the controller's broker id (ZNodeCodecsTest)");
    }

    /** {@code /controller_epoch}: the epoch as plain decimal digits, not JSON. */
    public static byte[] encodeControllerEpoch(int epoch) {
        throw new Todo("ch10 task 1: /controller_epoch is bare digits (ZNodeCodecsTest)");
    }

    public static int decodeControllerEpoch(byte[] data) {
        throw new Todo("ch10 task 1: read the bare digits back (ZNodeCodecsTest)");
    }

    /**
     * {@code /brokers/topics/T}, version 3 (Kafka's TopicZNode): partition number (a string key)
     * to its replicas in assignment order, the first the preferred leader; no reassignment under way.
     */
    public static byte[] encodeTopic(SortedMap<Integer, List<Integer>> assignment) {
        throw new Todo("ch10 task 1: /brokers/topics/T as Kafka's TopicZNode v3 (ZNodeCodecsTest)");
    }

    /** Reads an assignment back, by partition NUMBER (partition 10 comes after partition 9). */
    public static SortedMap<Integer, List<Integer>> decodeTopic(byte[] data) {
        throw new Todo("ch10 task 1: the assignment by partition number (ZNodeCodecsTest)");
    }

    /** {@code .../partitions/P/state}, version 1 (Kafka's TopicPartitionStateZNode). */
    public static byte[] encodeState(PartitionState state) {
        throw new Todo("ch10 task 1: a partition's state as Kafka's TopicPartitionStateZNode (ZNodeCodecsTest)");
    }

    public static PartitionState decodeState(byte[] data) {
        throw new Todo("ch10 task 1: read a partition's state back, every field by its name (ZNodeCodecsTest)");
    }

    /** {@code /config/topics/T} (Kafka's ConfigEntityZNode): every value a string. Given. */
    public static byte[] encodeTopicConfig(Map<String, String> configs) {
        Map<String, Object> json = Json.object();
        json.put("version", 1);
        json.put("config", new TreeMap<>(configs));
        return Json.write(json);
    }

    /**
     * A config change's notification (Kafka's ConfigEntityChangeNotificationSequenceZNode, version 2):
     * the changed entity's path under {@code /config}, {@code topics/T}. Given.
     */
    public static byte[] encodeConfigChange(String entityPath) {
        Map<String, Object> json = Json.object();
        json.put("version", 2);
        json.put("entity_path", entityPath);
        return Json.write(json);
    }

    public static Map<String, String> decodeTopicConfig(byte[] data) {
        Map<String, String> configs = new TreeMap<>();
        Json.objectField(Json.parseObject(data), "config").forEach((k, v) -> configs.put(k, (String) v));
        return configs;
    }
}
