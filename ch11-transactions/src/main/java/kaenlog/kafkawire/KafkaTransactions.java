package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import kaenlog.txn.AddOffsetsRequest;
import kaenlog.txn.AddPartitionsRequest;
import kaenlog.txn.EndTxnRequest;
import kaenlog.txn.InitProducerIdRequest;
import kaenlog.txn.InitProducerIdResult;
import kaenlog.txn.LocalTransactions;
import kaenlog.txn.TransactionCoordinator;
import kaenlog.txn.TransactionResult;
import kaenlog.txn.TransactionStateExtension;
import kaenlog.txn.TxnConfig;
import kaenlog.txn.TxnError;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * Chapter 11's coordinator on chapter 9's Kafka port: what kafka-clients' transactional producer
 * sends. FindCoordinator with key type TRANSACTION (1) finds this broker; InitProducerId with a
 * transactional id, AddPartitionsToTxn (24), AddOffsetsToTxn (25) and EndTxn (26) go to the
 * {@link TransactionCoordinator}, which decides everything: this class only reads the requests and
 * writes the answers. Layouts: kafka-clients 4.1.1's {@code common/message/*.json}, the classic
 * versions v0..v2 (flexible from v3), which 4.1.1's {@code TransactionManager} uses when the broker
 * advertises no {@code transaction.version} feature: ApiVersions here lists no finalized features,
 * so the client adds each partition with AddPartitionsToTxn itself (KIP-890's implicit add, transaction
 * version 2, is not built).
 *
 * <p>PRODUCER_FENCED (90) is answered INVALID_PRODUCER_EPOCH (47) to the versions that do not know
 * it, as Kafka's {@code KafkaApis} does: InitProducerId below v4 (all this port answers),
 * AddPartitionsToTxn, AddOffsetsToTxn and EndTxn below v2. kafka-clients takes either for
 * ProducerFencedException.
 *
 * <p>The coordinator is made at the first FindCoordinator for a transactional id, as Kafka creates
 * {@code __transaction_state} then ({@link LocalTransactions#start}), or at the first tick of a broker
 * restarted on a directory that holds it ({@link #resumes}). Only a broker alone
 * coordinates transactions: in chapter 10's cluster the coordinator of an id is the leader of its
 * {@code __transaction_state} partition, which is not built, so a cluster member refuses a
 * transactional id as chapter 9 does. TxnOffsetCommit (28) is not built: a producer's
 * {@code sendOffsetsToTransaction} fails there (the client finds no version of it in ApiVersions).
 */
public final class KafkaTransactions implements KafkaApiExtension {
    private TransactionCoordinator coordinator;

    @Override
    public Set<ApiKey> answers() {
        return Set.of(ApiKey.ADD_PARTITIONS_TO_TXN, ApiKey.ADD_OFFSETS_TO_TXN, ApiKey.END_TXN);
    }

    @Override
    public Optional<Coordinator> transactionCoordinator(String transactionalId, Backend backend, Metadata.Node self)
            throws IOException {
        if (backend.broker().leadership().cluster().isPresent()) {
            return Optional.empty();
        }
        coordinator(backend);
        return Optional.of(new Coordinator(KafkaErrors.NONE, self));
    }

    @Override
    public Optional<byte[]> initProducerId(InitProducerIdApi.Request request, short version, Backend backend)
            throws IOException {
        if (backend.broker().leadership().cluster().isPresent()) {
            return Optional.empty();
        }
        InitProducerIdResult result = coordinator(backend).initProducerId(
                new InitProducerIdRequest(request.transactionalId(), request.transactionTimeoutMs()), backend.nowMs());
        return Optional.of(InitProducerIdApi.response(code(result.error(), version < 4), result.producerId(),
                result.producerEpoch()));
    }

    @Override
    public byte[] answer(ApiKey key, KafkaReader in, short version, Backend backend) throws IOException {
        String transactionalId = in.string("transactional_id");
        long producerId = in.int64("producer_id");
        short producerEpoch = in.int16("producer_epoch");
        boolean fencedUnknown = version < 2;
        return switch (key) {
            case ADD_PARTITIONS_TO_TXN -> addPartitions(in, version, backend, transactionalId, producerId, producerEpoch);
            case ADD_OFFSETS_TO_TXN -> {
                String groupId = in.string("group_id");
                in.end("AddOffsetsToTxn v" + version + " request");
                TxnError error = coordinator(backend).addOffsets(new AddOffsetsRequest(transactionalId, producerId,
                        producerEpoch, groupId), backend.nowMs());
                yield new KafkaWriter().int32(0).int16(code(error, fencedUnknown)).toByteArray();
            }
            case END_TXN -> {
                boolean committed = in.bool("committed");
                in.end("EndTxn v" + version + " request");
                TxnError error = coordinator(backend).endTxn(new EndTxnRequest(transactionalId, producerId, producerEpoch,
                        committed ? TransactionResult.COMMIT : TransactionResult.ABORT), backend.nowMs());
                yield new KafkaWriter().int32(0).int16(code(error, fencedUnknown)).toByteArray();
            }
            default -> throw new IllegalArgumentException(key + " is not a transaction request");
        };
    }

    /**
     * AddPartitionsToTxn v0..v2: topics [name · partitions [int32]] → throttle_time_ms · results
     * [name · [partition · error]]. A partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION and
     * the others OPERATION_NOT_ATTEMPTED, nothing added (Kafka's {@code handleAddPartitionsToTxnRequest});
     * else the coordinator's one answer is every partition's.
     */
    private byte[] addPartitions(KafkaReader in, short version, Backend backend, String transactionalId,
                                 long producerId, short producerEpoch) throws IOException {
        Map<String, List<Integer>> topics = new LinkedHashMap<>();
        int topicCount = in.requiredArrayLength("topics");
        for (int t = 0; t < topicCount; t++) {
            String topic = in.string("name");
            List<Integer> partitions = new ArrayList<>();
            int count = in.requiredArrayLength("partitions");
            for (int p = 0; p < count; p++) {
                partitions.add(in.int32("partition"));
            }
            topics.computeIfAbsent(topic, x -> new ArrayList<>()).addAll(partitions);
        }
        in.end("AddPartitionsToTxn v" + version + " request");
        Map<TopicPartition, Short> unknown = new LinkedHashMap<>();
        List<TopicPartition> added = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> topic : topics.entrySet()) {
            for (int partition : topic.getValue()) {
                TopicPartition tp = new TopicPartition(topic.getKey(), partition);
                short nameError = Backend.nameError(topic.getKey(), partition);
                if (nameError != KafkaErrors.NONE) {
                    unknown.put(tp, nameError);
                } else if (backend.existingPartition(Backend.partitionName(topic.getKey(), partition)).isEmpty()) {
                    unknown.put(tp, KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    added.add(tp);
                }
            }
        }
        short error = unknown.isEmpty() ? code(coordinator(backend).addPartitions(new AddPartitionsRequest(
                transactionalId, producerId, producerEpoch, Set.copyOf(added)), backend.nowMs()), version < 2)
                : KafkaErrors.OPERATION_NOT_ATTEMPTED;
        KafkaWriter out = new KafkaWriter().int32(0).arrayLength(topics.size());
        for (Map.Entry<String, List<Integer>> topic : topics.entrySet()) {
            out.nullableString(topic.getKey()).arrayLength(topic.getValue().size());
            for (int partition : topic.getValue()) {
                out.int32(partition).int16(unknown.getOrDefault(new TopicPartition(topic.getKey(), partition), error));
            }
        }
        return out.toByteArray();
    }

    /**
     * The coordinator's own work on the Kafka listener's ticker ({@link TransactionCoordinator#tick}):
     * a transaction older than its timeout is aborted (its producer fenced), markers not written yet
     * are sent again. Nothing before the first transactional producer came, unless the broker's
     * directory holds {@code __transaction_state} ({@link #resumes}).
     */
    @Override
    public void tick(long nowMs, Backend backend) throws IOException {
        TransactionCoordinator current;
        synchronized (this) {
            current = coordinator;
        }
        if (current == null && resumes(backend)) {
            current = coordinator(backend);
        }
        if (current != null) {
            current.tick(nowMs);
        }
    }

    /**
     * A broker restarted on a directory where {@code __transaction_state} exists coordinates again at
     * its first tick, client or none, as a Kafka broker loads each {@code __transaction_state} partition
     * it leads when it starts ({@code BrokerMetadataPublisher.updateCoordinator} calls
     * {@code TransactionCoordinator.onElection}): a transaction left Ongoing by a producer that never
     * comes back is aborted at its timeout, not held open (and every read_committed consumer of its
     * partitions held back at its first offset) until some transactional producer happens to look.
     */
    private static boolean resumes(Backend backend) throws IOException {
        return backend.broker().leadership().cluster().isEmpty()
                && backend.existingPartition(TransactionStateExtension.stateLogPartition(0)).isPresent();
    }

    /** The coordinator's error as this version answers it: PRODUCER_FENCED as INVALID_PRODUCER_EPOCH where unknown. */
    private static short code(TxnError error, boolean fencedUnknown) {
        return error == TxnError.PRODUCER_FENCED && fencedUnknown ? TxnError.INVALID_PRODUCER_EPOCH.code() : error.code();
    }

    /** The coordinator of this broker's transactional ids, made (and {@code __transaction_state} with it) at its first use. */
    private synchronized TransactionCoordinator coordinator(Backend backend) throws IOException {
        if (coordinator == null) {
            coordinator = LocalTransactions.start(backend.broker(), TxnConfig.defaults());
        }
        return coordinator;
    }
}
