package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import kaenlog.batch.ControlRecordType;
import kaenlog.batch.EndTransactionMarker;
import kaenlog.log.Log;
import kaenlog.wire.ErrorCode;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partition's side of the fence (given code, {@code TransactionalAppendHook.checkProducerEpoch}),
 * as Kafka's {@code ProducerAppendInfo.checkProducerEpoch} and {@code checkSequence}: a batch of an
 * epoch older than the newest its producer id wrote here (a marker's included) is refused
 * INVALID_PRODUCER_EPOCH; a newer epoch starts at sequence 0, and only there; a reopened partition
 * knows the epochs again from its segments, and a marker is no batch of chapter 7's window there either.
 */
@Order(24)
class ProducerEpochFenceTest {
    private static final long PRODUCER = 7;

    @TempDir
    Path dir;

    private static ByteBuffer batch(short epoch, int sequence, String value) {
        return MemoryRecords.withTransactionalRecords(0L, Compression.NONE, PRODUCER, epoch, sequence, 0,
                new SimpleRecord(TransactionalLogs.T0, value.getBytes())).buffer();
    }

    private static void fenceMarker(Log log, short epoch) throws Exception {
        log.append(new EndTransactionMarker(ControlRecordType.ABORT, 0).controlBatch(PRODUCER, epoch, TransactionalLogs.T0));
    }

    private static ErrorCode refusal(Log log, ByteBuffer batch) {
        ProduceRefusedException refused = catchThrowableOfType(ProduceRefusedException.class, () -> log.append(batch));
        return refused == null ? ErrorCode.NONE : refused.error();
    }

    @Test
    void aBatchOfAnEpochOlderThanTheFencesMarkerIsRefusedAndANewEpochStartsAtSequenceZero() throws Exception {
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            log.append(batch((short) 0, 0, "zombie-0"));
            log.append(batch((short) 0, 1, "zombie-1"));
            fenceMarker(log, (short) 1); // the coordinator's fence: ABORT at the bumped epoch
            long end = log.logEndOffset();
            assertThat(refusal(log, batch((short) 0, 2, "zombie-late"))).as("a batch of epoch 0 after a marker of"
                    + " epoch 1 is a fenced zombie's: INVALID_PRODUCER_EPOCH, nothing written")
                    .isEqualTo(ErrorCode.INVALID_PRODUCER_EPOCH);
            assertThat(log.logEndOffset()).as("the refused batch is not in the log").isEqualTo(end);
            assertThat(refusal(log, batch((short) 2, 5, "successor-5"))).as("a new epoch must start at sequence 0")
                    .isEqualTo(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
            assertThat(refusal(log, batch((short) 2, 0, "successor-0"))).as("the successor's epoch 2 starts at"
                    + " sequence 0, whatever epoch 0 had reached: chapter 7's window of the old epoch is forgotten")
                    .isEqualTo(ErrorCode.NONE);
            assertThat(refusal(log, batch((short) 2, 1, "successor-1"))).as("and goes on from there")
                    .isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void aReopenedPartitionStillRefusesTheOlderEpoch() throws Exception {
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            log.append(batch((short) 0, 0, "zombie-0"));
            fenceMarker(log, (short) 1);
        }
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            assertThat(refusal(log, batch((short) 0, 1, "zombie-late"))).as("the epochs are rebuilt from the segments"
                    + " at the first use after an open: the fence's marker still fences epoch 0")
                    .isEqualTo(ErrorCode.INVALID_PRODUCER_EPOCH);
            assertThat(refusal(log, batch((short) 2, 0, "successor-0"))).as("a new epoch at sequence 0 is taken")
                    .isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void aTransactionalProducerGoesOnAfterItsMarkerWhenThePartitionIsReopened() throws Exception {
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            log.append(batch((short) 0, 0, "first-0"));
            log.append(batch((short) 0, 1, "first-1"));
            log.append(new EndTransactionMarker(ControlRecordType.COMMIT, 0).controlBatch(PRODUCER, (short) 0,
                    TransactionalLogs.T0));
        }
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            assertThat(refusal(log, batch((short) 0, 2, "second-2"))).as("the producer's next transaction goes on at"
                    + " sequence 2 after a restart: a marker (sequence -1) is no batch of chapter 7's window, when it is"
                    + " appended or when the window is rebuilt from the segment").isEqualTo(ErrorCode.NONE);
        }
    }

    @Test
    void aMarkerFromAnOlderCoordinatorEpochIsRefusedAlsoAfterTheOpen() throws Exception {
        ByteBuffer zombie = new EndTransactionMarker(ControlRecordType.ABORT, 3).controlBatch(PRODUCER, (short) 0,
                TransactionalLogs.T0);
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            log.append(batch((short) 0, 0, "order-0"));
            log.append(new EndTransactionMarker(ControlRecordType.COMMIT, 4).controlBatch(PRODUCER, (short) 0,
                    TransactionalLogs.T0)); // the new coordinator's (epoch 4) COMMIT
            long end = log.logEndOffset();
            assertThat(refusal(log, zombie.duplicate())).as("an ABORT from coordinator epoch 3 after a COMMIT of epoch 4"
                    + " comes from a coordinator that lost its partition: TRANSACTION_COORDINATOR_FENCED (Kafka's"
                    + " ProducerAppendInfo.checkCoordinatorEpoch), nothing written").isEqualTo(
                    ErrorCode.TRANSACTION_COORDINATOR_FENCED);
            assertThat(log.logEndOffset()).as("the zombie's marker is not in the log").isEqualTo(end);
            assertThat(refusal(log, new EndTransactionMarker(ControlRecordType.COMMIT, 4).controlBatch(PRODUCER,
                    (short) 0, TransactionalLogs.T0))).as("the same coordinator epoch again is taken (a marker sent"
                    + " twice after a reload)").isEqualTo(ErrorCode.NONE);
        }
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            assertThat(refusal(log, zombie.duplicate())).as("the coordinator epochs are rebuilt from the segments")
                    .isEqualTo(ErrorCode.TRANSACTION_COORDINATOR_FENCED);
        }
    }
}
