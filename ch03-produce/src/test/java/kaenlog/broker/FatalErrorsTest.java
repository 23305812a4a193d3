package kaenlog.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * klog serve never lives on serving no one: a thread that dies of an OutOfMemoryError stops the
 * process with a clear last line and exit status 3, as -XX:+ExitOnOutOfMemoryError does (given code).
 */
@Order(20)
@PassesOnSkeleton("FatalErrors is given code, not an exercise")
class FatalErrorsTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final List<Integer> halts = new ArrayList<>();
    private final FatalErrors handler = new FatalErrors(new PrintStream(bytes, true, StandardCharsets.UTF_8),
            halts::add);

    private String log() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** Runs {@code body} on a thread of its own, with the handler, until it dies. */
    private void dies(String name, Runnable body) throws InterruptedException {
        Thread thread = new Thread(body, name);
        thread.setUncaughtExceptionHandler(handler);
        thread.start();
        thread.join(10_000);
    }

    @Test
    void aThreadThatDiesOfOutOfMemoryStopsTheProcessWithOneLastLine() throws InterruptedException {
        dies("klog-kafka-groups-9093", () -> {
            throw new OutOfMemoryError("Java heap space");
        });
        assertThat(halts).as("the process stops, exit status 3 as -XX:+ExitOnOutOfMemoryError's: a broker whose"
                + " ticker, acceptor or cleaner died would accept connections and answer no one").containsExactly(3);
        assertThat(log().lines().toList()).as("one last line naming the thread and the error, no stack trace")
                .containsExactly("klog serve: thread klog-kafka-groups-9093 died of java.lang.OutOfMemoryError: Java"
                        + " heap space: stopping the broker (exit status 3, as -XX:+ExitOnOutOfMemoryError does) so"
                        + " that its supervisor restarts it; a broker without that thread would serve no one");
    }

    @Test
    void aStackOverflowStopsItToo() throws InterruptedException {
        dies("klog-broker-9092-acceptor", () -> {
            throw new StackOverflowError();
        });
        assertThat(halts).as("any VirtualMachineError: the JVM cannot be trusted to go on").containsExactly(3);
    }

    @Test
    void anOrdinaryExceptionIsOneEscapedLineAndTheBrokerGoesOn() throws InterruptedException {
        dies("worker", () -> {
            throw new IllegalStateException("a client's\nFORGED line");
        });
        assertThat(halts).as("not the JVM's failure: no reason to stop").isEmpty();
        assertThat(log().lines().toList()).as("one line, the message escaped (it may quote a client)")
                .containsExactly("klog serve: thread worker died of java.lang.IllegalStateException: a client's\\nFORGED"
                        + " line");
    }
}
