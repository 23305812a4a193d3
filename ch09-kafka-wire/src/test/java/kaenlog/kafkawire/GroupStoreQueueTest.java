package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The queue of the groups' metadata records on their way to the offsets log (given code,
 * {@link GroupStoreQueue}): appends that do not drain (a slow disk, acks=all in a cluster) must not
 * let a client grow it without limit. Runs after the tasks.
 */
@Order(14)
@PassesOnSkeleton("given code: the groups' store queue uses no exercise")
class GroupStoreQueueTest {
    private static final int BOUND = 3;
    private final List<String> lines = new ArrayList<>();
    /** Appends wait on it: the log takes nothing until the test lets it. */
    private final CountDownLatch logTakes = new CountDownLatch(1);
    private final GroupStoreQueue queue = new GroupStoreQueue(BOUND, 1_000, line -> {
        synchronized (lines) {
            lines.add(line);
        }
    });

    @AfterEach
    void close() {
        logTakes.countDown();
        queue.close();
    }

    private short blockedAppend() {
        try {
            logTakes.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return KafkaErrors.NONE;
    }

    @Test
    void recordsOverTheBoundAreRefusedAtOnceAndTheQueueNeverHoldsMore() {
        List<CompletableFuture<Short>> answers = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            answers.add(queue.submit("g" + i, 10, this::blockedAppend));
            assertThat(queue.queued()).as("records queued or being appended, after %d stores, while the log takes"
                    + " none: never more than the bound, or a client grows the broker's memory without limit", i + 1)
                    .isLessThanOrEqualTo(BOUND);
        }
        assertThat(answers.subList(0, BOUND)).as("the first records, within the bound, wait for the log")
                .allSatisfy(answer -> assertThat(answer).isNotDone());
        assertThat(answers.subList(BOUND, 10)).as("every record over the bound is answered at once, never made to"
                + " wait for room (its caller may hold the groups' lock), with COORDINATOR_NOT_AVAILABLE: a SyncGroup"
                + " answers it and its group rebalances").allSatisfy(answer -> assertThat(answer)
                .isCompletedWithValue(KafkaErrors.COORDINATOR_NOT_AVAILABLE));
        synchronized (lines) {
            assertThat(lines).as("a line names the group whose record was refused").anySatisfy(line ->
                    assertThat(line).contains("group 'g3'").contains("refused"));
        }

        logTakes.countDown();
        assertThat(answers.subList(0, BOUND)).as("once the log takes them, the records queued are written, in order")
                .allSatisfy(answer -> assertThat(answer.join()).isEqualTo(KafkaErrors.NONE));
        assertThat(queue.queued()).as("and the queue is empty again").isZero();
        assertThat(queue.submit("g", 10, () -> KafkaErrors.NONE).join()).as("so a new record is taken")
                .isEqualTo(KafkaErrors.NONE);
    }

    @Test
    void recordsOverTheByteBoundAreRefusedButOneAloneIsAlwaysTaken() {
        CompletableFuture<Short> big = queue.submit("big", 5_000, this::blockedAppend);
        assertThat(big).as("a record larger than the byte bound, into an empty queue, is taken: it waits alone")
                .isNotDone();
        assertThat(queue.submit("small", 10, this::blockedAppend)).as("behind it, the bytes waiting would be over"
                + " the bound (max.group.bytes): refused at once").isCompletedWithValue(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        logTakes.countDown();
        assertThat(big.join()).isEqualTo(KafkaErrors.NONE);
    }

    @Test
    void anAppendThatThrowsIsStillAnswered() {
        CompletableFuture<Short> answer = queue.submit("g", 10, () -> {
            throw new IllegalStateException("boom");
        });
        assertThat(answer.join()).as("a member waiting for its record is answered, never left hanging")
                .isEqualTo(KafkaErrors.COORDINATOR_NOT_AVAILABLE);
        assertThat(queue.queued()).as("and the record no longer counts").isZero();
    }
}
