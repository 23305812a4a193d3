package kaenlog.wire;

import java.util.ArrayList;
import java.util.List;

/**
 * apiKey 5, DESCRIBE_CONFIGS: the configs a partition runs with, or the broker's own (Kafka's
 * DescribeConfigs), each with where its value comes from. {@code klog configs} prints them.
 *
 * <p>Request body: partition string ("" = the broker's configs). Response body: error int16 ·
 * count int32 · count × (name string · value string · source string).
 */
public final class DescribeConfigs {
    /** At most this many entries in an answer: a lying count cannot make the client allocate more. */
    public static final int MAX_ENTRIES = 1000;

    private DescribeConfigs() {
    }

    public record Request(String partition) {
        public byte[] encode() {
            return new Wire.Writer().string(partition).toByteArray();
        }

        public static Request decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            Request request = new Request(in.string("partition"));
            in.end();
            return request;
        }
    }

    /** One config: its name, value and source (PARTITION, INTERNAL, BROKER or DEFAULT). */
    public record Entry(String name, String value, String source) {
    }

    public record Response(ErrorCode error, List<Entry> entries) {
        public Response {
            entries = List.copyOf(entries);
        }

        public byte[] encode() {
            Wire.Writer out = new Wire.Writer().int16(error.code()).int32(entries.size());
            entries.forEach(e -> out.string(e.name()).string(e.value()).string(e.source()));
            return out.toByteArray();
        }

        public static Response decode(byte[] body) {
            Wire.Reader in = new Wire.Reader(body);
            ErrorCode error = ErrorCode.of(in.int16("error"));
            int count = in.int32("count");
            if (count < 0 || count > MAX_ENTRIES) {
                throw new MalformedMessageException("count: " + count + " entries, expected 0.." + MAX_ENTRIES);
            }
            List<Entry> entries = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                entries.add(new Entry(in.string("name"), in.string("value"), in.string("source")));
            }
            in.end();
            return new Response(error, entries);
        }
    }
}
