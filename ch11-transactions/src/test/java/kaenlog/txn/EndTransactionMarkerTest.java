package kaenlog.txn;

import static kaenlog.txn.TxnFixture.ID;
import static kaenlog.txn.TxnFixture.ORDERS_0;
import static kaenlog.txn.TxnFixture.ORDERS_1;
import static kaenlog.txn.TxnFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.IdempotentAppendHook;
import kaenlog.broker.Partition;
import kaenlog.idem.Idempotence;
import kaenlog.log.FetchIsolation;
import kaenlog.log.LogConfig;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 6: the marker, a control batch (transactional and control bits, the producer's id and epoch,
 * base sequence -1) holding one control record: key version 0 and type (ABORT 0, COMMIT 1), value
 * version 0 and the coordinator epoch. On one broker the coordinator appends one to each partition
 * of the transaction, through chapter 3's append.
 */
@Order(6)
class EndTransactionMarkerTest {
    private static final long PID = 1000;
    private static final short EPOCH = 3;

    @TempDir
    Path dir;
    private final Map<String, Partition> partitions = new HashMap<>();

    @AfterEach
    void close() throws Exception {
        for (Partition p : partitions.values()) {
            p.close();
        }
    }

    private Partition partition(String name) throws Exception {
        Partition p = Partition.open(name, dir.resolve(name), LogConfig.defaults());
        partitions.put(name, p);
        return p;
    }

    private static org.apache.kafka.common.record.ControlRecordType kafkas(ControlRecordType type) {
        return org.apache.kafka.common.record.ControlRecordType.valueOf(type.name());
    }

