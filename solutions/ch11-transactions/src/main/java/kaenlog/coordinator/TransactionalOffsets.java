package kaenlog.coordinator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.MessageSizeLimit;
import kaenlog.broker.ProduceRefusedException;
import kaenlog.groups.CommittedOffset;
import kaenlog.groups.CommittedOffsets;
import kaenlog.groups.GroupMetadataKey;
import kaenlog.groups.GroupOffsetsLog;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.groups.OffsetCommitValue;
import kaenlog.groups.PartitionOffset;
import kaenlog.log.AppendInfo;
import kaenlog.log.Log;
import kaenlog.log.Segment;
import kaenlog.wire.ErrorCode;

/**
 * A transaction's offsets in the group coordinator (KIP-98, KIP-447): TxnOffsetCommit writes them to
 * the group's {@code __consumer_offsets} partition at once, as a transactional batch of the producer's
 * id and epoch, but they count only once the transaction's marker reaches that partition (AddOffsetsToTxn
 * put it in the transaction): a COMMIT materialises them, an ABORT discards them. Until then they are
 * <em>pending</em>, tied to the producer id, and OffsetFetch with {@code require_stable} answers
 * UNSTABLE_OFFSET_COMMIT for their partitions.
 *
 * <p>Chapter 6's coordinator reads an offsets partition through this {@link OffsetsLoader}: the replay
 * of Kafka's {@code OffsetMetadataManager} ({@code replay} of an offset record with its producer id,
 * {@code replayEndTransactionMarker}). A plain record is a commit; a transactional one is pending for
 * its producer; a tombstone removes the key's commit and every pending offset of it; a marker ends
 * its producer's pending offsets, and at a COMMIT each one replaces the key's commit unless that
 * commit's record is later in the log ("we always keep the most recent committed offset"). So a
 * broker that restarts between the offsets and the marker finds them pending again, and one that
 * restarts after the marker finds them committed (or discarded).
 *
 * <p>The partition's producer epochs are kept as its log side keeps them for a data partition (the
 * newest epoch each producer id wrote, its markers' included): a TxnOffsetCommit of an older epoch is a
 * zombie's, refused INVALID_PRODUCER_EPOCH (Kafka's {@code ProducerAppendInfo.checkProducerEpoch} on
 * the offsets partition's append). Given code. One instance per broker, made by chapter 6's
 * coordinator ({@link GroupCoordinator#loader}); everything it keeps of a partition is used under that
 * partition's lock.
 */
public final class TransactionalOffsets implements OffsetsLoader {
    /** Offsets partition -> what is pending there. */
    private final Map<String, Pending> partitions = new ConcurrentHashMap<>();

    /** One offsets partition's transactions: each producer's pending offsets, each producer's newest epoch. */
    private static final class Pending {
        final SortedMap<Long, SortedMap<OffsetCommitKey, CommittedOffset>> byProducer = new TreeMap<>();
        final SortedMap<Long, Short> epochs = new TreeMap<>();

        long heldBytes() {
            long bytes = 0;
            for (SortedMap<OffsetCommitKey, CommittedOffset> offsets : byProducer.values()) {
                for (Map.Entry<OffsetCommitKey, CommittedOffset> e : offsets.entrySet()) {
                    bytes += CommittedOffsets.bytesOf(e.getKey(), e.getValue().value().metadata());
                }
            }
            return bytes;
        }
    }

    /** This broker's, as chapter 6's coordinator made it (this chapter registers it as its {@link OffsetsLoader}). */
    public static TransactionalOffsets of(BrokerContext broker) {
        OffsetsLoader loader = GroupCoordinator.of(broker).loader();
        if (loader instanceof TransactionalOffsets offsets) {
            return offsets;
        }
        throw new IllegalStateException("chapter 11's TransactionalOffsets is not the offsets loader ("
                + loader.getClass().getName() + "): META-INF/services/kaenlog.coordinator.OffsetsLoader");
    }

    // ---- the replay --------------------------------------------------------------------------------

