package kaenlog.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import kaenlog.testkit.CliRun;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Misuse of chapter 3's klog subcommands: one error line and the usage on stderr, exit status 2,
 * never a stack trace; a broker that is not there: one error line, exit status 1.
 */
@Order(20)
@PassesOnSkeleton("flag checks and connection errors happen before any exercise runs")
class KlogCliTest {
    private static CliRun klog(String... args) {
        return CliRun.of(Klog::run, args);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "serve",
        "serve --port 9092",
        "serve --dir d --port 65536",
        "serve --dir d --port -1",
        "serve --dir d --now-ms soon",
        "serve --dir d --segment-bytes 10",
        "serve --dir d extra",
        "serve --dir d --verbose",
        "produce --port 9092",
        "produce --partition orders-0 --property parse.key=true --property key.separator=",
        "produce --partition orders-0 --header novalue",
        "produce --partition orders-0 --property parse.headers=true",
        "produce --port 0 --partition orders-0",
        "produce --port 9092 --partition orders-0 --acks 2",
        "produce --port 9092 --partition orders-0 --acks",
        "produce --port 9092 --partition orders-0 --batch 0",
        "produce --port 9092 --partition ../x",
        "produce --port 9092 --partition orders",
        "consume --port 9092",
        "consume --partition orders-0 --from middle",
        "consume --partition orders-0 --group",
        "serve --dir d --config no.such.config=1",
        "serve --dir d --config cleanup.policy=forget",
        "serve --dir d --config segment.bytes=10",
        "serve --dir d --partition-config orders-0=segment.bytes=2048",
        "serve --dir d --partition-config orders:segment.bytes=2048",
        "serve --dir d --partition-config orders-0:log.cleaner.backoff.ms=5",
        "serve --dir d --config log.retention.check.interval.ms=0",
        "configs --partition ../x",
        "consume --port 9092 --partition orders-0 --from -1",
        "consume --port 9092 --partition orders-0 --max 0",
        "consume --port 9092 --partition orders-0 --wait-ms x",
        "consume --port 9092 --partition orders-0 --from-time yesterday",
        "consume --port 9092 --partition orders-0 --from 0 --from-time 1700000000000",
        "consume --port 9092 --partition a/b-0",
        "produce-demo --records 0",
        "produce-demo --records 100",
        "produce-demo --segment-bytes 99",
        "produce-demo --now-ms -5",
        "produce-demo --seed 1",
        "produce-demo now",
    })
    void misuseIsOneErrorLineAndTheUsageWithExitStatus2(String command) {
        CliRun r = klog(command.split(" "));

        assertThat(r.status()).as("`klog %s` is a misuse: exit status 2 (stderr: %s)", command, r.err()).isEqualTo(2);
        List<String> lines = r.err().lines().toList();
        assertThat(lines).as("`klog %s`: one line saying what is wrong, then the usage", command).hasSize(2);
        assertThat(lines.get(1)).as("the second line is the subcommand's usage").startsWith("usage: klog ");
        assertThat(r.err()).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(r.out()).as("nothing on stdout").isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"produce", "consume"})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a port taken meanwhile by a silent listener
    void aBrokerThatIsNotThereIsOneErrorLineAndExitStatus1(String subcommand) throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort(); // free now, and closed below: nobody listens there
        }
        // produce connects before it reads stdin, so it never touches System.in here
        CliRun r = subcommand.equals("produce")
                ? klog("produce", "--port", Integer.toString(port), "--partition", "orders-0")
                : klog("consume", "--port", Integer.toString(port), "--partition", "orders-0", "--wait-ms", "0");

        assertThat(r.status()).as("klog %s against a closed port fails with status 1 (stderr: %s)", subcommand, r.err())
                .isEqualTo(1);
        assertThat(r.err().lines().toList()).as("one line naming the address it could not reach").hasSize(1);
        assertThat(r.err()).as("the line names the address").contains("cannot connect to 127.0.0.1:" + port);
    }

    @Test
    void theChapterRegistersItsSubcommands() {
        assertThat(Klog.subcommands()).extracting(Subcommand::name)
                .as("chapter 3 adds serve, produce, consume and produce-demo through ServiceLoader")
                .contains("serve", "produce", "consume", "produce-demo", "batch-demo", "dump");
    }
}
