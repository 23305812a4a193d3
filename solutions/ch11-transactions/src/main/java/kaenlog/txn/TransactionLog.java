package kaenlog.txn;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames.TopicPartition;
import kaenlog.wire.Wire;

/**
 * The coordinator's records in {@code __transaction_state}, in Kafka's format (Kafka 4.1.1's
 * generated {@code TransactionLogKey} and {@code TransactionLogValue}, written by
 * {@code kafka.coordinator.transaction.TransactionLog}): one record per transition, keyed by the
 * transactional id, so that compaction keeps each id's last state and a coordinator that reads the
 * log from the start ends with every id's state.
 *
 * <pre>
 * key    version int16 (0) · transactionalId string
 * value  version int16 (0) · producerId int64 · producerEpoch int16 · transactionTimeoutMs int32
 *        · transactionStatus int8 · partitions: array (int32 count, -1 null) of
 *          { topic string · partitionIds: array of int32 }
 *        · transactionLastUpdateTimestampMs int64 · transactionStartTimestampMs int64
 * </pre>
 *
 * A string is an int16 length and UTF-8 bytes. The partitions are null in Empty (Kafka refuses to
 * write an Empty state with partitions). Kafka writes version 0 until the cluster's
 * transaction.version reaches 1; version 1 is flexible (KIP-482: compact strings and arrays,
 * tagged fields, among them the previous producer id): read here, never written.
 */
public final class TransactionLog {
    /** The record type of the key (Kafka's CoordinatorRecordType.TRANSACTION_LOG), the key's version too. */
    public static final short KEY_VERSION = 0;
    public static final short VALUE_VERSION = 0;
    public static final short FLEXIBLE_VALUE_VERSION = 1;
    /** A string's int16 length cannot say more. */
    public static final int MAX_STRING_BYTES = Short.MAX_VALUE;

    private TransactionLog() {
    }

    /** The key of every record of {@code transactionalId}. */
    public static byte[] keyBytes(String transactionalId) {
        // BEGIN-SOLUTION ch11 task 3: the key: version 0, the transactional id (TransactionLogTest)
        byte[] id = utf8(transactionalId, "transactionalId");
        return ByteBuffer.allocate(2 + 2 + id.length).putShort(KEY_VERSION).putShort((short) id.length).put(id).array();
        // END-SOLUTION
    }

    /**
     * The transactional id a key names; empty for a key of another version (another kind of record:
     * Kafka's loader skips it with a warning). A version-0 key that does not decode is a
     * {@link MalformedMessageException}.
     */
    public static Optional<String> readKey(byte[] key) {
        // BEGIN-SOLUTION ch11 task 3: read a key, skipping other versions (TransactionLogTest)
        Wire.Reader in = new Wire.Reader(key);
        if (in.int16("key version") != KEY_VERSION) {
            return Optional.empty();
        }
        return Optional.of(in.string("transactionalId"));
        // END-SOLUTION
    }

    /** The value that records {@code transit}, version 0. */
    public static byte[] valueBytes(TxnTransit transit) {
        // BEGIN-SOLUTION ch11 task 3: the value, version 0, partitions grouped by topic (TransactionLogTest)
        SortedMap<String, List<Integer>> topics = byTopic(transit);
        int size = 2 + 8 + 2 + 4 + 1 + 4 + 8 + 8;
        for (Map.Entry<String, List<Integer>> topic : topics.entrySet()) {
            size += 2 + utf8(topic.getKey(), "topic").length + 4 + 4 * topic.getValue().size();
        }
        ByteBuffer out = ByteBuffer.allocate(size).putShort(VALUE_VERSION).putLong(transit.producerId())
                .putShort(transit.producerEpoch()).putInt(transit.txnTimeoutMs()).put(transit.state().id());
        if (transit.state() == TransactionState.EMPTY) {
            out.putInt(-1);
        } else {
            out.putInt(topics.size());
            topics.forEach((topic, ids) -> {
                byte[] name = utf8(topic, "topic");
                out.putShort((short) name.length).put(name).putInt(ids.size());
                ids.forEach(out::putInt);
            });
        }
        return out.putLong(transit.txnLastUpdateTimestamp()).putLong(transit.txnStartTimestamp()).array();
        // END-SOLUTION
    }