    @Override
    public CommittedOffsets load(String partition, GroupOffsetsLog log) throws IOException {
        CommittedOffsets offsets = CommittedOffsets.empty();
        Pending pending = new Pending();
        for (Segment segment : log.log().segments()) {
            for (RecordBatch batch : segment.batches()) {
                replay(pending, offsets, batch);
            }
        }
        partitions.put(partition, pending);
        return offsets;
    }

    @Override
    public boolean isPending(String partition, OffsetCommitKey key) {
        Pending pending = partitions.get(partition);
        return pending != null && pending.byProducer.values().stream().anyMatch(offsets -> offsets.containsKey(key));
    }

    @Override
    public void unloaded(String partition) {
        partitions.remove(partition);
    }

    /** One batch of an offsets log, as Kafka's coordinator replays it. */
    private static void replay(Pending pending, CommittedOffsets offsets, RecordBatch batch) {
        BatchHeader header = batch.header();
        if (header.hasProducerId()) {
            pending.epochs.merge(header.producerId(), header.producerEpoch(), (a, b) -> (short) Math.max(a, b));
        }
        if (header.isControl()) {
            ControlRecordType type = EndTransactionMarker.read(batch.records().get(0)).type();
            end(pending, offsets, header.producerId(), type == ControlRecordType.COMMIT);
            return;
        }
        boolean transactional = header.isTransactional() && header.hasProducerId();
        for (Record record : batch.records()) {
            if (record.key() == null || GroupMetadataKey.isGroupMetadata(record.key())) {
                continue; // a group's metadata (chapter 9's) is not an offset
            }
            OffsetCommitKey key = OffsetCommitKey.decode(record.key());
            if (record.isTombstone()) {
                offsets.forget(key);
                pending.byProducer.values().forEach(offsetsOfProducer -> offsetsOfProducer.remove(key));
                continue;
            }
            CommittedOffset offset = new CommittedOffset(record.offset(), OffsetCommitValue.decode(record.value()));
            if (transactional) {
                pending.byProducer.computeIfAbsent(header.producerId(), id -> new TreeMap<>()).put(key, offset);
            } else {
                offsets.remember(key, offset);
            }
        }
    }

    /**
     * A marker of {@code producerId} on this partition: its pending offsets end here; a COMMIT makes each
     * the key's commit unless the key's commit is a later record (Kafka's {@code replayEndTransactionMarker}).
     */
    private static void end(Pending pending, CommittedOffsets offsets, long producerId, boolean commit) {
        SortedMap<OffsetCommitKey, CommittedOffset> ended = pending.byProducer.remove(producerId);
        if (ended != null && commit) {
            ended.forEach(offsets::rememberIfLater);
        }
    }

    // ---- TxnOffsetCommit ---------------------------------------------------------------------------

    /**
     * Writes {@code offsets} of {@code group} for the transaction of producer {@code producerId} at
     * {@code producerEpoch}: one transactional batch on the group's offsets partition, then pending. The
     * caller checked the group's generation and member and each partition; an older epoch than the
     * partition saw of that producer is refused ({@link ProduceRefusedException}, INVALID_PRODUCER_EPOCH).
     */
    public OffsetCommitError commit(BrokerContext broker, String group, long producerId, short producerEpoch,
                                    List<PartitionOffset> offsets) throws IOException {
        long maxBytes = broker.configs().brokerLong(GroupCoordinator.MAX_OFFSET_BYTES);
        long nowMs = broker.nowMs();
        GroupCoordinator coordinator = GroupCoordinator.of(broker);
        try {
            return coordinator.withOffsetsOf(broker, group, (name, log, committed) -> {
                if (GroupOffsetsLog.commitBytes(group, offsets) > MessageSizeLimit.maxMessageBytes(broker.configs(), name)) {
                    return OffsetCommitError.BATCH_TOO_LARGE;
                }
                Pending pending = partitions.computeIfAbsent(name, n -> new Pending());
                checkProducerEpoch(pending, producerId, producerEpoch);
                long growth = 0;
                for (PartitionOffset p : offsets) {
                    growth += CommittedOffsets.bytesOf(new OffsetCommitKey(group, p.topic(), p.partition()), p.metadata());
                }
                if (committed.heldBytes() + pending.heldBytes() + growth > maxBytes) {
                    return OffsetCommitError.COORDINATOR_FULL;
                }
                write(log, pending, group, producerId, producerEpoch, offsets, nowMs);
                return OffsetCommitError.NONE;
            });
        } catch (IOException e) {
            broker.trouble(GroupCoordinator.partitionFor(group), "a transaction's offsets of group " + group
                    + " were not written: " + e.getMessage());
            return OffsetCommitError.STORAGE_ERROR;
        }
    }

