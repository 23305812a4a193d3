package kaenlog.txn;

import static kaenlog.txn.TxnFixture.ORDERS_0;
import static kaenlog.txn.TxnFixture.ORDERS_1;
import static kaenlog.txn.TxnFixture.PAYMENTS_0;
import static kaenlog.txn.TxnFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import kaenlog.batch.BatchBuilder;
import kaenlog.broker.Partition;
import kaenlog.compaction.Cleaner;
import kaenlog.log.LogConfig;
import kaenlog.testkit.PassesOnSkeleton;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.PartitionNames.TopicPartition;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.transaction.TransactionCoordinatorRecordSerde;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogKey;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogValue;
import org.apache.kafka.server.common.TransactionVersion;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 3: the coordinator's log. Each transition is a record of {@code __transaction_state} in
 * Kafka's format, written before it is applied and answered; a coordinator that takes the partition
 * over replays it: each id's last record wins, a tombstone removes the id.
 */
@Order(3)
class TransactionLogTest {
    private static final String ID = TxnFixture.ID;

    @TempDir
    Path dir;

    private static TxnTransit ongoing(short epoch, TopicPartition... partitions) {
        return new TxnTransit(1000, 1000, epoch, TxnTransit.NO_PRODUCER_EPOCH, 60_000, TransactionState.ONGOING,
                TxnTransit.sorted(List.of(partitions)), T0, T0 + 5);
    }

    private static TxnTransitMetadata kafkas(TxnTransit t) {
        return new TxnTransitMetadata(t.producerId(), t.prevProducerId(), TxnTransit.NO_PRODUCER_ID, t.producerEpoch(),
                t.lastProducerEpoch(), t.txnTimeoutMs(), KafkaCoordinator.kafkas(t.state()),
                KafkaCoordinator.kafkas(t.partitions()), t.txnStartTimestamp(), t.txnLastUpdateTimestamp(), TransactionVersion.TV_0);
    }

    private static byte[] kafkasValue(TxnTransit t, TransactionVersion version) {
        return kafka.coordinator.transaction.TransactionLog$.MODULE$.valueToBytes(kafkas(t), version);
    }

    /** What Kafka's TransactionLog reads from a value, as our TxnTransit (its prevProducerId and last epoch: -1). */
    private static TxnTransit kafkaReads(String id, byte[] value) {
        kafka.coordinator.transaction.TransactionMetadata m = kafka.coordinator.transaction.TransactionLog$.MODULE$
                .readTxnRecordValue(id, ByteBuffer.wrap(value)).get();
        return new TxnTransit(m.producerId(), m.prevProducerId(), m.producerEpoch(), m.lastProducerEpoch(),
                m.txnTimeoutMs(), KafkaCoordinator.ours(m.state()), KafkaCoordinator.ours(m.topicPartitions()),
                m.txnStartTimestamp(), m.txnLastUpdateTimestamp());
    }

    @Test
    void theKeyIsWhatKafkaWrites() {
        for (String id : List.of(ID, "x", "tx-\u00e9\u6f22\ud83d\ude00")) {
            assertThat(TransactionLog.keyBytes(id)).as("the key of %s: version 0 (int16), then the id as an int16"
                    + " length and its UTF-8 bytes (Kafka's TransactionLog.keyToBytes)", id)
                    .isEqualTo(kafka.coordinator.transaction.TransactionLog$.MODULE$.keyToBytes(id));
            assertThat(TransactionLog.readKey(TransactionLog.keyBytes(id))).as("read back").contains(id);
        }
    }

