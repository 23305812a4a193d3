package kaenlog.kafkawire;

import java.io.IOException;
import kaenlog.wire.InitProducerId;

/**
 * InitProducerId (key 22 in Kafka; kaen-log's own INIT_PRODUCER_ID is key 2 on its own port), v0..v1:
 * transactional_id nullable string · transaction_timeout_ms int32 → throttle_time_ms · error_code ·
 * producer_id · producer_epoch. An idempotent Kafka producer sends it once; the id comes from
 * chapter 7's handler, the same one kaen-log's own producer asks. A transactional id goes to a later
 * chapter's {@link KafkaApiExtension} when one is on the classpath (chapter 11's coordinator); without
 * one it is refused with
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED (53): transactions are drawn in chapter 7, not built, and of
 * Kafka's answers to InitProducerId this is the one kafka-clients turns into an error that names
 * transactions, at once ({@code TransactionalIdAuthorizationException} from initTransactions(), fatal,
 * no retries); INVALID_REQUEST, say, was "Unexpected error in InitProducerIdResponse" after the
 * client had looked for a coordinator. {@link KafkaApis} logs one rate-limited line naming the client.
 */
public final class InitProducerIdApi {

    public record Request(String transactionalId, int transactionTimeoutMs) {
    }

    private InitProducerIdApi() {
    }

    public static Request parse(KafkaReader in, short version) {
        String transactionalId = in.nullableString("transactional_id");
        int transactionTimeoutMs = in.int32("transaction_timeout_ms");
        in.end("InitProducerId v" + version + " request");
        return new Request(transactionalId, transactionTimeoutMs);
    }

    public static byte[] answer(Request request, Backend backend) throws IOException {
        if (request.transactionalId() != null) {
            return response(KafkaErrors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, (short) -1);
        }
        byte[] body = backend.call(InitProducerId.API_KEY, InitProducerId.encodeRequest())
                .orElseThrow(() -> new IOException("INIT_PRODUCER_ID gave no answer"));
        InitProducerId.Response issued = InitProducerId.Response.decode(body);
        return response(KafkaErrors.of(issued.error()), issued.producerId(), issued.producerEpoch());
    }

    public static byte[] response(short error, long producerId, short epoch) {
        return new KafkaWriter().int32(0).int16(error).int64(producerId).int16(epoch).toByteArray();
    }
}
