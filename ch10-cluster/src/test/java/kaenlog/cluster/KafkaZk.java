package kaenlog.cluster;

import static kaenlog.testkit.KafkaFixtures.schedulerThatRunsNothing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import kafka.api.LeaderAndIsr;
import kafka.cluster.EndPoint;
import kafka.controller.LeaderIsrAndControllerEpoch;
import kafka.controller.ReplicaAssignment;
import kafka.zk.BrokerIdZNode;
import kafka.zk.TopicPartitionStateZNode;
import kafka.zk.TopicZNode;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.feature.Features;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.LeaderRecoveryState;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.zookeeper.data.Stat;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Kafka 3.9.1's ZooKeeper codecs ({@code kafka.zk}, the last Kafka with ZooKeeper mode), called from
 * Java as the judges of this chapter's properties, and the generators of what the cluster keeps in
 * ZooKeeper. Each method is one call of Kafka's, its Scala types turned into Java's.
 */
final class KafkaZk {
    static final String TOPIC = "orders";

    private KafkaZk() {
    }

    /** Host names as a broker advertises them: letters, digits, dots and dashes (and IPv4 addresses). */
    static Gen<String> hosts() {
        Gen<String> name = Gens.lists(Gens.elements('a', 'b', 'k', 'z', 'A', 'Z', '0', '9', '.', '-', '_'), 1, 12)
                .map(chars -> {
                    StringBuilder s = new StringBuilder();
                    chars.forEach(s::append);
                    return s.toString();
                });
        Gen<String> ipv4 = Gens.listOf(Gens.constant(4), i -> Gens.ints(0, 255))
                .map(parts -> String.join(".", parts.stream().map(String::valueOf).toList()));
        return Gens.oneOf(Gens.elements("h", "127.0.0.1", "broker-1.example.com"), name, ipv4);
    }

    /** Ports as a listener has them: 0 to 65535, the edges often. */
    static Gen<Integer> ports() {
        return Gens.ints(0, 65_535);
    }

    /** A broker's registration: any id, any host, each optional listener there or not. */
    static Gen<BrokerInfo> brokers() {
        Gen<Integer> optionalPort = Gens.oneOf(Gens.constant(BrokerInfo.NO_PORT), ports());
        return c -> new BrokerInfo(Gens.ints(0, Integer.MAX_VALUE).generate(c), hosts().generate(c), ports().generate(c),
                optionalPort.generate(c), optionalPort.generate(c));
    }

    /** The endpoints a broker registers, as Kafka's {@code EndPoint.connectionString} writes each. */
    static List<String> endpoints(BrokerInfo broker) {
        List<String> endpoints = new ArrayList<>();
        endpoints.add(BrokerInfo.KAENLOG_LISTENER + "://" + broker.host() + ":" + broker.port());
        if (broker.kafkaPort() != BrokerInfo.NO_PORT) {
            endpoints.add(BrokerInfo.KAFKA_LISTENER + "://" + broker.host() + ":" + broker.kafkaPort());
        }
        if (broker.replicationPort() != BrokerInfo.NO_PORT) {
            endpoints.add(BrokerInfo.REPLICATION_LISTENER + "://" + broker.host() + ":" + broker.replicationPort());
        }
        return endpoints;
    }

    /** {@code BrokerIdZNode.decode}: the endpoints Kafka reads from a registration, sorted. */
    static List<String> kafkaReadsEndpoints(int id, byte[] data) {
        kafka.zk.BrokerInfo info = BrokerIdZNode.decode(id, data);
        return CollectionConverters.asJava(info.broker().endPoints()).stream().map(EndPoint::connectionString).sorted()
                .toList();
    }

    /**
     * {@code BrokerIdZNode.encode}, version 5: {@code endpoints} (listener name to port, on
     * {@code host}, in this order), and a top-level host and port of Kafka's choice (its
     * {@code registerBroker} passes the PLAINTEXT listener's, or null and -1).
     */
    static byte[] kafkaWritesBroker(String host, Map<String, Integer> endpoints, String topHost, int topPort) {
        List<EndPoint> list = new ArrayList<>();
        endpoints.forEach((listener, port) -> list.add(new EndPoint(host, port, new ListenerName(listener),
                SecurityProtocol.PLAINTEXT)));
        return BrokerIdZNode.encode(5, topHost, topPort, CollectionConverters.asScala(list).toSeq(), -1, Option.empty(),
                Features.emptySupportedFeatures());
    }