    @Test
    void aValueIsWhatKafkaWritesByteForByte() {
        TxnTransit ongoing = ongoing((short) 3, ORDERS_0);
        assertThat(TransactionLog.valueBytes(ongoing)).as("an Ongoing transaction of orders-0: version 0, producer id,"
                + " epoch, timeout, status byte 1, [orders: [0]], last update, start (TransactionLog.valueToBytes)")
                .isEqualTo(kafkasValue(ongoing, TransactionVersion.TV_0));
        TxnTransit empty = new TxnTransit(1000, 1000, (short) 0, TxnTransit.NO_PRODUCER_EPOCH, 60_000,
                TransactionState.EMPTY, TxnTransit.sorted(Set.of()), TxnTransit.NO_TIMESTAMP, T0);
        assertThat(TransactionLog.valueBytes(empty)).as("Empty writes its partitions as a null array (count -1), not"
                + " an empty one").isEqualTo(kafkasValue(empty, TransactionVersion.TV_0));
    }

    @Test
    void partitionsAreGroupedByTopic() {
        TxnTransit t = ongoing((short) 0, ORDERS_1, PAYMENTS_0, ORDERS_0);
        ByteBuffer value = ByteBuffer.wrap(TransactionLog.valueBytes(t));
        value.position(2 + 8 + 2 + 4 + 1);
        assertThat(value.getInt()).as("two topics, orders and payments: one entry per topic, its partition ids"
                + " inside").isEqualTo(2);
        assertThat(kafkaReads(ID, TransactionLog.valueBytes(t)).partitions()).as("Kafka reads the three partitions back")
                .containsExactly(ORDERS_0, ORDERS_1, PAYMENTS_0);
    }

    @Test
    void kafkaReadsEveryValueWeWrite() {
        TransactionCoordinatorRecordSerde serde = new TransactionCoordinatorRecordSerde();
        Property.forAll(TxnGens.transits()).tries(200).check(t -> {
            byte[] value = TransactionLog.valueBytes(t);
            TxnTransit read = kafkaReads(ID, value);
            Judge.agree("the value of " + t, "record, read back by Kafka,", withoutMemoryFields(t),
                    "TransactionLog.readTxnRecordValue reads", read,
                    "version 0: producer id, epoch, timeout, status, partitions by topic (null when Empty), last update, start");
            CoordinatorRecord record = serde.deserialize(ByteBuffer.wrap(TransactionLog.keyBytes(ID)), ByteBuffer.wrap(value));
            assertThat(((TransactionLogKey) record.key()).transactionalId()).as("TransactionCoordinatorRecordSerde reads"
                    + " our key").isEqualTo(ID);
            assertThat(record.value().version()).as("and our value as version 0").isEqualTo((short) 0);
            assertThat(((TransactionLogValue) record.value().message()).producerId()).isEqualTo(t.producerId());
        });
    }

    @Test
    void weReadEveryValueKafkaWrites() {
        Property.forAll(TxnGens.transits().zip(Gens.elements(TransactionVersion.TV_0, TransactionVersion.TV_1,
                TransactionVersion.TV_2), (t, v) -> new Object[] {t, v})).tries(200).check(input -> {
                    TxnTransit t = (TxnTransit) input[0];
                    TransactionVersion version = (TransactionVersion) input[1];
                    byte[] kafkas = kafkasValue(t, version);
                    Judge.agree("Kafka's value (" + version + ", record version " + version.transactionLogValueVersion()
                                    + ") of " + t, "reading", TransactionLog.readValue(kafkas),
                            "TransactionLog.readTxnRecordValue reads", kafkaReads(ID, kafkas),
                            "version 0 as written; version 1 flexible: compact arrays and strings, tagged fields");
                });
    }

