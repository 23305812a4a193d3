package kaenlog.broker;

import static kaenlog.log.LogFixtures.T0;
import static kaenlog.log.LogFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kaenlog.log.LogConfig;
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
 * Fail-stop at the partition, around your produce (task 7) and fetch (task 8): given code that
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
                    "acks=all with one replica is answered as soon as the leader appended (task 7)").error())
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
}
