package kaenlog.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.cli.UsageException;

/**
 * Which brokers hold each partition of a new topic (given code): Kafka's rack-unaware
 * {@code AdminUtils.assignReplicasToBrokers}, which {@code kafka-topics.sh --zookeeper} ran through
 * {@code AdminZkClient.createTopic}, or the administrator's own list ({@code --replica-assignment}).
 */
public final class ReplicaAssignment {
    /**
     * Kafka picks the start index and the first shift at random, so that many topics' leaders do not
     * all start on the same broker; kaen-log starts at 0 (Kafka's {@code fixedStartIndex}), so the
     * same brokers always give the same assignment.
     */
    public static final int FIXED_START_INDEX = 0;

    private ReplicaAssignment() {
    }

    /**
     * The assignment of {@code partitions} partitions of {@code replicationFactor} replicas over
     * {@code brokers} (sorted by id, as Kafka's {@code getBrokerMetadatas} sorts them): partition p's
     * first replica (its preferred leader) is broker {@code (p + start) mod n}, round-robin; its other
     * replicas follow it at a shift that grows by one each time the partitions have gone once round
     * the brokers, so that the followers of one broker's partitions spread over the others.
     *
     * @throws IllegalArgumentException with Kafka's text when the factor exceeds the brokers
     */
    public static SortedMap<Integer, List<Integer>> assign(List<Integer> brokers, int partitions, int replicationFactor) {
        return assign(brokers, partitions, replicationFactor, FIXED_START_INDEX, 0);
    }

    /**
     * {@link #assign(List, int, int)} of the partitions numbered from {@code startPartition} on, starting
     * at {@code startIndex} (Kafka's {@code fixedStartIndex}, which is the first shift too): Kafka's
     * {@code AdminZkClient.createNewPartitionsAssignment} places the partitions a topic grows by so,
     * from the position of partition 0's first replica among the live brokers.
     */
    public static SortedMap<Integer, List<Integer>> assign(List<Integer> brokers, int partitions, int replicationFactor,
                                                           int startIndex, int startPartition) {
        if (replicationFactor > brokers.size()) {
            // Kafka's own words (InvalidReplicationFactorException)
            throw new IllegalArgumentException("Replication factor: " + replicationFactor
                    + " larger than available brokers: " + brokers.size() + ".");
        }
        List<Integer> sorted = brokers.stream().sorted().toList();
        int n = sorted.size();
        int shift = startIndex;
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p = startPartition; p < startPartition + partitions; p++) {
            if (p > 0 && p % n == 0) {
                shift++;
            }
            int first = (p + startIndex) % n;
            List<Integer> replicas = new ArrayList<>(List.of(sorted.get(first)));
            for (int j = 0; j < replicationFactor - 1; j++) {
                replicas.add(sorted.get((first + 1 + (shift + j) % (n - 1)) % n));
            }
            assignment.put(p, List.copyOf(replicas));
        }
        return assignment;
    }

    /**
     * {@code --replica-assignment 1:2:3,2:3:1}: partition i's replicas are the i-th list, in order
     * (Kafka's {@code TopicCommand.parseReplicaAssignment}, with its messages).
     */
    public static SortedMap<Integer, List<Integer>> parse(String text) throws UsageException {
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        String[] partitions = text.split(",", -1);
        for (int p = 0; p < partitions.length; p++) {
            List<Integer> replicas = new ArrayList<>();
            Set<Integer> duplicates = new HashSet<>();
            for (String id : partitions[p].split(":", -1)) {
                int broker = brokerId(id.trim(), text);
                if (replicas.contains(broker)) {
                    duplicates.add(broker);
                }
                replicas.add(broker);
            }
            if (!duplicates.isEmpty()) {
                throw new UsageException("Partition replica lists may not contain duplicate entries: "
                        + String.join(",", duplicates.stream().sorted().map(String::valueOf).toList()));
            }
            if (p > 0 && replicas.size() != assignment.get(0).size()) {
                throw new UsageException("Partition " + p + " has different replication factor: " + replicas);
            }
            assignment.put(p, List.copyOf(replicas));
        }
        return assignment;
    }

    private static int brokerId(String id, String text) throws UsageException {
        try {
            int broker = Integer.parseInt(id);
            if (broker >= 0) {
                return broker;
            }
        } catch (NumberFormatException notANumber) {
            // said below
        }
        throw new UsageException("--replica-assignment takes broker ids, e.g. 1:2:3,2:3:1, not '" + text + "'");
    }
}
