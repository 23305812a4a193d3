package kaenlog.reliability.cluster;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * One broker's own word about a group, over its Kafka port, written and read by kafka-clients
 * 4.1.1's message classes: whom FindCoordinator names, and whether the broker answers the group's
 * OffsetFetch itself (NONE: it coordinates the group; NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS:
 * it does not, or not yet), with the offsets it holds. Not through a client's coordinator
 * lookup: the point is to ask every broker, the ones that do not coordinate too.
 */
final class CoordinatorProbe {
    /** The highest versions chapter 9's listener takes (its ApiKey table): FindCoordinator v2, OffsetFetch v5. */
    private static final short FIND_COORDINATOR_VERSION = 2;
    private static final short OFFSET_FETCH_VERSION = 5;
    private static final int TIMEOUT_MS = 2_000;

    /**
     * One broker's answers.
     *
     * @param named       the broker FindCoordinator names, or -1 when it answered an error or nothing
     * @param offsetFetch OffsetFetch's top-level error, or null when the broker did not answer
     * @param offsets     the committed offsets it answered, by partition (with NONE)
     */
    record Answer(int named, Errors offsetFetch, Map<Integer, Long> offsets) {
        boolean coordinates() {
            return offsetFetch == Errors.NONE;
        }
    }

    private CoordinatorProbe() {
    }

    /** Asks the broker at {@code port} about {@code group}: both requests on one connection. */
    static Answer ask(int port, String group, String topic) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            FindCoordinatorResponseData found = exchange(socket, ApiKeys.FIND_COORDINATOR, FIND_COORDINATOR_VERSION,
                    new FindCoordinatorRequestData().setKey(group).setKeyType((byte) 0), 1);
            int named = found.errorCode() == Errors.NONE.code() ? found.nodeId() : -1;
            OffsetFetchResponseData fetched = exchange(socket, ApiKeys.OFFSET_FETCH, OFFSET_FETCH_VERSION,
                    new OffsetFetchRequestData().setGroupId(group).setTopics(null), 2);
            Map<Integer, Long> offsets = new TreeMap<>();
            for (OffsetFetchResponseData.OffsetFetchResponseTopic t : fetched.topics()) {
                if (t.name().equals(topic)) {
                    t.partitions().stream().filter(p -> p.errorCode() == 0 && p.committedOffset() >= 0)
                            .forEach(p -> offsets.put(p.partitionIndex(), p.committedOffset()));
                }
            }
            return new Answer(named, Errors.forCode(fetched.errorCode()), offsets);
        } catch (IOException | RuntimeException noAnswer) {
            return new Answer(-1, null, Map.of());
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends ApiMessage> T exchange(Socket socket, ApiKeys key, short version, ApiMessage data,
                                                     int correlationId) throws IOException {
        RequestHeader header = new RequestHeader(key, version, "coordinator-probe", correlationId);
        ByteBuffer request = RequestUtils.serialize(header.data(), header.headerVersion(), data, version);
        byte[] bytes = new byte[request.remaining()];
        request.get(bytes);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int length = in.readInt();
        if (length < 0 || length > 1 << 20) {
            throw new IOException("an answer of " + length + " bytes");
        }
        byte[] answer = new byte[length];
        in.readFully(answer);
        return (T) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header).data();
    }
}
