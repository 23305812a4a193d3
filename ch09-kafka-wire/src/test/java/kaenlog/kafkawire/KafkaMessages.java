package kaenlog.kafkawire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import kaenlog.testkit.property.Choices;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * Kafka's generated messages as the chapter's properties use them: written by kafka-clients' own writer
 * at a version, and the inputs around them (tagged fields Kafka does not know, text over all of Unicode,
 * requests cut short).
 */
final class KafkaMessages {
    private KafkaMessages() {
    }

    /** {@code message} as kafka-clients' generated writer lays it out at {@code version}. */
    static byte[] write(Message message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer out = ByteBuffer.allocate(message.size(cache, version));
        message.write(new ByteBufferAccessor(out), cache, version);
        return out.array();
    }

    /** A string over all of Unicode (the empty one too), or null one time in {@code nullOneIn} (0: never). */
    static Gen<String> text(int nullOneIn) {
        Gen<String> text = Gens.strings(0, 6);
        return nullOneIn == 0 ? text : Gens.nullOr(text, nullOneIn);
    }

    /** Zero to two tagged fields with tags Kafka does not know (increasing, as its writer requires), 0 to 5 bytes each. */
    static Gen<List<RawTaggedField>> unknownTaggedFields() {
        return c -> {
            List<RawTaggedField> fields = new ArrayList<>();
            int tag = 0;
            for (int i = c.belowInt(3); i > 0; i--) {
                tag += 1 + c.belowInt(200);
                fields.add(new RawTaggedField(tag, Gens.bytes(0, 5).generate(c)));
            }
            return fields;
        };
    }

    /** Bytes as a client sent them: intact, cut short, or changed in place ({@code how} says which). */
    record Sent(byte[] bytes, String how, boolean changed) {
        @Override
        public String toString() {
            return how + " " + show(bytes);
        }
    }

    /**
     * The bytes as they are, or damaged as bytes from a network can be: cut short at some byte (a request that
     * ended too soon), four bytes at some place set to ff ff ff ff (a count or length of -1, or a huge one), or
     * one byte changed.
     */
    static Sent maybeDamaged(Choices c, byte[] bytes) {
        if (bytes.length > 0 && c.oneIn(4)) {
            int at = c.belowInt(bytes.length);
            return new Sent(Arrays.copyOf(bytes, at), "cut short at byte " + at + ":", false);
        }
        if (bytes.length >= 4 && c.oneIn(5)) {
            byte[] damaged = bytes.clone();
            int at = c.belowInt(bytes.length - 3);
            Arrays.fill(damaged, at, at + 4, (byte) 0xff);
            return new Sent(damaged, "with ff ff ff ff written at byte " + at + ":", true);
        }
        if (bytes.length > 0 && c.oneIn(6)) {
            byte[] damaged = bytes.clone();
            int at = c.belowInt(bytes.length);
            damaged[at] = (byte) c.belowInt(256);
            return new Sent(damaged, "with byte " + at + " changed:", true);
        }
        return new Sent(bytes, "as written:", false);
    }

    /**
     * Your reading against Kafka's: the same answer, or both refusing. Bytes changed in place may also be refused
     * by you where Kafka reads them, for the reasons the guide declares (this listener's readers are stricter: a
     * nullable string or bytes of a negative length other than -1, bytes after the last field); where Kafka
     * refuses, you refuse, and where both read, you read what Kafka reads.
     */
    static void agree(Sent sent, String input, String what, kaenlog.testkit.property.Judge.Outcome yours,
                      String oracle, kaenlog.testkit.property.Judge.Outcome kafkas, String rule) {
        if (sent.changed() && yours.refused() && !kafkas.refused()) {
            return;
        }
        kaenlog.testkit.property.Judge.agree(input, what, yours, oracle, kafkas, rule);
    }

    /**
     * Kafka's generated reader stops at the message's last field and leaves the rest; this listener refuses a
     * request with bytes after its last field (its readers end with {@code KafkaReader.end}), as a difference
     * the guide declares. The oracle: Kafka's reading, refused when bytes are left over.
     */
    static <T> T nothingLeft(ByteBuffer in, T read) {
        if (in.hasRemaining()) {
            throw new IllegalStateException(in.remaining() + " byte(s) after the last field");
        }
        return read;
    }

    /** A refusal of bytes from the network is a MalformedMessageException naming the field, never another exception. */
    static void refusedWithATypedError(kaenlog.testkit.property.Judge.Outcome yours, String input) {
        if (yours.refused() && !(yours.refusal() instanceof kaenlog.wire.MalformedMessageException)) {
            throw new org.opentest4j.AssertionFailedError("for " + input + " you refuse with "
                    + yours.refusal().getClass().getName() + " (" + yours.refusal().getMessage() + "): bytes from a"
                    + " client are refused with a MalformedMessageException naming the field, and every count and"
                    + " length is checked (-1 is null, a count above the bytes left is a lie) before a list is sized"
                    + " or an array allocated", yours.refusal());
        }
    }

    /** Bytes as a failure shows them (hex; long ones dumped). */
    static String show(byte[] bytes) {
        return Property.show(bytes);
    }
}