    /**
     * The state a value records. The producer id before and the last epoch are not in version 0:
     * -1, as Kafka loads them. An Empty state has no partitions whatever the record lists (Kafka
     * adds them only to other states). A value that does not decode, or names no state, is a
     * {@link MalformedMessageException}.
     */
    public static TxnTransit readValue(byte[] value) {
        Wire.Reader in = new Wire.Reader(value);
        short version = in.int16("value version");
        if (version == FLEXIBLE_VALUE_VERSION) {
            return readFlexibleValue(in);
        }
        if (version != VALUE_VERSION) {
            throw new MalformedMessageException("value version " + version + " (Kafka 4.1.1 writes 0 and 1)");
        }
        // BEGIN-SOLUTION ch11 task 3: read a value, version 0 (TransactionLogTest)
        long producerId = in.int64("producerId");
        short producerEpoch = in.int16("producerEpoch");
        int timeoutMs = in.int32("transactionTimeoutMs");
        TransactionState state = state(in.int8("transactionStatus"));
        int topics = in.int32("transactionPartitions count");
        checkCount(topics, in, "transactionPartitions");
        List<TopicPartition> partitions = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
            String topic = in.string("topic");
            int ids = in.int32("partitionIds count");
            checkCount(ids, in, "partitionIds");
            for (int i = 0; i < ids; i++) {
                partitions.add(new TopicPartition(topic, in.int32("partitionId")));
            }
        }
        long lastUpdate = in.int64("transactionLastUpdateTimestampMs");
        long start = in.int64("transactionStartTimestampMs");
        return new TxnTransit(producerId, TxnTransit.NO_PRODUCER_ID, producerEpoch, TxnTransit.NO_PRODUCER_EPOCH, timeoutMs,
                state, TxnTransit.sorted(state == TransactionState.EMPTY ? List.of() : partitions), start, lastUpdate);
        // END-SOLUTION
    }

    /**
     * Replays a {@code __transaction_state} partition from its start: each transactional id's last
     * record is its state, a tombstone (a null value: the id expired) removes it, a record of another
     * kind is skipped. What a new coordinator of the partition does before it answers anyone (Kafka's
     * TransactionStateManager.loadTransactionMetadata). A record that does not decode is a
     * {@link CorruptTransactionLogException} naming its offset.
     */
    public static SortedMap<String, TxnTransit> replay(StateLog log) throws IOException {
        SortedMap<String, TxnTransit> states = new TreeMap<>();
        log.forEachRecord(record -> {
            try {
                replay(states, record);
            } catch (MalformedMessageException | IllegalArgumentException e) {
                throw new CorruptTransactionLogException(record.offset(), e.getMessage(), e);
            }
        });
        return states;
    }

    /** One record of the replay applied to the states so far. */
    static void replay(SortedMap<String, TxnTransit> states, Record record) {
        // BEGIN-SOLUTION ch11 task 3: replay: the last record of an id wins, a tombstone removes it (TransactionLogTest)
        if (record.key() == null) {
            throw new MalformedMessageException("a record without a key");
        }
        Optional<String> id = readKey(record.key());
        if (id.isEmpty()) {
            return;
        }
        if (record.isTombstone()) {
            states.remove(id.get());
        } else {
            states.put(id.get(), readValue(record.value()));
        }
        // END-SOLUTION
    }

    /** The one-record batch that writes {@code transit} (uncompressed, no producer id, as Kafka writes it). */
    public static ByteBuffer record(String transactionalId, TxnTransit transit, long nowMs) {
        return new BatchBuilder().append(nowMs, keyBytes(transactionalId), valueBytes(transit)).build();
    }

    /** The partitions of a transition by topic, topics and partition ids in order. */
    static SortedMap<String, List<Integer>> byTopic(TxnTransit transit) {
        SortedMap<String, List<Integer>> topics = new TreeMap<>();
        for (TopicPartition p : transit.partitions()) {
            topics.computeIfAbsent(p.topic(), t -> new ArrayList<>()).add(p.partition());
        }
        return topics;
    }

    static byte[] utf8(String s, String field) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING_BYTES) {
            throw new IllegalArgumentException(field + " is " + bytes.length + " bytes long, over the " + MAX_STRING_BYTES
                    + " an int16 length can say");
        }
        return bytes;
    }

    static TransactionState state(byte status) {
        return TransactionState.fromId(status).orElseThrow(() -> new MalformedMessageException(
                "transactionStatus " + status + " names no state (0 to 7)"));
    }

    /** A count of elements that cannot all be there (each takes a byte at least) is refused before a list grows. */
    private static void checkCount(int count, Wire.Reader in, String field) {
        if (count > in.remaining()) {
            throw new MalformedMessageException(field + ": " + count + " element(s) announced, " + in.remaining()
                    + " byte(s) left");
        }
    }

    /**
     * Version 1 (KIP-915: flexible, so that later fields are tagged and an older broker can still
     * read the record): compact strings and arrays (an unsigned varint of length + 1, 0 for null),
     * tagged fields after each structure. Of the tags, 0 is the producer id before the last one;
     * 1, 2 and 3 (the next producer id and epoch, the client's transaction version) belong to
     * KIP-890's version 2 transactions, not built here, and are skipped like any other.
     */
    private static TxnTransit readFlexibleValue(Wire.Reader in) {
        long producerId = in.int64("producerId");
        short producerEpoch = in.int16("producerEpoch");
        int timeoutMs = in.int32("transactionTimeoutMs");
        TransactionState state = state(in.int8("transactionStatus"));
        int topics = unsignedVarint(in, "transactionPartitions count") - 1;
        checkCount(topics, in, "transactionPartitions");
        List<TopicPartition> partitions = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
            int nameLength = unsignedVarint(in, "topic length") - 1;
            String topic = StandardCharsets.UTF_8.decode(in.view(nameLength, "topic")).toString();
            int ids = unsignedVarint(in, "partitionIds count") - 1;
            checkCount(ids, in, "partitionIds");
            for (int i = 0; i < ids; i++) {
                partitions.add(new TopicPartition(topic, in.int32("partitionId")));
            }
            taggedFields(in, "partitions");
        }
        long lastUpdate = in.int64("transactionLastUpdateTimestampMs");
        long start = in.int64("transactionStartTimestampMs");
        long previousProducerId = taggedFields(in, "value").getOrDefault(0, TxnTransit.NO_PRODUCER_ID);
        return new TxnTransit(producerId, previousProducerId, producerEpoch, TxnTransit.NO_PRODUCER_EPOCH, timeoutMs, state,
                TxnTransit.sorted(state == TransactionState.EMPTY ? List.of() : partitions), start, lastUpdate);
    }

    /** The tagged fields of a structure: tag 0's int64 kept (the only one read), every other skipped by its size. */
    private static Map<Integer, Long> taggedFields(Wire.Reader in, String structure) {
        Map<Integer, Long> kept = new LinkedHashMap<>();
        int count = unsignedVarint(in, structure + " tagged field count");
        for (int i = 0; i < count; i++) {
            int tag = unsignedVarint(in, structure + " tag");
            int size = unsignedVarint(in, structure + " tagged field size");
            ByteBuffer field = in.view(size, structure + " tagged field " + tag);
            if (tag == 0 && size == Long.BYTES) {
                kept.put(tag, field.getLong());
            }
        }
        return kept;
    }

    /** Seven bits a byte, low bits first, at most five bytes (KIP-482's unsigned varint). */
    private static int unsignedVarint(Wire.Reader in, String field) {
        int value = 0;
        for (int i = 0; i < 5; i++) {
            byte b = in.int8(field);
            value |= (b & 0x7f) << (7 * i);
            if (b >= 0) {
                return value;
            }
        }
        throw new MalformedMessageException(field + ": an unsigned varint longer than 5 bytes");
    }
}
