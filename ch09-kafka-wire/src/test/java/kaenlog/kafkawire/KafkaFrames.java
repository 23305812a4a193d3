package kaenlog.kafkawire;

import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import java.util.List;
import java.util.ArrayList;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/** Requests as kafka-clients lays them out, and one exchange of frames on a socket, for the tests. */
final class KafkaFrames {
    private KafkaFrames() {
    }

    /** {@code request} as the dispatcher reads it: the request header (client id "c"), then the body; no length. */
    static byte[] frame(AbstractRequest request, ApiKeys key, int correlationId) {
        ByteBuffer buffer = request.serializeWithHeader(new RequestHeader(key, request.version(), "c", correlationId));
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /** Writes {@code frame} behind its 4-byte length, reads the answer's frame: its body, length taken off. */
    static ByteBuffer roundTrip(Socket socket, byte[] frame) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        return ByteBuffer.wrap(answer);
    }

    /**
     * One request at {@code version}, serialized by kafka-clients' own message classes, answered by
     * {@code apis} in-process, and its answer parsed by kafka-clients: what a test of every version uses.
     */
    @SuppressWarnings("unchecked")
    static <T extends ApiMessage> T exchange(KafkaApis apis, ApiKeys key, short version, ApiMessage data,
                                             int correlationId) throws IOException {
        RequestHeader header = new RequestHeader(key, version, "wire-test", correlationId);
        ByteBuffer request = RequestUtils.serialize(header.data(), header.headerVersion(), data, version);
        byte[] bytes = new byte[request.remaining()];
        request.get(bytes);
        byte[] answer = apis.handle(bytes).orElseThrow(() -> new AssertionError(key + " v" + version + " unanswered"));
        return (T) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header).data();
    }

    /** Every version this listener advertises for {@code key}, oldest first. */
    static List<Short> versions(ApiKey key) {
        List<Short> all = new ArrayList<>();
        for (short v = key.minVersion; v <= key.maxVersion; v++) {
            all.add(v);
        }
        return all;
    }
}