    private static void checkProducerEpoch(Pending pending, long producerId, short producerEpoch) {
        Short newest = pending.epochs.get(producerId);
        if (newest != null && producerEpoch < newest) {
            throw new ProduceRefusedException(ErrorCode.INVALID_PRODUCER_EPOCH, "producer " + producerId
                    + " commits offsets at epoch " + producerEpoch + ", older than the epoch " + newest
                    + " it wrote to the offsets partition last: fenced");
        }
    }

    /** The batch appended (chapter 6's commit batch, made transactional), then its offsets pending, each at its record. */
    private static void write(Log log, Pending pending, String group, long producerId, short producerEpoch,
                              List<PartitionOffset> offsets, long nowMs) throws IOException {
        RecordBatch plain = RecordBatch.decode(GroupOffsetsLog.commitBatch(group, offsets, nowMs));
        AppendInfo appended = log.append(transactional(plain, producerId, producerEpoch));
        pending.epochs.merge(producerId, producerEpoch, (a, b) -> (short) Math.max(a, b));
        SortedMap<OffsetCommitKey, CommittedOffset> ofProducer = pending.byProducer.computeIfAbsent(producerId,
                id -> new TreeMap<>());
        long logOffset = appended.firstOffset();
        for (PartitionOffset p : offsets) {
            ofProducer.put(new OffsetCommitKey(group, p.topic(), p.partition()),
                    new CommittedOffset(logOffset++, new OffsetCommitValue(p.offset(), p.metadata(), nowMs)));
        }
    }

    /**
     * The same records in a transactional batch of the producer: its id and epoch, the transactional
     * bit, base sequence 0 (Kafka's coordinator writes a transaction's offsets so, and the offsets
     * partition does not check their sequence: the coordinator, not the producer, appends them).
     */
    static ByteBuffer transactional(RecordBatch plain, long producerId, short producerEpoch) {
        BatchHeader h = plain.header();
        return BatchBuilder.encode(new BatchHeader(h.baseOffset(), 0, h.partitionLeaderEpoch(), h.magic(), 0,
                (short) (h.attributes() | BatchHeader.TRANSACTIONAL_FLAG_MASK), h.lastOffsetDelta(), h.baseTimestamp(),
                h.maxTimestamp(), producerId, producerEpoch, 0, h.recordCount()), plain.records());
    }

    // ---- the marker --------------------------------------------------------------------------------

    /**
     * The transaction's marker of {@code producerId} (its epoch {@code producerEpoch}) was written to the
     * offsets partition {@code partition}: what the producer left pending there is committed or
     * discarded (Kafka's {@code GroupCoordinator.onTransactionCompleted}, called once WriteTxnMarkers
     * appended the marker to an offsets partition).
     */
    public void markerWritten(BrokerContext broker, String partition, long producerId, short producerEpoch,
                              boolean commit) throws IOException {
        GroupCoordinator.of(broker).withOffsetsPartition(broker, partition, (name, log, committed) -> {
            Pending pending = partitions.computeIfAbsent(name, n -> new Pending());
            pending.epochs.merge(producerId, producerEpoch, (a, b) -> (short) Math.max(a, b));
            end(pending, committed, producerId, commit);
            return null;
        });
    }
}