    @Test
    @PassesOnSkeleton("the flexible version 1 is read by given code")
    void theProducerIdBeforeIsReadFromVersionOnesTaggedField() {
        TransactionLogValue value = new TransactionLogValue().setProducerId(2000).setPreviousProducerId(1000)
                .setProducerEpoch((short) 0).setTransactionTimeoutMs(60_000)
                .setTransactionStatus(TransactionState.EMPTY.id()).setTransactionPartitions(null)
                .setTransactionLastUpdateTimestampMs(T0).setTransactionStartTimestampMs(-1).setNextProducerId(3000)
                .setClientTransactionVersion((short) 2);
        byte[] bytes = MessageUtil.toVersionPrefixedBytes((short) 1, value);
        TxnTransit read = TransactionLog.readValue(bytes);
        assertThat(read.prevProducerId()).as("tag 0, PreviousProducerId").isEqualTo(1000);
        assertThat(read.producerId()).as("tags 1 and 2 skipped by their sizes, the fields after them still read")
                .isEqualTo(2000);
        assertThat(read.txnLastUpdateTimestamp()).isEqualTo(T0);
    }

    @Test
    void aKeyOfAnotherVersionIsAnotherKindOfRecordAndSkipped() {
        byte[] other = ByteBuffer.allocate(4).putShort((short) 1).putShort((short) 0).array();
        assertThat(TransactionLog.readKey(other)).as("key version 1 is not a transaction's (Kafka's loader warns and"
                + " skips it)").isEmpty();
        assertThat(kafka.coordinator.transaction.TransactionLog$.MODULE$.readTxnRecordKey(ByteBuffer.wrap(other)).isLeft())
                .as("Kafka reads it as another version too").isTrue();
    }

    @Test
    void aValueThatDoesNotDecodeIsRefused() {
        byte[] value = TransactionLog.valueBytes(ongoing((short) 0, ORDERS_0));
        assertThat(catchThrowable(() -> TransactionLog.readValue(java.util.Arrays.copyOf(value, value.length - 3))))
                .as("a value cut short").isInstanceOf(kaenlog.wire.MalformedMessageException.class);
        byte[] badStatus = value.clone();
        badStatus[2 + 8 + 2 + 4] = 9;
        assertThat(catchThrowable(() -> TransactionLog.readValue(badStatus))).as("status byte 9 names no state")
                .isInstanceOf(kaenlog.wire.MalformedMessageException.class).hasMessageContaining("transactionStatus");
        byte[] hugeCount = value.clone();
        ByteBuffer.wrap(hugeCount).putInt(2 + 8 + 2 + 4 + 1, Integer.MAX_VALUE);
        assertThat(catchThrowable(() -> TransactionLog.readValue(hugeCount))).as("a count of topics that cannot be there is"
                + " refused before a list grows").isInstanceOf(kaenlog.wire.MalformedMessageException.class);
    }

    private Partition partition(String name, int segmentBytes) throws Exception {
        return Partition.open(name, dir.resolve(name), new LogConfig(segmentBytes, 4096));
    }

    @Test
    void theReplayKeepsEachIdsLastRecordAndATombstoneRemovesTheId() throws Exception {
        try (Partition p = partition("__transaction_state-7", 1 << 20)) {
            StateLog log = new PartitionStateLog(() -> p);
            log.append(TransactionLog.record("a", ongoing((short) 0, ORDERS_0), T0));
            log.append(TransactionLog.record("b", ongoing((short) 4, ORDERS_1), T0));
            log.append(TransactionLog.record("a", ongoing((short) 1, ORDERS_0, PAYMENTS_0), T0 + 1));
            log.append(new BatchBuilder().append(T0 + 2, TransactionLog.keyBytes("b"), null).build());
            log.append(new BatchBuilder().append(T0 + 3, ByteBuffer.allocate(4).putShort((short) 1).array(),
                    "another record kind".getBytes(StandardCharsets.UTF_8)).build());
            SortedMap<String, TxnTransit> states = TransactionLog.replay(log);
            assertThat(states).as("a's second record replaced its first; b's tombstone removed b; the record of"
                    + " another kind was skipped").containsOnlyKeys("a");
            assertThat(states.get("a")).as("a's last record").isEqualTo(withoutMemoryFields(
                    ongoing((short) 1, ORDERS_0, PAYMENTS_0)));
        }
    }

