package kaenlog.reliability;

import java.nio.ByteBuffer;
import java.util.Arrays;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.groups.OffsetCommitValue;

/**
 * Small findings that need no broker: crafted inputs a random mutation of small valid inputs does
 * not reach.
 */
public final class Findings {
    private Findings() {
    }

    /**
     * What chapter 6's offsets-log decoders throw for a string field of 20,000 bytes that are not
     * UTF-8 (each becomes U+FFFD, three bytes when the record checks its length again): the name of
     * the exception class, or "nothing".
     */
    public record OffsetCommitUtf8(String keyThrew, String valueThrew) {
    }

    public static OffsetCommitUtf8 offsetCommitUtf8() {
        byte[] notUtf8 = new byte[20_000];
        Arrays.fill(notUtf8, (byte) 0xff);
        ByteBuffer key = ByteBuffer.allocate(2 + notUtf8.length + 2 + 1 + 4);
        key.putShort((short) notUtf8.length).put(notUtf8).putShort((short) 1).put((byte) 't').putInt(0);
        ByteBuffer value = ByteBuffer.allocate(8 + 2 + notUtf8.length + 8);
        value.putLong(1).putShort((short) notUtf8.length).put(notUtf8).putLong(2);
        return new OffsetCommitUtf8(threw(() -> OffsetCommitKey.decode(key.array())),
                threw(() -> OffsetCommitValue.decode(value.array())));
    }

    private static String threw(Runnable decode) {
        try {
            decode.run();
            return "nothing";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }
}
