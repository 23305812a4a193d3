package kaenlog.kafkawire;

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
}
