package kaenlog.txn;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import kafka.coordinator.transaction.CoordinatorEpochAndTxnMetadata;
import kafka.coordinator.transaction.InitProducerIdResult;
import kafka.coordinator.transaction.TransactionConfig;
import kafka.coordinator.transaction.TransactionCoordinator;
import kafka.coordinator.transaction.TransactionMarkerChannelManager;
import kafka.coordinator.transaction.TransactionMetadata;
import kafka.coordinator.transaction.TransactionStateManager;
import kafka.server.KafkaConfig;
import kaenlog.testkit.KafkaFixtures.ManualTime;
import kaenlog.wire.PartitionNames;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.ProducerIdAndEpoch;
import org.apache.kafka.coordinator.transaction.ProducerIdManager;
import org.apache.kafka.coordinator.transaction.TransactionLogConfig;
import org.apache.kafka.coordinator.transaction.TransactionStateManagerConfig;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.common.TransactionVersion;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;

/**
 * The oracle: Kafka 4.1.1's own {@code TransactionCoordinator}, running in this JVM with the
 * transaction version of a cluster that never enabled KIP-890's (TV_0: what kaen-log builds). Its
 * decisions are its own code; only its two ways out are stubbed: its log append (each transition is
 * recorded and completed, as a successful append completes it) and its marker channel (markers held
 * until delivered, then the Complete state written as Kafka's channel writes it).
 */
final class KafkaCoordinator {
    /** A transition Kafka wrote, as our codec would read it back: the id and its state. */
    record Written(String transactionalId, TxnTransit transit) {
    }

    private final ManualTime time = new ManualTime(0);
    private long nextProducerId;
    final List<Written> written = new ArrayList<>();
    final List<TxnMarker> sent = new ArrayList<>();
    private final List<Held> held = new ArrayList<>();
    private final Map<Integer, ConcurrentHashMap<String, TransactionMetadata>> cache = new TreeMap<>();
    private final TransactionStateManager manager;
    private final TransactionCoordinator coordinator;

    private record Held(int coordinatorEpoch, TransactionMetadata metadata, TxnTransitMetadata complete) {
    }

    KafkaCoordinator(long firstProducerId) {
        this.nextProducerId = firstProducerId;
        TransactionConfig config = new TransactionConfig(TransactionStateManagerConfig.TRANSACTIONAL_ID_EXPIRATION_MS_DEFAULT,
                TransactionStateManagerConfig.TRANSACTIONS_MAX_TIMEOUT_MS_DEFAULT,
                TransactionLogConfig.TRANSACTIONS_TOPIC_PARTITIONS_DEFAULT,
                TransactionLogConfig.TRANSACTIONS_TOPIC_REPLICATION_FACTOR_DEFAULT,
                TransactionLogConfig.TRANSACTIONS_TOPIC_SEGMENT_BYTES_DEFAULT,
                TransactionLogConfig.TRANSACTIONS_LOAD_BUFFER_SIZE_DEFAULT,
                TransactionLogConfig.TRANSACTIONS_TOPIC_MIN_ISR_DEFAULT,
                TransactionStateManagerConfig.TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_DEFAULT,
                TransactionStateManagerConfig.TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_DEFAULT,
                false, 30_000);
        manager = new TransactionStateManager(0, null, null, null, config, time, new Metrics()) {
            @Override
            public TransactionVersion transactionVersionLevel() {
                return TransactionVersion.TV_0;
            }

            @Override
            public void appendTransactionToLog(String id, int coordinatorEpoch, TxnTransitMetadata transit,
                                               scala.Function1<Errors, BoxedUnit> callback,
                                               scala.Function1<Errors, Object> retryOnError, RequestLocal requestLocal) {
                written.add(new Written(id, ours(transit)));
                CoordinatorEpochAndTxnMetadata entry = getTransactionState(id).toOption().get().get();
                entry.transactionMetadata().completeTransitionTo(transit);
                callback.apply(Errors.NONE);
            }
        };
        manager.startup(() -> TransactionLogConfig.TRANSACTIONS_TOPIC_PARTITIONS_DEFAULT, false);
        for (int p = 0; p < TransactionLogConfig.TRANSACTIONS_TOPIC_PARTITIONS_DEFAULT; p++) {
            ConcurrentHashMap<String, TransactionMetadata> partition = new ConcurrentHashMap<>();
            cache.put(p, partition);
            manager.addLoadedTransactionsToCache(p, 0, partition);
        }
        TransactionMarkerChannelManager channel = new TransactionMarkerChannelManager(kafkaConfig(), null, null, manager,
                time) {
            @Override
            public void addTxnMarkersToSend(int coordinatorEpoch, org.apache.kafka.common.requests.TransactionResult result,
                                            TransactionMetadata metadata, TxnTransitMetadata complete) {
                sent.add(new TxnMarker(metadata.transactionalId(), metadata.producerId(), metadata.producerEpoch(),
                        coordinatorEpoch, TransactionResult.valueOf(result.name()), ours(metadata.topicPartitions())));
                held.add(new Held(coordinatorEpoch, metadata, complete));
            }
        };
        ProducerIdManager ids = () -> nextProducerId++;
        coordinator = new TransactionCoordinator(config, null, () -> ids, manager, channel, time, new LogContext());
    }

