package kaenlog.broker;

import static kaenlog.log.LogFixtures.T0;
import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.Segment;
import kaenlog.log.StorageException;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fail-stop at the partition, around your produce, task 7 (ProduceTest),
 * and your fetch, task 8 (FetchParkingTest): given code that
 * takes a partition offline at its first failed write. It runs after the tasks, since it needs both.
 * A partition answers on the caller's thread, so every answer is looked at with {@link Waits#now}:
 * a future that is not done now never will be, and {@code join()} on it would wait forever.
 */
@Order(10)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PartitionFailStopTest {
    private static final String NAME = "orders-0";
    private static final int TIMEOUT_MS = 1_000;

    @TempDir
    Path dir;

    private static ProduceRequest request(short acks, ByteBuffer records) {
        return new ProduceRequest(NAME, acks, TIMEOUT_MS, records);
    }

    /**
     * Fail-stop at the partition: a write that fails (here the roll's index cannot be made, where
     * in life the disk is full or out of inodes) is answered STORAGE_ERROR, the broker's log gets
     * one line naming the partition, the file and the cause, and from then on every produce and
     * fetch is answered STORAGE_ERROR without touching the files.
     */
    @Test
    void aStorageErrorTakesThePartitionOfflineWithOneLogLineAndATypedAnswerForEveryRequest() throws IOException {
        Path partitionDir = dir.resolve("offline");
        int size = numbered(0, 1).remaining();
        List<String> brokerLog = new ArrayList<>();
        try (Partition partition = Partition.open(NAME, partitionDir, LogConfig.defaults().withSegmentBytes(size),
                brokerLog::add)) {
            assertThat(Waits.now(partition.produce(request(ProduceRequest.ACKS_ALL, numbered(0, 1)), T0),
                    "acks=all with one replica is answered as soon as the leader appended (task 7 (ProduceTest))").error())
                    .as("setup: the first produce is written").isEqualTo(ErrorCode.NONE);
            CompletableFuture<FetchResponse> parked = partition.fetch(FetchRequest.consumer(NAME, 1, 1024, 500), T0);
            assertThat(parked).as("setup: a fetch waits for offset 1").isNotDone();
            Files.createDirectory(partitionDir.resolve(kaenlog.log.Segment.fileName(1, kaenlog.log.Segment.INDEX_SUFFIX)));

            ProduceResponse failed = Waits.now(partition.produce(request(ProduceRequest.ACKS_ALL, numbered(1, 1)), T0),
                    "a produce whose write fails is answered at once, STORAGE_ERROR: there is nothing to wait for");
            assertThat(failed.error()).as("the roll before offset 1 fails: the produce is answered STORAGE_ERROR")
                    .isEqualTo(ErrorCode.STORAGE_ERROR);
            assertThat(brokerLog).as("one line in the broker's log names the partition, the file and the cause")
                    .singleElement().satisfies(line -> assertThat(line).contains(NAME).contains("offline")
                            .contains("00000000000000000001.index"));
            assertThat(Waits.now(partition.produce(request(ProduceRequest.ACKS_LEADER, numbered(2, 1)), T0),
                    "an offline partition answers a produce at once").error())
                    .as("fail-stop: the next produce too").isEqualTo(ErrorCode.STORAGE_ERROR);
            assertThat(Waits.now(partition.fetch(FetchRequest.consumer(NAME, 0, 1024, 0), T0),
                    "an offline partition answers a fetch at once").error())
                    .as("and a fetch").isEqualTo(ErrorCode.STORAGE_ERROR);
            partition.tick(T0 + 500);
            assertThat(Waits.now(parked, "tick(T0 + 500) is the deadline of the fetch parked at T0 with max wait 500:"
                    + " it is answered now; %s", Waits.NOT_EXPIRED).error())
                    .as("a fetch parked before the failure is answered STORAGE_ERROR at its deadline (and the tick"
                            + " that answers it does not fail)")
                    .isEqualTo(ErrorCode.STORAGE_ERROR);
            assertThat(brokerLog).as("still one line: the partition went offline once").hasSize(1);
        }
    }

    /**
     * A roll does not force the segment it closes under the partition's lock, where every produce
     * and fetch of the partition would wait for the {@code fsync} (65 ms and more for a segment of
     * 128 MiB, at every roll: the tail of the latency bench): the produce that rolls is answered
     * with the recovery point where it was, and the next tick forces the closed segment without the
     * lock and only then moves the recovery point to the roll's base offset (Kafka's
     * {@code UnifiedLog.roll} schedules its "flush-log" task the same way).
     */
    @Test
    void aRollLeavesTheForceOfTheClosedSegmentToTheTickAndOnlyThenMovesTheRecoveryPoint() throws IOException {
        int size = numbered(0, 1).remaining();
        try (Partition partition = Partition.open(NAME, dir.resolve("roll"), LogConfig.defaults().withSegmentBytes(size))) {
            for (int i = 0; i < 3; i++) {
                assertThat(Waits.now(partition.produce(request(ProduceRequest.ACKS_ALL, numbered(i, 1)), T0),
                        "acks=all with one replica is answered as soon as the leader appended").error())
                        .as("setup: produce %d is written, each in a segment of its own", i).isEqualTo(ErrorCode.NONE);
            }
            assertThat(partition.<Long>locked(Log::recoveryPoint))
                    .as("the produces that rolled were answered without forcing the closed segments: the recovery"
                            + " point has not moved (a roll that forces under the partition's lock stalls the partition)")
                    .isZero();
            assertThat(partition.<Long>locked(log -> log.pendingFlush().map(Log.PendingFlush::end).orElse(-1L)))
                    .as("the force is left to do, up to the last roll's base offset").isEqualTo(2);
            Path bases = dir.resolve("roll").resolve(Log.SEGMENT_BASES_FILE);
            assertThat(Files.exists(bases)).as("and so is the record of the segments: forcing %s under the lock held"
                    + " every follower's fetch 75-150 ms at each roll", Log.SEGMENT_BASES_FILE).isFalse();
            partition.tick(T0);
            assertThat(partition.<Long>locked(Log::recoveryPoint))
                    .as("the tick forced segments 0 and 1 and moved the recovery point to the last roll's base")
                    .isEqualTo(2);
            assertThat(Files.readString(dir.resolve("roll").resolve(Log.RECOVERY_POINT_FILE)).strip())
                    .as("and wrote it to the checkpoint file").isEqualTo("2");
            assertThat(Files.readAllLines(bases)).as("the tick recorded the segments too, before the recovery point")
                    .containsExactly("0", "1", "2");
            assertThat(partition.<Optional<Log.PendingFlush>>locked(Log::pendingFlush)).as("nothing is left to force").isEmpty();
        }
    }

    /**
     * The broker stops its ticker with an interrupt, and an interrupt in {@code FileChannel.force}
     * closes the channel: the force a tick runs must not use the segments' own channels, nor take
     * the partition offline for it. Interrupted, the tick moves nothing, keeps the interrupt for the
     * ticker's loop, and the partition's close still flushes and marks a clean shutdown.
     */
    @Test
    void aTickInterruptedInItsForceLeavesThePartitionWholeAndItsCloseFlushes() throws IOException {
        Path partitionDir = dir.resolve("interrupted");
        int size = numbered(0, 1).remaining();
        Partition partition = Partition.open(NAME, partitionDir, LogConfig.defaults().withSegmentBytes(size));
        try {
            for (int i = 0; i < 3; i++) {
                assertThat(Waits.now(partition.produce(request(ProduceRequest.ACKS_ALL, numbered(i, 1)), T0),
                        "acks=all with one replica is answered as soon as the leader appended").error())
                        .as("setup: produce %d is written", i).isEqualTo(ErrorCode.NONE);
            }
            Thread.currentThread().interrupt();
            partition.tick(T0);
            assertThat(Thread.interrupted()).as("the interrupt is kept: the ticker's loop stops on it").isTrue();
            assertThat(partition.isOffline()).as("an interrupted force is no storage error").isFalse();
            assertThat(partition.<Long>locked(Log::recoveryPoint)).as("and moves no recovery point").isZero();
        } finally {
            Thread.interrupted();
            partition.close();
        }
        assertThat(Files.exists(partitionDir.resolve(Log.CLEAN_SHUTDOWN_FILE)))
                .as("the segments' own channels are still open: the close flushes and marks a clean shutdown").isTrue();
        assertThat(Files.readString(partitionDir.resolve(Log.RECOVERY_POINT_FILE)).strip())
                .as("with the recovery point at the log end offset").isEqualTo("3");
    }

    /**
     * The force runs without the lock, so the log may change under it. A truncation that overtook
     * it: the force, when it ends, moves no recovery point (the offsets below its end may hold other
     * batches by then, written after the truncation and never forced). A segment that went while it
     * was forced (a truncation, retention or compaction closed it, so the force failed): no fail-stop,
     * the next force takes what is there. A force that fails on segments all still there: fail-stop.
     */
    @Test
    void aForceThatATruncationOvertookMovesNoRecoveryPointAndAFailedOneStopsTheLogOnlyIfItsSegmentsAreThere()
            throws IOException {
        int size = numbered(0, 1).remaining();
        try (Log log = Log.open(dir.resolve("truncated"), LogConfig.defaults().withSegmentBytes(size))) {
            for (int i = 0; i < 3; i++) {
                log.append(numbered(i, 1));
            }
            Log.PendingFlush overtaken = log.pendingFlush().orElseThrow();
            overtaken.force();
            log.truncateTo(1);
            log.append(numbered(1, 1));
            log.checkpointFlushed(overtaken);
            log.completeFlush(overtaken, null);
            assertThat(log.recoveryPoint()).as("offset 1 was truncated and written again while the force ran:"
                    + " the force claims nothing when it ends").isZero();
            Path checkpoint = dir.resolve("truncated").resolve(Log.RECOVERY_POINT_FILE);
            assertThat(Files.exists(checkpoint) ? Files.readString(checkpoint).strip() : "0")
                    .as("nor in the recovery point's file").isEqualTo("0");
            assertThat(Files.readAllLines(dir.resolve("truncated").resolve(Log.SEGMENT_BASES_FILE)))
                    .as("nor is its record of the segments written: it listed segments 1 and 2, which the truncation"
                            + " removed (a record of a segment not on disk is a loss at the next open)")
                    .containsExactly("0");
            log.completeFlush(overtaken, new IOException("closed under the force"));
            assertThat(log.offline()).as("its segment 1 went meanwhile: a failed force of it is no storage error")
                    .isEmpty();
            Log.PendingFlush next = log.pendingFlush().orElseThrow();
            next.force();
            log.completeFlush(next, null);
            assertThat(log.recoveryPoint()).as("a force begun after the truncation moves it to the roll's base, 1")
                    .isEqualTo(1);
            log.append(numbered(2, 1));
            Log.PendingFlush failing = log.pendingFlush().orElseThrow();
            assertThatThrownBy(() -> log.completeFlush(failing, new IOException("EIO")))
                    .as("the failure is thrown as a storage error").isInstanceOf(StorageException.class);
            assertThat(log.offline()).as("a force that failed on segments all still there takes the log offline")
                    .isPresent();
        }
    }

    /**
     * Retention under the partition's lock only takes the segment out of the log and renames its
     * files {@code .deleted}: the {@code fsync} of the log start offset's checkpoint and the unlink of
     * the files (69 ms for a segment of 128 MiB, every produce and fetch of the partition waiting:
     * the tail of the latency bench) are left to {@link Partition#finishDeletions}, which the tick
     * runs without the lock (Kafka's "delete-file" task). An unlink that fails there: fail-stop.
     */
    @Test
    void retentionUnderTheLockOnlyRenamesAndTheTickWritesTheLogStartThenUnlinks() throws IOException {
        Path partitionDir = dir.resolve("retention");
        int size = numbered(0, 1).remaining();
        List<String> brokerLog = new ArrayList<>();
        try (Partition partition = Partition.open(NAME, partitionDir, LogConfig.defaults().withSegmentBytes(size),
                brokerLog::add)) {
            for (int i = 0; i < 4; i++) {
                assertThat(Waits.now(partition.produce(request(ProduceRequest.ACKS_ALL, numbered(i, 1)), T0),
                        "acks=all with one replica is answered as soon as the leader appended").error())
                        .as("setup: produce %d is written, each in a segment of its own", i).isEqualTo(ErrorCode.NONE);
            }
            partition.locked(log -> {
                log.deleteSegment(log.segments().get(0));
                return null;
            });
            assertThat(partitionDir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX + ".deleted")))
                    .as("under the lock: segment 0's files renamed .deleted, not unlinked").exists();
            assertThat(partition.<Long>locked(Log::logStartOffset)).as("the log start moved at once").isEqualTo(1);
            assertThat(Files.exists(partitionDir.resolve(Log.LOG_START_OFFSET_FILE))).as("and the checkpoint is left"
                    + " for later: forcing it under the lock held every produce and fetch").isFalse();
            partition.tick(T0);
            assertThat(partitionDir.resolve(Segment.fileName(0, Segment.LOG_SUFFIX + ".deleted")))
                    .as("the tick unlinked segment 0's files, without the lock").doesNotExist();
            assertThat(Files.readString(partitionDir.resolve(Log.LOG_START_OFFSET_FILE)).strip())
                    .as("after it wrote the new log start").isEqualTo("1");

            partition.locked(log -> {
                log.deleteSegment(log.segments().get(0));
                return null;
            });
            Path stuck = partitionDir.resolve(Segment.fileName(1, Segment.INDEX_SUFFIX + ".deleted"));
            Files.delete(stuck);
            Files.createDirectories(stuck.resolve("in-the-way")); // a non-empty directory: the unlink fails
            partition.tick(T0);
            assertThat(partition.isOffline()).as("an unlink that fails is a storage error: fail-stop").isTrue();
            assertThat(brokerLog).as("one line names the partition and the file").singleElement()
                    .satisfies(line -> assertThat(line).contains(NAME).contains("offline")
                            .contains("00000000000000000001.index.deleted"));
        }
    }
}
