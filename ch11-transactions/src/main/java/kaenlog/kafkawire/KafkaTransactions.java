package kaenlog.kafkawire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import kaenlog.broker.ProduceRefusedException;
import kaenlog.coordinator.GroupCoordinator;
import kaenlog.coordinator.TransactionalOffsets;
import kaenlog.groups.PartitionOffset;
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
import kaenlog.txn.TxnPlacement;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * Chapter 11's coordinator on chapter 9's Kafka port: what kafka-clients' transactional producer
 * sends. FindCoordinator with key type TRANSACTION (1) finds this broker; InitProducerId with a
 * transactional id, AddPartitionsToTxn (24), AddOffsetsToTxn (25) and EndTxn (26) go to the
 * {@link TransactionCoordinator}, which decides everything: this class only reads the requests and
 * writes the answers. TxnOffsetCommit (28) goes to the group coordinator: the group's verdict on the
 * member ({@link ClassicGroups#validateTxnCommit}), then the offsets, pending until the marker
 * ({@link TransactionalOffsets}). Layouts: kafka-clients 4.1.1's {@code common/message/*.json}, the classic
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
 * restarted on a directory that holds it ({@link #resumes}). In chapter 10's cluster the coordinator of
 * an id is the leader of its {@code __transaction_state} partition ({@link TxnPlacement}, placed by
 * {@code kaenlog.cluster.ClusterTransactionCoordination}): FindCoordinator names that broker, and any
 * other answers the id's requests NOT_COORDINATOR (COORDINATOR_LOAD_IN_PROGRESS while it loads the
 * partition). TxnOffsetCommit (28, v0..v3) writes a transaction's offsets
 * to chapter 6's coordinator, pending until the transaction's marker ({@link TransactionalOffsets}).
 */
public final class KafkaTransactions implements KafkaApiExtension {
    private TransactionCoordinator coordinator;

    @Override
    public Set<ApiKey> answers() {
        return Set.of(ApiKey.ADD_PARTITIONS_TO_TXN, ApiKey.ADD_OFFSETS_TO_TXN, ApiKey.END_TXN, ApiKey.TXN_OFFSET_COMMIT);
    }

    /**
     * A broker alone coordinates every id; a cluster member names the live leader of the id's
     * {@code __transaction_state} partition (COORDINATOR_NOT_AVAILABLE while there is none, the topic
     * created if it is missing, or before the member has joined).
     */
    @Override
    public Optional<Coordinator> transactionCoordinator(String transactionalId, Backend backend, Metadata.Node self)
            throws IOException {
        if (inCluster(backend)) {
            int id = placement(backend).map(p -> p.coordinatorId(transactionalId)).orElse(-1);
            return Optional.of(backend.liveNode(id, self).map(node -> new Coordinator(KafkaErrors.NONE, node))
                    .orElse(new Coordinator(KafkaErrors.COORDINATOR_NOT_AVAILABLE, null)));
        }
        coordinator(backend);
        return Optional.of(new Coordinator(KafkaErrors.NONE, self));
    }

    @Override
    public Optional<byte[]> initProducerId(InitProducerIdApi.Request request, short version, Backend backend)
            throws IOException {
        TxnError refused = refusal(backend, request.transactionalId());
        InitProducerIdResult result = refused != TxnError.NONE ? InitProducerIdResult.failed(refused)
                : coordinator(backend).initProducerId(
                new InitProducerIdRequest(request.transactionalId(), request.transactionTimeoutMs()), backend.nowMs());
        return Optional.of(InitProducerIdApi.response(code(result.error(), version < 4), result.producerId(),
                result.producerEpoch()));
    }

    private static boolean inCluster(Backend backend) {
        return backend.broker().leadership().cluster().isPresent();
    }

    /** A cluster member's placement of its transactional ids, once it has joined. */
    private static Optional<TxnPlacement> placement(Backend backend) {
        return TransactionStateExtension.of(backend.broker()).placement();
    }

    /**
     * Why this broker does not answer {@code transactionalId}'s requests now, or NONE: a broker alone
     * answers every id; a cluster member only those of the partitions it leads and has loaded.
     */
    private static TxnError refusal(Backend backend, String transactionalId) {
        if (!inCluster(backend)) {
            return TxnError.NONE;
        }
        return placement(backend).map(p -> p.status(transactionalId)).orElse(TxnError.NOT_COORDINATOR);
    }

    /** The coordinator's answer to one request of {@code transactionalId}, or why this broker gives none. */
    private TxnError decide(Backend backend, String transactionalId, Function<TransactionCoordinator, TxnError> request)
            throws IOException {
        TxnError refused = refusal(backend, transactionalId);
        return refused != TxnError.NONE ? refused : request.apply(coordinator(backend));
    }

    @Override
    public byte[] answer(ApiKey key, KafkaReader in, short version, Backend backend, ClassicGroups groups)
            throws IOException {
        if (key == ApiKey.TXN_OFFSET_COMMIT) {
            return txnOffsetCommit(in, version, backend, groups);
        }
        String transactionalId = in.string("transactional_id");
        long producerId = in.int64("producer_id");
        short producerEpoch = in.int16("producer_epoch");
        boolean fencedUnknown = version < 2;
        return switch (key) {
            case ADD_PARTITIONS_TO_TXN -> addPartitions(in, version, backend, transactionalId, producerId, producerEpoch);
            case ADD_OFFSETS_TO_TXN -> {
                String groupId = in.string("group_id");
                in.end("AddOffsetsToTxn v" + version + " request");
                TxnError error = decide(backend, transactionalId, c -> c.addOffsets(new AddOffsetsRequest(
                        transactionalId, producerId, producerEpoch, groupId), backend.nowMs()));
                yield new KafkaWriter().int32(0).int16(code(error, fencedUnknown)).toByteArray();
            }
            case END_TXN -> {
                boolean committed = in.bool("committed");
                in.end("EndTxn v" + version + " request");
                TxnError error = decide(backend, transactionalId, c -> c.endTxn(new EndTxnRequest(transactionalId,
                        producerId, producerEpoch, committed ? TransactionResult.COMMIT : TransactionResult.ABORT),
                        backend.nowMs()));
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
        short error = unknown.isEmpty() ? code(decide(backend, transactionalId, c -> c.addPartitions(
                new AddPartitionsRequest(transactionalId, producerId, producerEpoch, Set.copyOf(added)), backend.nowMs())),
                version < 2) : KafkaErrors.OPERATION_NOT_ATTEMPTED;
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
     * TxnOffsetCommit v0..v3 (flexible from v3): transactional_id · group_id · producer_id ·
     * producer_epoch · generation_id, member_id, group_instance_id (v3+, KIP-447) · topics [name ·
     * partitions [partition_index · committed_offset · committed_leader_epoch (v2+) · committed_metadata]]
     * → throttle_time_ms · topics [name · partitions [partition_index · error_code]]. Checked in Kafka's
     * order: a partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION ({@code KafkaApis}); an empty
     * group id INVALID_GROUP_ID; then the group's verdict for a transaction's commit (ILLEGAL_GENERATION,
     * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID: {@link ClassicGroups#validateTxnCommit}); then each
     * partition's metadata (OFFSET_METADATA_TOO_LARGE); then the write, pending until the marker
     * ({@link TransactionalOffsets#commit}), which a zombie's older epoch does not pass
     * (INVALID_PRODUCER_EPOCH). The transaction coordinator is not asked whether the group's partition
     * is in the transaction (KIP-890's verification is not built). The leader epoch is not kept.
     */
    private static byte[] txnOffsetCommit(KafkaReader in, short version, Backend backend, ClassicGroups groups)
            throws IOException {
        boolean flexible = ApiKey.TXN_OFFSET_COMMIT.isFlexible(version);
        String transactionalId = flexible ? in.compactString("transactional_id") : in.string("transactional_id");
        String groupId = flexible ? in.compactString("group_id") : in.string("group_id");
        long producerId = in.int64("producer_id");
        short producerEpoch = in.int16("producer_epoch");
        int generationId = -1;
        String memberId = "";
        String instanceId = null;
        if (version >= 3) {
            generationId = in.int32("generation_id");
            memberId = in.compactString("member_id");
            instanceId = in.compactNullableString("group_instance_id");
        }
        List<PartitionOffset> offsets = new ArrayList<>();
        List<String> topicNames = new ArrayList<>();
        List<Integer> topicSizes = new ArrayList<>();
        int topicCount = flexible ? in.compactArrayLength("topics") : in.requiredArrayLength("topics");
        for (int t = 0; t < topicCount; t++) {
            String topic = flexible ? in.compactString("topics.name") : in.string("topics.name");
            int count = flexible ? in.compactArrayLength("topics.partitions") : in.requiredArrayLength("topics.partitions");
            for (int p = 0; p < count; p++) {
                int partition = in.int32("partition_index");
                long offset = in.int64("committed_offset");
                if (version >= 2) {
                    in.int32("committed_leader_epoch");
                }
                String metadata = flexible ? in.compactNullableString("committed_metadata")
                        : in.nullableString("committed_metadata");
                if (flexible) {
                    in.skipTaggedFields("TxnOffsetCommit partition");
                }
                offsets.add(new PartitionOffset(topic, partition, offset, metadata == null ? "" : metadata));
            }
            if (flexible) {
                in.skipTaggedFields("TxnOffsetCommit topic");
            }
            topicNames.add(topic);
            topicSizes.add(Math.max(count, 0));
        }
        if (flexible) {
            in.skipTaggedFields("TxnOffsetCommit request");
        }
        in.end("TxnOffsetCommit v" + version + " request (transactional id " + transactionalId + ")");
        short[] errors = txnOffsetErrors(backend, groups, groupId, producerId, producerEpoch, generationId, memberId,
                instanceId, offsets);
        KafkaWriter out = new KafkaWriter().int32(0);
        if (flexible) {
            out.compactArrayLength(topicSizes.size());
        } else {
            out.arrayLength(topicSizes.size());
        }
        int at = 0;
        for (int t = 0; t < topicSizes.size(); t++) {
            int size = topicSizes.get(t);
            String topic = topicNames.get(t);
            if (flexible) {
                out.compactNullableString(topic).compactArrayLength(size);
            } else {
                out.nullableString(topic).arrayLength(size);
            }
            for (int p = 0; p < size; p++, at++) {
                out.int32(offsets.get(at).partition()).int16(errors[at]);
                if (flexible) {
                    out.noTaggedFields();
                }
            }
            if (flexible) {
                out.noTaggedFields();
            }
        }
        if (flexible) {
            out.noTaggedFields();
        }
        return out.toByteArray();
    }

    /** Each offset's answer, in order: see {@link #txnOffsetCommit}. */
    private static short[] txnOffsetErrors(Backend backend, ClassicGroups groups, String groupId, long producerId,
                                           short producerEpoch, int generationId, String memberId, String instanceId,
                                           List<PartitionOffset> offsets) throws IOException {
        short[] errors = new short[offsets.size()];
        List<PartitionOffset> valid = new ArrayList<>();
        List<Integer> validAt = new ArrayList<>();
        for (int i = 0; i < offsets.size(); i++) {
            PartitionOffset p = offsets.get(i);
            if (!backend.committable(p.topic(), p.partition())) {
                errors[i] = KafkaErrors.UNKNOWN_TOPIC_OR_PARTITION;
            } else {
                valid.add(p);
                validAt.add(i);
            }
        }
        if (valid.isEmpty()) {
            return errors;
        }
        short verdict = groupId.isEmpty() ? KafkaErrors.INVALID_GROUP_ID : backend.coordinatorError(groupId);
        if (verdict == KafkaErrors.NONE) {
            verdict = groups.validateTxnCommit(groupId, generationId, memberId, instanceId, backend.nowMs());
        }
        long maxMetadata = backend.broker().configs().brokerLong(GroupCoordinator.METADATA_MAX_BYTES);
        List<PartitionOffset> written = new ArrayList<>();
        List<Integer> writtenAt = new ArrayList<>();
        for (int v = 0; v < valid.size(); v++) {
            int i = validAt.get(v);
            if (verdict != KafkaErrors.NONE) {
                errors[i] = verdict;
            } else if (valid.get(v).metadata().length() > maxMetadata) {
                errors[i] = KafkaErrors.OFFSET_METADATA_TOO_LARGE;
            } else {
                written.add(valid.get(v));
                writtenAt.add(i);
            }
        }
        if (!written.isEmpty()) {
            short error;
            try {
                error = GroupApis.commitError(TransactionalOffsets.of(backend.broker()).commit(backend.broker(), groupId,
                        producerId, producerEpoch, written));
            } catch (ProduceRefusedException fenced) {
                error = KafkaErrors.of(fenced.error());
            }
            for (int i : writtenAt) {
                errors[i] = error;
            }
        }
        return errors;
    }

    /**
     * The coordinator's own work on the Kafka listener's ticker ({@link TransactionCoordinator#tick}):
     * a transaction older than its timeout is aborted (its producer fenced), markers not written yet
     * are sent again. Nothing before the first transactional producer came, unless the broker's
     * directory holds {@code __transaction_state} ({@link #resumes}).
     */
    @Override
    public void tick(long nowMs, Backend backend) throws IOException {
        if (inCluster(backend)) {
            placement(backend).ifPresent(p -> p.coordinator().tick(nowMs));
            return;
        }
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

    /**
     * The coordinator of this broker's transactional ids: a cluster member's, of the partitions it leads;
     * a broker alone's, made (and {@code __transaction_state} with it) at its first use.
     */
    private synchronized TransactionCoordinator coordinator(Backend backend) throws IOException {
        if (inCluster(backend)) {
            return placement(backend).orElseThrow().coordinator();
        }
        if (coordinator == null) {
            coordinator = LocalTransactions.start(backend.broker(), TxnConfig.defaults());
        }
        return coordinator;
    }
}
