package kaenlog.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

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
        // BEGIN-SOLUTION ch10 task 1: /brokers/ids/N as Kafka's BrokerIdZNode v5 (ZNodeCodecsTest)
        List<String> endpoints = new ArrayList<>();
        Map<String, Object> protocols = Json.object();
        if (broker.kafkaPort() != BrokerInfo.NO_PORT) {
            endpoints.add(BrokerInfo.KAFKA_LISTENER + "://" + broker.host() + ":" + broker.kafkaPort());
            protocols.put(BrokerInfo.KAFKA_LISTENER, "PLAINTEXT");
        }
        endpoints.add(BrokerInfo.KAENLOG_LISTENER + "://" + broker.host() + ":" + broker.port());
        protocols.put(BrokerInfo.KAENLOG_LISTENER, "PLAINTEXT");
        if (broker.replicationPort() != BrokerInfo.NO_PORT) {
            endpoints.add(BrokerInfo.REPLICATION_LISTENER + "://" + broker.host() + ":" + broker.replicationPort());
            protocols.put(BrokerInfo.REPLICATION_LISTENER, "PLAINTEXT");
        }
        Map<String, Object> json = Json.object();
        json.put("features", Json.object());
        json.put("listener_security_protocol_map", protocols);
        json.put("endpoints", endpoints);
        json.put("jmx_port", -1);
        json.put("port", broker.kafkaPort() != BrokerInfo.NO_PORT ? broker.kafkaPort() : broker.port());
        json.put("host", broker.host());
        json.put("version", 5);
        json.put("timestamp", Long.toString(nowMs));
        return Json.write(json);
        // END-SOLUTION
    }

    /**
     * Reads {@code /brokers/ids/N} back: each port from the listener of that name, never the
     * top-level port. The znode is read as a request is: an endpoint that is not
     * {@code NAME://host:port} with a port of 0 to 65535, or no KAENLOG listener, is a
     * {@link ZNodeFormatException} naming it.
     */
    public static BrokerInfo decodeBroker(int id, byte[] data) {
        // BEGIN-SOLUTION ch10 task 1: read a broker's listeners by name, each checked like a request (ZNodeCodecsTest)
        Map<String, Object> json = Json.parseObject(data);
        String host = null;
        int port = BrokerInfo.NO_PORT;
        int kafkaPort = BrokerInfo.NO_PORT;
        int replicationPort = BrokerInfo.NO_PORT;
        for (String endpoint : Json.stringList(json.get("endpoints"), "endpoints")) {
            int scheme = endpoint.indexOf("://");
            int colon = endpoint.lastIndexOf(':');
            if (scheme <= 0 || colon <= scheme + "://".length()) {
                throw new ZNodeFormatException("endpoint " + Json.quote(endpoint) + " of broker " + id
                        + " is not NAME://host:port");
            }
            String digits = endpoint.substring(colon + 1);
            if (!digits.matches("[0-9]{1,5}") || Integer.parseInt(digits) > 65_535) {
                throw new ZNodeFormatException("endpoint " + Json.quote(endpoint) + " of broker " + id
                        + " has no port from 0 to 65535");
            }
            String name = endpoint.substring(0, scheme);
            int listenerPort = Integer.parseInt(digits);
            if (name.equals(BrokerInfo.KAENLOG_LISTENER)) {
                host = endpoint.substring(scheme + "://".length(), colon);
                port = listenerPort;
            } else if (name.equals(BrokerInfo.KAFKA_LISTENER)) {
                kafkaPort = listenerPort;
            } else if (name.equals(BrokerInfo.REPLICATION_LISTENER)) {
                replicationPort = listenerPort;
            }
        }
        if (host == null) {
            throw new ZNodeFormatException("broker " + id + " registered no " + BrokerInfo.KAENLOG_LISTENER
                    + " listener: " + Json.quote(new String(data, StandardCharsets.UTF_8)));
        }
        return new BrokerInfo(id, host, port, kafkaPort, replicationPort);
        // END-SOLUTION
    }

    /** {@code /controller}, version 2: who won, when (a STRING), and no KRaft migration (-1). */
    public static byte[] encodeController(int brokerId, long nowMs) {
        // BEGIN-SOLUTION ch10 task 1: /controller as Kafka's ControllerZNode v2 (ZNodeCodecsTest)
        Map<String, Object> json = Json.object();
        json.put("version", 2);
        json.put("brokerid", brokerId);
        json.put("timestamp", Long.toString(nowMs));
        json.put("kraftControllerEpoch", -1);
        return Json.write(json);
        // END-SOLUTION
    }

    public static int decodeController(byte[] data) {
        // BEGIN-SOLUTION ch10 task 1: the controller's broker id (ZNodeCodecsTest)
        return Json.intField(Json.parseObject(data), "brokerid");
        // END-SOLUTION
    }

    /** {@code /controller_epoch}: the epoch as plain decimal digits, not JSON. */
    public static byte[] encodeControllerEpoch(int epoch) {
        // BEGIN-SOLUTION ch10 task 1: /controller_epoch is bare digits (ZNodeCodecsTest)
        return Integer.toString(epoch).getBytes(StandardCharsets.UTF_8);
        // END-SOLUTION
    }

    public static int decodeControllerEpoch(byte[] data) {
        // BEGIN-SOLUTION ch10 task 1: read the bare digits back (ZNodeCodecsTest)
        return Integer.parseInt(new String(data, StandardCharsets.UTF_8).trim());
        // END-SOLUTION
    }

    /**
     * {@code /brokers/topics/T}, version 3 (Kafka's TopicZNode): partition number (a string key)
     * to its replicas in assignment order, the first the preferred leader; no reassignment under way.
     */
    public static byte[] encodeTopic(SortedMap<Integer, List<Integer>> assignment) {
        // BEGIN-SOLUTION ch10 task 1: /brokers/topics/T as Kafka's TopicZNode v3 (ZNodeCodecsTest)
        Map<String, Object> partitions = Json.object();
        for (Map.Entry<Integer, List<Integer>> e : assignment.entrySet()) {
            partitions.put(Integer.toString(e.getKey()), e.getValue());
        }
        Map<String, Object> json = Json.object();
        json.put("removing_replicas", Json.object());
        json.put("partitions", partitions);
        json.put("adding_replicas", Json.object());
        json.put("version", 3);
        return Json.write(json);
        // END-SOLUTION
    }

    /** Reads an assignment back, by partition NUMBER (partition 10 comes after partition 9). */
    public static SortedMap<Integer, List<Integer>> decodeTopic(byte[] data) {
        // BEGIN-SOLUTION ch10 task 1: the assignment by partition number (ZNodeCodecsTest)
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        for (Map.Entry<String, Object> e : Json.objectField(Json.parseObject(data), "partitions").entrySet()) {
            assignment.put(Integer.parseInt(e.getKey()), Json.intList(e.getValue(), "partition " + e.getKey()));
        }
        return assignment;
        // END-SOLUTION
    }

    /** {@code .../partitions/P/state}, version 1 (Kafka's TopicPartitionStateZNode). */
    public static byte[] encodeState(PartitionState state) {
        // BEGIN-SOLUTION ch10 task 1: a partition's state as Kafka's TopicPartitionStateZNode (ZNodeCodecsTest)
        Map<String, Object> json = Json.object();
        json.put("controller_epoch", state.controllerEpoch());
        json.put("leader", state.leader());
        json.put("version", 1);
        json.put("leader_epoch", state.leaderEpoch());
        json.put("isr", state.isr());
        return Json.write(json);
        // END-SOLUTION
    }

    public static PartitionState decodeState(byte[] data) {
        // BEGIN-SOLUTION ch10 task 1: read a partition's state back, every field by its name (ZNodeCodecsTest)
        Map<String, Object> json = Json.parseObject(data);
        return new PartitionState(Json.intField(json, "leader"), Json.intField(json, "leader_epoch"),
                Json.intList(json.get("isr"), "isr"), Json.intField(json, "controller_epoch"));
        // END-SOLUTION
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
