package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import kaenlog.wire.MalformedMessageException;
import org.apache.kafka.common.utils.ByteUtils;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 1: the unsigned varint, the length of every compact string, array and tagged field. */
@Order(1)
class UnsignedVarintTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void smallNumbersTakeOneByteAndLargerOnesSevenBitsPerByte() {
        assertThat(HEX.formatHex(new KafkaWriter().unsignedVarint(0).toByteArray())).as("0 is one zero byte").isEqualTo("00");
        assertThat(HEX.formatHex(new KafkaWriter().unsignedVarint(127).toByteArray()))
                .as("127 fits seven bits: one byte, high bit clear").isEqualTo("7f");
        assertThat(HEX.formatHex(new KafkaWriter().unsignedVarint(128).toByteArray()))
                .as("128 needs two bytes: the low seven bits (0) with the continuation bit, then 1").isEqualTo("8001");
        assertThat(HEX.formatHex(new KafkaWriter().unsignedVarint(300).toByteArray()))
                .as("300 = 0b10_0101100: 0xac (0x2c with the continuation bit), then 0x02 — least significant first")
                .isEqualTo("ac02");
    }

    @Test
    void negativeIntsAreLargeUnsignedNumbersOfFiveBytes() {
        assertThat(HEX.formatHex(new KafkaWriter().unsignedVarint(-1).toByteArray()))
                .as("unsigned: -1 is 2^32-1, five bytes; shift with >>> or the loop never ends on a negative int")
                .isEqualTo("ffffffff0f");
    }

    @Test
    void whatIsWrittenIsReadBackAndAgreesWithKafkaClients() {
        for (int v : new int[] {0, 1, 127, 128, 255, 16_383, 16_384, 1 << 21, 1 << 28, Integer.MAX_VALUE, -1}) {
            byte[] ours = new KafkaWriter().unsignedVarint(v).toByteArray();
            ByteBuffer theirs = ByteBuffer.allocate(5);
            ByteUtils.writeUnsignedVarint(v, theirs);
            assertThat(HEX.formatHex(ours)).as("%d must be written as kafka-clients' ByteUtils writes it", v)
                    .isEqualTo(HEX.formatHex(theirs.array(), 0, theirs.position()));
            assertThat(new KafkaReader(ours).unsignedVarint("v")).as("%d must read back as itself", v).isEqualTo(v);
        }
    }

    @Test
    void aVarintLongerThanFiveBytesIsRefused() {
        byte[] six = HEX.parseHex("808080808001");
        assertThatThrownBy(() -> new KafkaReader(six).unsignedVarint("count"))
                .as("an int fits five varint bytes; a sixth means the bytes are not a varint (or an attack)")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("count");
    }

    @Test
    void aVarintCutOffIsRefusedNamingTheField() {
        assertThatThrownBy(() -> new KafkaReader(HEX.parseHex("8080")).unsignedVarint("length"))
                .as("every byte so far says 'more follows' and the bytes end: an error naming the field, not an"
                        + " index exception")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("length");
    }
}