    private static ByteBuffer kafkasBatch(long pid, short epoch, long timestamp, ControlRecordType type, int coordinatorEpoch) {
        return MemoryRecords.withEndTransactionMarker(0L, timestamp, BatchHeader.NO_PARTITION_LEADER_EPOCH, pid, epoch,
                new org.apache.kafka.common.record.EndTransactionMarker(kafkas(type), coordinatorEpoch)).buffer();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void theKeyIsItsVersionThenTheType() {
        assertThat(new EndTransactionMarker(ControlRecordType.COMMIT, 0).key()).as("version 0, COMMIT is 1 (Kafka's"
                + " ControlRecordType)").containsExactly(0, 0, 0, 1);
        assertThat(new EndTransactionMarker(ControlRecordType.ABORT, 0).key()).as("version 0, ABORT is 0")
                .containsExactly(0, 0, 0, 0);
    }

    @Test
    void theValueIsItsVersionThenTheCoordinatorEpoch() {
        EndTransactionMarker marker = new EndTransactionMarker(ControlRecordType.COMMIT, 258);
        assertThat(marker.value()).as("version 0 (int16), coordinator epoch 258 (int32)").containsExactly(0, 0, 0, 0, 1, 2);
        assertThat(marker.value()).as("what Kafka's EndTransactionMarker serialises").isEqualTo(bytes(
                new org.apache.kafka.common.record.EndTransactionMarker(
                        org.apache.kafka.common.record.ControlRecordType.COMMIT, 258).serializeValue()));
    }

    @Test
    void theBatchIsTransactionalAndControlWithTheProducerAndNoSequence() {
        ByteBuffer batch = new EndTransactionMarker(ControlRecordType.ABORT, 5).controlBatch(PID, EPOCH, T0);
        BatchHeader header = RecordBatch.validate(batch.duplicate());
        assertThat(header.isControl()).as("the control bit (0x20): a reader never hands this record out as data").isTrue();
        assertThat(header.isTransactional()).as("the transactional bit (0x10): it belongs to the producer's transaction")
                .isTrue();
        assertThat(header.producerId()).as("the producer whose transaction it ends").isEqualTo(PID);
        assertThat(header.producerEpoch()).isEqualTo(EPOCH);
        assertThat(header.baseSequence()).as("a marker takes no sequence number: the producer's next batch keeps its own")
                .isEqualTo(BatchHeader.NO_SEQUENCE);
        assertThat(header.recordCount()).as("one control record").isEqualTo(1);
    }

    @Test
    void everyControlBatchIsWhatKafkaWritesByteForByte() {
        Property.forAll(Gens.longs(0, Long.MAX_VALUE).zip(Gens.ints(0, Short.MAX_VALUE), (pid, epoch) -> new long[] {pid, epoch})
                .zip(Gens.longs(0, Long.MAX_VALUE).zip(Gens.ints(), (ts, ce) -> new long[] {ts, ce}),
                        (a, b) -> new long[] {a[0], a[1], b[0], b[1]})
                .zip(Gens.elements(ControlRecordType.COMMIT, ControlRecordType.ABORT), (v, type) -> new Object[] {v, type}))
                .tries(200).check(input -> {
                    long[] v = (long[]) input[0];
                    ControlRecordType type = (ControlRecordType) input[1];
                    EndTransactionMarker marker = new EndTransactionMarker(type, (int) v[3]);
                    byte[] ours = bytes(marker.controlBatch(v[0], (short) v[1], v[2]));
                    byte[] kafkas = bytes(kafkasBatch(v[0], (short) v[1], v[2], type, (int) v[3]));
                    Judge.agree(type + " marker of producer " + v[0] + " epoch " + v[1] + " at " + v[2] + ", coordinator"
                                    + " epoch " + v[3], "control batch", ours,
                            "MemoryRecords.withEndTransactionMarker writes", kafkas,
                            "a batch of one control record: attributes 0x30, producer id and epoch, base sequence -1,"
                                    + " CreateTime, key (0, type), value (0, coordinator epoch)");
                    Record read = RecordBatch.decode(ByteBuffer.wrap(kafkas)).records().get(0);
                    Judge.agree("Kafka's " + type + " marker", "reading", EndTransactionMarker.read(read),
                            "EndTransactionMarker.deserialize reads", marker, "the key's type, the value's coordinator epoch");
                });
    }

    @Test
    void kafkaReadsOurMarker() {
        ByteBuffer ours = new EndTransactionMarker(ControlRecordType.COMMIT, 7).controlBatch(PID, EPOCH, T0);
        MutableRecordBatch batch = MemoryRecords.readableRecords(ours).batches().iterator().next();
        batch.ensureValid();
        assertThat(batch.isControlBatch()).as("Kafka sees a control batch").isTrue();
        org.apache.kafka.common.record.EndTransactionMarker kafkas =
                org.apache.kafka.common.record.EndTransactionMarker.deserialize(batch.iterator().next());
        assertThat(kafkas.controlType()).isEqualTo(org.apache.kafka.common.record.ControlRecordType.COMMIT);
        assertThat(kafkas.coordinatorEpoch()).isEqualTo(7);
    }

    @Test
    void aControlRecordThatIsNoMarkerIsRefused() {
        Record leaderChange = new Record(0, T0, new byte[] {0, 0, 0, 2}, new byte[] {0, 0, 0, 0, 0, 1}, List.of());
        assertThat(catchThrowable(() -> EndTransactionMarker.read(leaderChange))).as("type 2 (KRaft's LEADER_CHANGE) ends no"
                + " transaction").isInstanceOf(CorruptBatchException.class).hasMessageContaining("type 2");
        Record shortKey = new Record(0, T0, new byte[] {0, 0, 1}, new byte[] {0, 0, 0, 0, 0, 1}, List.of());
        assertThat(catchThrowable(() -> EndTransactionMarker.read(shortKey))).as("a key of 3 bytes").isInstanceOf(
                CorruptBatchException.class);
        Record badValue = new Record(0, T0, new byte[] {0, 0, 0, 1}, new byte[] {(byte) 0xff, (byte) 0xff, 0, 0, 0, 1},
                List.of());
        assertThat(catchThrowable(() -> EndTransactionMarker.read(badValue))).as("value version -1 (Kafka: data corruption)")
                .isInstanceOf(CorruptBatchException.class).hasMessageContaining("version");
        Record noValue = new Record(0, T0, new byte[] {0, 0, 0, 1}, null, List.of());
        assertThat(catchThrowable(() -> EndTransactionMarker.read(noValue))).isInstanceOf(CorruptBatchException.class);
        Record shortValue = new Record(0, T0, new byte[] {0, 0, 0, 1}, new byte[] {0, 0, 0, 0, 9}, List.of());
        assertThat(catchThrowable(() -> EndTransactionMarker.read(shortValue))).as("a value of 5 bytes: the version's 2"
                + " and the coordinator epoch's 4 make at least 6 (not the key's 4), refused naming the value")
                .isInstanceOf(CorruptBatchException.class).hasMessageContaining("value");
    }

    @Test
    void aNewerKeyOrValueVersionIsReadAsVersionZero() {
        Record newer = new Record(0, T0, new byte[] {0, 1, 0, 1}, new byte[] {0, 3, 0, 0, 0, 9, 42, 42}, List.of());
        assertThat(EndTransactionMarker.read(newer)).as("Kafka parses a newer version as the one it knows, its extra"
                + " bytes left alone").isEqualTo(new EndTransactionMarker(ControlRecordType.COMMIT, 9));
    }

    private static Record lastRecord(Partition p) throws Exception {
        ByteBuffer all = p.locked(log -> log.read(log.logStartOffset(), Integer.MAX_VALUE, FetchIsolation.LOG_END));
        List<RecordBatch> batches = RecordBatch.decodeAll(all);
        RecordBatch last = batches.get(batches.size() - 1);
        assertThat(last.header().isControl()).as("the partition's last batch is a control batch").isTrue();
        return last.records().get(0);
    }

    @Test
    void onOneBrokerACommitEndsWithAMarkerInEveryPartition() throws Exception {
        Partition orders0 = partition("orders-0");
        Partition orders1 = partition("orders-1");
        MemoryStateLog stateLog = new MemoryStateLog();
        long[] ids = {1000};
        TransactionCoordinator coordinator = new TransactionCoordinator(TxnConfig.defaults(), () -> ids[0]++,
                new LocalMarkers(name -> Optional.ofNullable(partitions.get(name))),
                TransactionCoordinator::kafkaOffsetsPartition);
        coordinator.load(coordinator.partitionFor(ID), 4, stateLog, T0);
        InitProducerIdResult producer = coordinator.initProducerId(new InitProducerIdRequest(ID, 60_000), T0);
        assertThat(coordinator.addPartitions(new AddPartitionsRequest(ID, producer.producerId(), producer.producerEpoch(),
                Set.of(ORDERS_0, ORDERS_1)), T0 + 1)).isEqualTo(TxnError.NONE);
        for (Partition p : List.of(orders0, orders1)) {
            p.locked(log -> log.append(Idempotence.producerBatch(producer.producerId(), producer.producerEpoch(), 0,
                    List.of("a", "b"), T0)));
        }
        assertThat(coordinator.endTxn(new EndTxnRequest(ID, producer.producerId(), producer.producerEpoch(),
                TransactionResult.COMMIT), T0 + 5)).isEqualTo(TxnError.NONE);
        for (Partition p : List.of(orders0, orders1)) {
            Record marker = lastRecord(p);
            assertThat(EndTransactionMarker.read(marker)).as("%s ends with the COMMIT marker, coordinator epoch 4", p.name())
                    .isEqualTo(new EndTransactionMarker(ControlRecordType.COMMIT, 4));
            assertThat(marker.offset()).as("after the producer's two records").isEqualTo(2);
        }
        assertThat(coordinator.transaction(ID).orElseThrow().state()).as("one broker writes its markers at once:"
                + " the transaction is complete").isEqualTo(TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void aPartitionNoOneCreatedGetsNoMarkerAndIsNotCreated() throws Exception {
        partition("orders-0");
        List<String> written = new ArrayList<>();
        new LocalMarkers(name -> Optional.ofNullable(partitions.get(name))).send(new TxnMarker(ID, PID, EPOCH, 0,
                TransactionResult.ABORT, TxnTransit.sorted(Set.of(ORDERS_0, ORDERS_1))), T0, new MarkerChannel.Results() {
                    @Override
                    public void written(TxnMarker marker, kaenlog.wire.PartitionNames.TopicPartition partition) {
                        written.add(partition.name());
                    }

                    @Override
                    public void failed(TxnMarker marker, kaenlog.wire.PartitionNames.TopicPartition partition, String why) {
                        written.add("failed " + partition.name());
                    }
                });
        assertThat(written).as("orders-1 does not exist (a deleted topic's partition): done, as Kafka skips it")
                .containsExactly("orders-0", "orders-1");
        assertThat(partitions).as("no partition was created for the marker").containsOnlyKeys("orders-0");
    }

    @Test
    void aMarkerPassesChapter7sIdempotentAppendAndLeavesTheWindowAlone() throws Exception {
        Partition p = partition("orders-0");
        p.setAppendHook(new IdempotentAppendHook());
        p.locked(log -> log.append(Idempotence.producerBatch(PID, EPOCH, 0, List.of("a", "b", "c"), T0)));
        p.locked(log -> log.append(new EndTransactionMarker(ControlRecordType.COMMIT, 0).controlBatch(PID, EPOCH, T0 + 1)));
        p.locked(log -> log.append(Idempotence.producerBatch(PID, EPOCH, 3, List.of("d"), T0 + 2)));
        long logEnd = p.locked(log -> log.logEndOffset());
        assertThat(logEnd).as("3 records, the marker (its sequence -1 is no gap), then"
                + " sequence 3 still in sequence").isEqualTo(5);
    }

    @Test
    void kafkasDumpLogSegmentsReadsTheMarker() throws Exception {
        Partition p = partition("orders-0");
        p.locked(log -> log.append(Idempotence.producerBatch(PID, EPOCH, 0, List.of("a"), T0)));
        p.locked(log -> log.append(new EndTransactionMarker(ControlRecordType.ABORT, 3).controlBatch(PID, EPOCH, T0 + 1)));
        p.locked(log -> {
            log.flush();
            return null;
        });
        String output = DumpLogSegments.run(dir.resolve("orders-0").resolve("00000000000000000000.log"),
                "--deep-iteration");
        assertThat(output).as("DumpLogSegments --deep-iteration on our segment:%n%s", output)
                .contains("isTransactional: true isControl: true")
                .contains("endTxnMarker: ABORT coordinatorEpoch: 3")
                .doesNotContain("Exception");
    }
}
