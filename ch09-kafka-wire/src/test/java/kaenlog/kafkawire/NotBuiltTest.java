package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Properties;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is not built says so (given code around your InitProducerId, task 6 (RealClientsTest)):
 * transactions are not built, and a transactional producer hears it in Kafka's words, with one
 * rate-limited line in the broker's log naming the client. Runs after the tasks.
 */
@Order(14)
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NotBuiltTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();

    private String log() {
        return brokerLog.toString(StandardCharsets.UTF_8);
    }

    private static byte[] initFrame(String transactionalId, String clientId, int correlationId) {
        InitProducerIdRequest request = new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                .setTransactionalId(transactionalId).setTransactionTimeoutMs(60_000)).build((short) 1);
        ByteBuffer buffer = request.serializeWithHeader(new RequestHeader(ApiKeys.INIT_PRODUCER_ID, (short) 1, clientId,
                correlationId));
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    @Test
    void aTransactionalInitProducerIdIsTransactionalIdAuthorizationFailedWithOneLineNamingTheClient()
            throws IOException {
        try (Broker broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withTickMs(0),
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8))) {
            KafkaApis apis = new KafkaApis(new Backend(broker), "127.0.0.1", 9092,
                    new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
            short[] errors = new short[3];
            for (int i = 0; i < errors.length; i++) {
                ByteBuffer answer = ByteBuffer.wrap(apis.handle(initFrame("orders-tx\n", "shop-" + i, i)).orElseThrow());
                answer.getInt();
                InitProducerIdResponse response = InitProducerIdResponse.parse(new ByteBufferAccessor(answer), (short) 1);
                errors[i] = response.data().errorCode();
            }
            assertThat(Errors.forCode(errors[0])).as("transactions are not built: a transactional.id is answered"
                    + " TRANSACTIONAL_ID_AUTHORIZATION_FAILED (53), which kafka-clients raises from initTransactions()"
                    + " as TransactionalIdAuthorizationException, at once")
                    .isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
            assertThat(errors).as("every time").containsOnly(errors[0]);
            assertThat(log().lines().filter(l -> l.contains("transactional.id")))
                    .as("one line (rate limited: broker time stands still here) naming the client and its"
                            + " transactional.id, escaped; broker log:%n%s", log())
                    .singleElement().satisfies(line -> assertThat(line).contains("'shop-0'")
                            .contains("'orders-tx\\n'").contains("transactions").doesNotContain(
                                    "shop-1"));
        }
    }
}