    /** The least a KafkaConfig needs: the marker channel reads its broker id and listener from it. */
    private static KafkaConfig kafkaConfig() {
        Properties props = new Properties();
        props.put("process.roles", "broker");
        props.put("node.id", "1");
        props.put("controller.quorum.bootstrap.servers", "localhost:9093");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", "PLAINTEXT://localhost:9092");
        return KafkaConfig.fromProps(props);
    }

    /** Puts a transactional id in a state, as a load from the log would (before any request). */
    void seed(String id, TxnTransit state, Optional<TransactionState> pending, boolean failedEpochFence) {
        TransactionMetadata metadata = new TransactionMetadata(id, state.producerId(), state.prevProducerId(),
                TxnTransit.NO_PRODUCER_ID, state.producerEpoch(), state.lastProducerEpoch(), state.txnTimeoutMs(),
                kafkas(state.state()), CollectionConverters.asScala(new HashSet<>(kafkas(state.partitions()))),
                state.txnStartTimestamp(), state.txnLastUpdateTimestamp(), TransactionVersion.TV_0);
        pending.ifPresent(p -> metadata.pendingState_$eq(Option.apply(kafkas(p))));
        metadata.hasFailedEpochFence_$eq(failedEpochFence);
        cache.get(coordinator.partitionFor(id)).put(id, metadata);
    }

    /** InitProducerId: Kafka's answer; an exception Kafka throws is answered UNKNOWN_SERVER_ERROR, as its KafkaApis answers it. */
    kaenlog.txn.InitProducerIdResult init(InitProducerIdRequest request, long nowMs) {
        time.set(nowMs);
        List<kaenlog.txn.InitProducerIdResult> answer = new ArrayList<>();
        Option<ProducerIdAndEpoch> expected = request.expected().isPresent()
                ? Option.apply(new ProducerIdAndEpoch(request.expected().get().producerId(), request.expected().get().epoch()))
                : Option.empty();
        try {
            coordinator.handleInitProducerId(request.transactionalId(), request.transactionTimeoutMs(), false, false,
                    expected, (InitProducerIdResult r) -> {
                        answer.add(new kaenlog.txn.InitProducerIdResult(TxnError.valueOf(r.error().name()), r.producerId(),
                                r.producerEpoch()));
                        return BoxedUnit.UNIT;
                    }, RequestLocal.noCaching());
        } catch (IllegalStateException | IllegalArgumentException e) {
            return kaenlog.txn.InitProducerIdResult.failed(TxnError.UNKNOWN_SERVER_ERROR);
        }
        return answer.get(0);
    }

    TxnError add(AddPartitionsRequest request, long nowMs) {
        time.set(nowMs);
        List<TxnError> answer = new ArrayList<>();
        try {
            coordinator.handleAddPartitionsToTransaction(request.transactionalId(), request.producerId(),
                request.producerEpoch(), CollectionConverters.asScala(new HashSet<>(kafkas(request.partitions()))),
                (Errors e) -> {
                    answer.add(TxnError.valueOf(e.name()));
                    return BoxedUnit.UNIT;
                }, TransactionVersion.TV_0, RequestLocal.noCaching());
        } catch (IllegalStateException | IllegalArgumentException e) {
            return TxnError.UNKNOWN_SERVER_ERROR;
        }
        return answer.get(0);
    }

