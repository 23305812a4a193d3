package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

class TimeoutsTest {
    @Test
    void junitsTimeoutMessageBecomesALineThatSaysWhatTheTestWaitsFor() {
        String plain = Timeouts.line("aProduceIsAnswered() timed out after 60 seconds", Optional.empty());
        String told = Timeouts.line("aProduceIsAnswered() timed out after 60 seconds",
                Optional.of("the broker's reply; a frame written without a flush (task 9)"));

        assertThat(plain).contains("did not finish in 60 s", "the task's guide");
        assertThat(told).contains("did not finish in 60 s: it waits for the broker's reply; a frame written without a flush (task 9)");
    }

    /** Run by the test below through the Launcher (not by surefire: its name is no test class's). */
    static class Hangs {
        static volatile boolean stop;

        @Test
        @Timeout(1)
        @WaitsFor("a latch nobody counts down")
        void waitsForEver() throws InterruptedException {
            new CountDownLatch(1).await();
        }

        @Test
        @Timeout(1)
        void spinsForEver() {
            while (!stop) {
                Thread.onSpinWait(); // ignores the interrupt, as a read on a socket does
            }
        }
    }

    @Test
    void aTestThatNeverReturnsFailsWithTheLineInsteadOfHangingTheRun() {
        List<Throwable> failures = new ArrayList<>();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(Hangs.class)).build(),
                new TestExecutionListener() {
                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                        if (id.isTest()) {
                            failures.add(result.getThrowable().orElse(null));
                        }
                    }
                });
        Hangs.stop = true; // the thread JUnit left behind ends here

        assertThat(failures).as("both tests end, as failures").hasSize(2).allSatisfy(f -> assertThat(f).isInstanceOf(Timeouts.TimedOut.class));
        assertThat(failures).extracting(Throwable::getMessage).anySatisfy(m -> assertThat(m).contains("it waits for a latch nobody counts down"))
                .anySatisfy(m -> assertThat(m).contains("see the task's guide"));
    }
}