    @Test
    void compactionKeepsWhatTheReplayNeeds() throws Exception {
        try (Partition p = partition("__transaction_state-3", 600)) {
            StateLog log = new PartitionStateLog(() -> p);
            for (short epoch = 0; epoch < 12; epoch++) {
                log.append(TransactionLog.record("a", ongoing(epoch, ORDERS_0), T0 + epoch));
                log.append(TransactionLog.record("b", ongoing((short) (100 + epoch), ORDERS_1), T0 + epoch));
            }
            log.append(new BatchBuilder().append(T0 + 20, TransactionLog.keyBytes("b"), null).build());
            log.append(TransactionLog.record("c", ongoing((short) 7, PAYMENTS_0), T0 + 21));
            SortedMap<String, TxnTransit> before = TransactionLog.replay(log);
            Cleaner.Result cleaned = p.locked(l -> new Cleaner(86_400_000L).clean(l, T0 + 30));
            assertThat(cleaned.segments()).as("the closed segments were compacted (chapter 6)").isNotEmpty();
            assertThat(TransactionLog.replay(log)).as("compaction keeps each id's last record (and b's tombstone, within"
                    + " delete.retention.ms): the replay finds the same states").isEqualTo(before);
        }
    }

    @Test
    void eachTransitionIsWrittenBeforeItIsAnsweredAndOutlivesTheCoordinator() throws Exception {
        TxnFixture f = new TxnFixture();
        InitProducerIdResult first = f.init(ID, T0);
        assertThat(f.logOf(ID).written()).as("InitProducerId wrote one record, the answer's producer id and epoch, Empty")
                .extracting(e -> e.getValue().producerEpoch() + " " + e.getValue().state()).containsExactly("0 EMPTY");
        InitProducerIdResult second = f.init(ID, T0 + 1);
        assertThat(second.producerEpoch()).isEqualTo((short) 1);
        f.start();
        assertThat(f.state(ID).producerEpoch()).as("a new coordinator replays the log: what the producers were told"
                + " is what it knows").isEqualTo((short) 1);
        assertThat(f.state(ID).producerId()).isEqualTo(first.producerId());
        assertThat(f.init(ID, T0 + 2).producerEpoch()).as("and bumps on from there").isEqualTo((short) 2);
    }

    @Test
    void aTransitionWhoseWriteFailsIsNeitherAppliedNorAnswered() throws Exception {
        TxnFixture f = new TxnFixture();
        f.init(ID, T0);
        f.logOf(ID).failingAppends = 1;
        InitProducerIdResult failed = f.init(ID, T0 + 1);
        assertThat(failed.error()).as("the log could not be written: NOT_COORDINATOR (the producer looks for the"
                + " coordinator again), never an epoch nobody can read back").isEqualTo(TxnError.NOT_COORDINATOR);
        assertThat(f.state(ID).producerEpoch()).as("the bump was not applied").isEqualTo((short) 0);
        assertThat(f.coordinator.pendingState(ID)).as("and is not in flight any more").isEmpty();
        assertThat(f.init(ID, T0 + 2).producerEpoch()).as("the next InitProducerId bumps 0 to 1: the failed one"
                + " never happened").isEqualTo((short) 1);
    }

    @Test
    void aTransitionTooLargeForTheLogIsAnsweredUnknownServerErrorAndChangesNothing() throws Exception {
        TxnFixture f = new TxnFixture();
        f.init(ID, T0);
        f.logOf(ID).tooLargeAppends = 1;
        List<InitProducerIdResult> answers = new ArrayList<>();
        String rule = "a record too large for the log's segments (BatchTooLargeException, not an IOException) is"
                + " UNKNOWN_SERVER_ERROR, caught like a failed write: the transition is abandoned";
        assertThatCode(() -> answers.add(f.init(ID, T0 + 1))).as(rule).doesNotThrowAnyException();
        assertThat(answers.get(0).error()).as(rule).isEqualTo(TxnError.UNKNOWN_SERVER_ERROR);
        assertThat(f.coordinator.pendingState(ID)).as("and is not left in flight (every later request would be"
                + " CONCURRENT_TRANSACTIONS)").isEmpty();
        assertThat(f.init(ID, T0 + 2).producerEpoch()).as("the next InitProducerId bumps 0 to 1").isEqualTo((short) 1);
    }

