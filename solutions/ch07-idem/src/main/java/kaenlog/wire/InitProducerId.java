package kaenlog.wire;


/**
 * Chapter 7's request: apiKey 2, INIT_PRODUCER_ID. An idempotent producer sends it once when it
 * starts and gets its producer id and epoch. KIP-98: "Every new producer will be assigned a unique
 * PID during initialization", and the assignment "is completely transparent to users": the user of
 * {@code klog idem-produce} never sees or chooses it.
 *
 * <p>Request body: empty (kaen-log has no transactional.id). Response body: error int16 ·
 * producerId int64 · producerEpoch int16.
 */
public final class InitProducerId {
    /** Chapter 3's table of api keys lists it; kaen-log's numbering, not Kafka's (22). */
    public static final short API_KEY = ApiKeys.INIT_PRODUCER_ID;

    private InitProducerId() {
    }

    public static byte[] encodeRequest() {
        return new byte[0];
    }

    public static void decodeRequest(byte[] body) {
        new Wire.Reader(body).end();
    }

    public record Response(ErrorCode error, long producerId, short producerEpoch) {
        public byte[] encode() {
            return new Wire.Writer().int16(error.code()).int64(producerId).int16(producerEpoch).toByteArray();
        }

        public static Response decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Response response = new Response(ErrorCode.of(in.int16("error")), in.int64("producerId"),
                    in.int16("producerEpoch"));
            in.end();
            return response;
        }
    }
}
