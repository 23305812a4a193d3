package kaenlog.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the controller knows of the cluster between two events (given code; Kafka's
 * {@code ControllerContext}): the live brokers with their broker epochs, and every topic's
 * assignment. It is filled when the controller takes over and kept up by each event, so that an
 * event reads only what it is about: a broker change reads the live brokers and finds here the
 * partitions those brokers hold. The partitions' states are not kept: the controller reads one
 * before it writes it, since its leaders write their ISRs too.
 */
final class ControllerContext {
    /** One partition: its topic, its number, its replicas in assignment order. */
    record Assigned(String topic, int partition, List<Integer> replicas) {
    }

    private SortedMap<Integer, Long> liveBrokers = new TreeMap<>();
    private final SortedMap<String, SortedMap<Integer, List<Integer>>> assignments = new TreeMap<>();

    Set<Integer> liveBrokerIds() {
        return liveBrokers.keySet();
    }

    /**
     * Takes {@code live} (broker id to broker epoch) as the live brokers and returns the brokers
     * that came, went, or came back with a new broker epoch since the last ones (Kafka's new, dead
     * and bounced brokers of {@code processBrokerChange}).
     */
    Set<Integer> replaceLiveBrokers(SortedMap<Integer, Long> live) {
        Set<Integer> changed = new HashSet<>();
        for (Map.Entry<Integer, Long> broker : live.entrySet()) {
            if (!broker.getValue().equals(liveBrokers.get(broker.getKey()))) {
                changed.add(broker.getKey());
            }
        }
        for (int gone : liveBrokers.keySet()) {
            if (!live.containsKey(gone)) {
                changed.add(gone);
            }
        }
        liveBrokers = new TreeMap<>(live);
        return changed;
    }

    Set<String> topics() {
        return assignments.keySet();
    }

    SortedMap<Integer, List<Integer>> assignment(String topic) {
        return assignments.getOrDefault(topic, new TreeMap<>());
    }

    void putAssignment(String topic, SortedMap<Integer, List<Integer>> assignment) {
        assignments.put(topic, new TreeMap<>(assignment));
    }

    void removeTopic(String topic) {
        assignments.remove(topic);
    }

    /** Every partition with a replica on one of {@code brokers}, by topic and number. */
    List<Assigned> partitionsOn(Set<Integer> brokers) {
        return allPartitions().stream().filter(p -> p.replicas().stream().anyMatch(brokers::contains)).toList();
    }

    /** Every partition of every topic, by topic and number. */
    List<Assigned> allPartitions() {
        List<Assigned> all = new ArrayList<>();
        assignments.keySet().forEach(topic -> all.addAll(partitions(topic)));
        return all;
    }

    /** A topic's partitions, by number. */
    List<Assigned> partitions(String topic) {
        List<Assigned> all = new ArrayList<>();
        assignment(topic).forEach((partition, replicas) -> all.add(new Assigned(topic, partition, replicas)));
        return all;
    }
}