    @Test
    void aRecordThatDoesNotDecodeStopsTheLoad() throws Exception {
        MemoryStateLog log = new MemoryStateLog();
        log.append(TransactionLog.record("a", ongoing((short) 0, ORDERS_0), T0));
        byte[] bad = TransactionLog.valueBytes(ongoing((short) 0, ORDERS_0));
        bad[2 + 8 + 2 + 4] = 42;
        log.appendRaw(TransactionLog.keyBytes("b"), bad);
        TransactionCoordinator coordinator = new TransactionCoordinator(TxnConfig.defaults(), () -> 1, new HeldMarkers(),
                TransactionCoordinator::kafkaOffsetsPartition);
        assertThat(catchThrowable(() -> coordinator.load(0, 0, log, T0))).as("the states of the partition's ids are unknown:"
                + " it is not coordinated, and the error names the record").isInstanceOf(CorruptTransactionLogException.class)
                .hasMessageContaining("offset 1");
        assertThat(coordinator.coordinates(0)).isFalse();
        MemoryStateLog keyless = new MemoryStateLog();
        keyless.appendRaw(null, bad);
        assertThat(catchThrowable(() -> TransactionLog.replay(keyless))).as("a record without a key").isInstanceOf(
                CorruptTransactionLogException.class);
    }

    @Test
    void theReplayEndsWithEachIdsLastWrittenState() {
        Gen3 gen = new Gen3();
        Property.forAll(Gens.lists(gen.step(), 0, 30)).tries(150).check(steps -> {
            MemoryStateLog log = new MemoryStateLog();
            Map<String, TxnTransit> model = new TreeMap<>();
            for (Object[] step : steps) {
                String id = (String) step[0];
                TxnTransit t = (TxnTransit) step[1];
                if (t == null) {
                    log.appendRaw(TransactionLog.keyBytes(id), null);
                    model.remove(id);
                } else {
                    log.append(TransactionLog.record(id, t, T0));
                    model.put(id, withoutMemoryFields(t));
                }
            }
            Judge.agree("the records " + describe(steps), "replayed states", TransactionLog.replay(log), "the model gives",
                    model, "each id's last record wins, a tombstone removes the id");
        });
    }

    /** Steps of a log: a record of one of three ids, or a tombstone. */
    private static final class Gen3 {
        kaenlog.testkit.property.Gen<Object[]> step() {
            return Gens.elements("a", "b", "c").zip(Gens.nullOr(TxnGens.transits(), 4), (id, t) -> new Object[] {id, t});
        }
    }

    private static String describe(List<Object[]> steps) {
        List<String> out = new ArrayList<>();
        for (Object[] s : steps) {
            out.add(s[0] + ":" + (s[1] == null ? "tombstone" : ((TxnTransit) s[1]).state() + "/" + ((TxnTransit) s[1]).producerEpoch()));
        }
        return out.toString();
    }

    /** What the log holds of a transition: the previous producer id and the last epoch stay in memory (-1 when read). */
    static TxnTransit withoutMemoryFields(TxnTransit t) {
        return new TxnTransit(t.producerId(), TxnTransit.NO_PRODUCER_ID, t.producerEpoch(), TxnTransit.NO_PRODUCER_EPOCH,
                t.txnTimeoutMs(), t.state(), t.state() == TransactionState.EMPTY ? TxnTransit.sorted(Set.of())
                : TxnTransit.sorted(new HashSet<>(t.partitions())), t.txnStartTimestamp(), t.txnLastUpdateTimestamp());
    }
}