    /** Kafka's KafkaApis: the group's __consumer_offsets partition, then the coordinator's AddPartitions. */
    TxnError addOffsets(AddOffsetsRequest request, long nowMs) {
        return add(new AddPartitionsRequest(request.transactionalId(), request.producerId(), request.producerEpoch(),
                Set.of(kaenlog.txn.TransactionCoordinator.kafkaOffsetsPartition(request.groupId()))), nowMs);
    }

    TxnError end(EndTxnRequest request, long nowMs) {
        time.set(nowMs);
        List<TxnError> answer = new ArrayList<>();
        try {
            coordinator.handleEndTransaction(request.transactionalId(), request.producerId(), request.producerEpoch(),
                org.apache.kafka.common.requests.TransactionResult.valueOf(request.result().name()), TransactionVersion.TV_0,
                (Errors e, Object id, Object epoch) -> {
                    answer.add(TxnError.valueOf(e.name()));
                    return BoxedUnit.UNIT;
                }, RequestLocal.noCaching());
        } catch (IllegalStateException | IllegalArgumentException e) {
            return TxnError.UNKNOWN_SERVER_ERROR;
        }
        return answer.get(0);
    }

    /** Every held marker reaches its partitions; then the Complete state is written, as Kafka's channel does. */
    void deliverMarkers(long nowMs) {
        time.set(nowMs);
        List<Held> due = new ArrayList<>(held);
        held.clear();
        for (Held h : due) {
            for (TopicPartition partition : CollectionConverters.asJava(h.metadata().topicPartitions().toList())) {
                h.metadata().removePartition(partition);
            }
            manager.appendTransactionToLog(h.metadata().transactionalId(), h.coordinatorEpoch(), h.complete(),
                    e -> BoxedUnit.UNIT, e -> false, RequestLocal.noCaching());
        }
    }

    int heldCount() {
        return held.size();
    }

    /** Kafka's scheduled abort of the transactions open past their timeout. */
    void abortTimedOutTransactions(long nowMs) {
        time.set(nowMs);
        coordinator.abortTimedOutTransactions(txn -> (e, id, epoch) -> BoxedUnit.UNIT);
    }

    int partitionFor(String id) {
        return coordinator.partitionFor(id);
    }

    /** The id's state in Kafka's coordinator, as ours keeps it. */
    Optional<TxnTransit> state(String id) {
        TransactionMetadata m = cache.get(coordinator.partitionFor(id)).get(id);
        if (m == null) {
            return Optional.empty();
        }
        return Optional.of(new TxnTransit(m.producerId(), m.prevProducerId(), m.producerEpoch(), m.lastProducerEpoch(),
                m.txnTimeoutMs(), ours(m.state()), ours(m.topicPartitions()), m.txnStartTimestamp(),
                m.txnLastUpdateTimestamp()));
    }

    Optional<TransactionState> pendingState(String id) {
        TransactionMetadata m = cache.get(coordinator.partitionFor(id)).get(id);
        return m == null || m.pendingState().isEmpty() ? Optional.empty() : Optional.of(ours(m.pendingState().get()));
    }

    static TxnTransit ours(TxnTransitMetadata t) {
        return new TxnTransit(t.producerId(), t.prevProducerId(), t.producerEpoch(), t.lastProducerEpoch(), t.txnTimeoutMs(),
                ours(t.txnState()), ours(t.topicPartitions()), t.txnStartTimestamp(), t.txnLastUpdateTimestamp());
    }

    static TransactionState ours(org.apache.kafka.coordinator.transaction.TransactionState state) {
        return TransactionState.valueOf(state.name());
    }

    static org.apache.kafka.coordinator.transaction.TransactionState kafkas(TransactionState state) {
        return org.apache.kafka.coordinator.transaction.TransactionState.valueOf(state.name());
    }

    static java.util.SortedSet<PartitionNames.TopicPartition> ours(Set<TopicPartition> partitions) {
        List<PartitionNames.TopicPartition> list = new ArrayList<>();
        partitions.forEach(p -> list.add(new PartitionNames.TopicPartition(p.topic(), p.partition())));
        return TxnTransit.sorted(list);
    }

    static java.util.SortedSet<PartitionNames.TopicPartition> ours(scala.collection.Set<TopicPartition> partitions) {
        return ours(CollectionConverters.asJava(partitions));
    }

    static Set<TopicPartition> kafkas(Set<PartitionNames.TopicPartition> partitions) {
        Set<TopicPartition> set = new HashSet<>();
        partitions.forEach(p -> set.add(new TopicPartition(p.topic(), p.partition())));
        return set;
    }
}
