package kaenlog.idem;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import kaenlog.cli.Klog;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.ControlRecordType;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The Kafka facts the demo prints, checked against Kafka's own code (kafka-clients, test scope):
 * a fact that drifts from Kafka fails here, not in a learner's head.
 */
@Order(24)
class KafkaFactsTest {
    static String demo() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Klog.run(new String[] {"idem-demo", "--pid", "1000", "--seq", "7..9", "--resend", "--now-ms",
            "1700000000000"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).as("the demo must run: %s", err.toString(StandardCharsets.UTF_8)).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theErrorCodesTheDemoNamesAreKafkas() {
        String out = demo();

        assertThat(out)
                .as("Kafka's Errors: code 45 is %s and 46 is %s", Errors.forCode((short) 45), Errors.forCode((short) 46))
                .contains("45 " + Errors.forCode((short) 45).name())
                .contains("46 " + Errors.forCode((short) 46).name());
        assertThat(new Verdict.OutOfOrderSequenceNumber(0, 1).label())
                .as("the gap verdict carries the name of Kafka's error 45")
                .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.name());
    }

    @Test
    void theControlRecordTypesComeFromTheCodeNotTheKipProse() {
        String out = demo();

        assertThat(out)
                .as("ControlRecordType in kafka-clients: type 0 is %s, type 1 is %s (KIP-98's text has them swapped)",
                        ControlRecordType.fromTypeId((short) 0), ControlRecordType.fromTypeId((short) 1))
                .contains(ControlRecordType.fromTypeId((short) 0) + " = 0, " + ControlRecordType.fromTypeId((short) 1)
                        + " = 1");
    }

    @Test
    void theTransactionVocabularyMatchesKafkas() {
        String out = demo();

        assertThat(out)
                .as("the internal topic of transactions is Kafka's Topic.TRANSACTION_STATE_TOPIC_NAME")
                .contains(Topic.TRANSACTION_STATE_TOPIC_NAME);
        assertThat(ConsumerConfig.DEFAULT_ISOLATION_LEVEL)
                .as("read_uncommitted is the consumers' default isolation.level")
                .isEqualTo("read_uncommitted");
        assertThat(ConsumerConfig.configDef().configKeys().get(ConsumerConfig.ISOLATION_LEVEL_CONFIG).documentation)
                .as("ConsumerConfig defines the LSO the demo names: one less than the first open transaction's offset")
                .contains("last stable offset (LSO), which is the one less than the offset of the first open transaction");
        assertThat(out).as("the demo draws the three lines in Kafka's order").contains("LEO >= HW >= LSO");
    }

    @Test
    void theWindowIsTheSameFiveAsTheProducersInFlightCap() {
        String doc = ProducerConfig.configDef().configKeys()
                .get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION).documentation;

        assertThat(doc)
                .as("ProducerConfig ties max.in.flight.requests.per.connection to the broker's window of %d batches",
                        ProducerStateEntry.NUM_BATCHES_TO_RETAIN)
                .contains("broker only retains at most " + ProducerStateEntry.NUM_BATCHES_TO_RETAIN + " batches");
        assertThat(demo())
                .as("and the demo says so")
                .contains("max.in.flight.requests.per.connection");
    }
}