    /** {@code TopicZNode.encode}: an assignment as Kafka 3.9 writes it, no topic id. */
    static byte[] kafkaWritesTopic(SortedMap<Integer, List<Integer>> assignment) {
        Map<TopicPartition, ReplicaAssignment> byPartition = new LinkedHashMap<>();
        assignment.forEach((p, replicas) -> byPartition.put(new TopicPartition(TOPIC, p),
                ReplicaAssignment.apply(CollectionConverters.asScala(new ArrayList<Object>(replicas)).toSeq())));
        return TopicZNode.encode(Option.empty(), CollectionConverters.asScala(byPartition));
    }

    /** {@code TopicZNode.decode}: the replicas of each partition, by partition number. */
    static SortedMap<Integer, List<Integer>> kafkaReadsTopic(byte[] data) {
        SortedMap<Integer, List<Integer>> assignment = new TreeMap<>();
        CollectionConverters.asJava(TopicZNode.decode(TOPIC, data).assignment()).forEach((tp, a) ->
                assignment.put(tp.partition(), ints(a.replicas())));
        return assignment;
    }

    /** {@code TopicPartitionStateZNode.encode} of a state (its partition epoch is not in the JSON). */
    static byte[] kafkaWritesState(PartitionState state) {
        LeaderAndIsr leaderAndIsr = LeaderAndIsr.apply(state.leader(), state.leaderEpoch(),
                CollectionConverters.asScala(new ArrayList<Object>(state.isr())).toList(), LeaderRecoveryState.RECOVERED,
                0);
        return TopicPartitionStateZNode.encode(LeaderIsrAndControllerEpoch.apply(leaderAndIsr, state.controllerEpoch()));
    }

    /** What Kafka reads from a state znode: the state, and its partition epoch (the znode's version). */
    record KafkaState(PartitionState state, int partitionEpoch) {
    }

    /** {@code TopicPartitionStateZNode.decode(data, stat)}. */
    static KafkaState kafkaReadsState(byte[] data, Stat stat) {
        LeaderIsrAndControllerEpoch read = TopicPartitionStateZNode.decode(data, stat).get();
        LeaderAndIsr l = read.leaderAndIsr();
        return new KafkaState(new PartitionState(l.leader(), l.leaderEpoch(), ints(l.isr()), read.controllerEpoch()),
                l.partitionEpoch());
    }

    static Stat version(int zkVersion) {
        Stat stat = new Stat();
        stat.setVersion(zkVersion);
        return stat;
    }

    private static List<Integer> ints(scala.collection.Iterable<Object> values) {
        List<Integer> ints = new ArrayList<>();
        CollectionConverters.asJava(values).forEach(v -> ints.add((Integer) v));
        return ints;
    }

    /**
     * kafka-storage 4.1.1's {@code LeaderEpochFileCache} holding {@code entries} (epoch, start offset),
     * as a broker's cache holds them after a restart: read by its constructor from a checkpoint file in
     * {@code dir}, written here once in Kafka's format (version 0, the count, "epoch offset" lines).
     * The oracle only answers {@code endOffsetFor}, which writes nothing, so no fsync per entry.
     */
    static LeaderEpochFileCache epochCache(Path dir, List<kaenlog.replication.LeaderEpochCache.EpochEntry> entries) {
        try {
            Path file = dir.resolve("leader-epoch-checkpoint");
            StringBuilder text = new StringBuilder("0\n" + entries.size() + "\n");
            entries.forEach(e -> text.append(e.epoch()).append(' ').append(e.startOffset()).append('\n'));
            Files.writeString(file, text);
            return new LeaderEpochFileCache(new TopicPartition(TOPIC, 0),
                    new LeaderEpochCheckpointFile(file.toFile(), new LogDirFailureChannel(1)),
                    schedulerThatRunsNothing(Scheduler.class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
