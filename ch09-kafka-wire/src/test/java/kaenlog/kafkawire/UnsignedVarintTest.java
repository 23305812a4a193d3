package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.MalformedMessageException;
import org.apache.kafka.common.utils.ByteUtils;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 1: the unsigned varint, the length of every compact string, array and tagged field. */
@Order(1)
class UnsignedVarintTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final int WRITE_SECONDS = 5;

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
    void negativeIntsAreLargeUnsignedNumbersOfFiveBytes() throws Exception {
        assertThat(HEX.formatHex(writtenWithinSeconds(-1)))
                .as("unsigned: -1 is 2^32-1, five bytes; shift with >>> or the loop never ends on a negative int")
                .isEqualTo("ffffffff0f");
    }

    @Test
    void whatIsWrittenIsReadBackAndAgreesWithKafkaClients() throws Exception {
        for (int v : new int[] {0, 1, 127, 128, 255, 16_383, 16_384, 1 << 21, 1 << 28, Integer.MAX_VALUE, -1}) {
            byte[] ours = writtenWithinSeconds(v);
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
        assertThat(catchThrowable(() -> new KafkaReader(six).unsignedVarint("count")))
                .as("an int fits five varint bytes; a sixth means the bytes are not a varint (or an attack)")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("count");
    }

    @Test
    void aVarintCutOffIsRefusedNamingTheField() {
        assertThat(catchThrowable(() -> new KafkaReader(HEX.parseHex("8080")).unsignedVarint("length")))
                .as("every byte so far says 'more follows' and the bytes end: an error naming the field, not an"
                        + " index exception")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("length");
    }

    // ---- Kafka judges: every int, and any bytes read as one -----------------------------------

    @Test
    void everyIntIsWrittenAsKafkasByteUtilsWritesIt() throws Exception {
        writtenWithinSeconds(-1); // a writer that never ends on a negative int fails here, with its explanation
        Property.forAll(Gens.ints()).tries(500).check(v -> {
            ByteBuffer kafka = ByteBuffer.allocate(5);
            ByteUtils.writeUnsignedVarint(v, kafka);
            Judge.agree("the unsigned varint of " + v + " (0x" + Integer.toHexString(v) + ")", "bytes",
                    new KafkaWriter().unsignedVarint(v).toByteArray(), "ByteUtils.writeUnsignedVarint writes",
                    java.util.Arrays.copyOf(kafka.array(), kafka.position()),
                    "seven bits per byte, least significant group first, the high bit set on every byte but the last;"
                            + " a negative int is a large unsigned number of five bytes (ByteUtils.sizeOfUnsignedVarint "
                            + ByteUtils.sizeOfUnsignedVarint(v) + ")");
        });
    }

    @Test
    void everyIntReadsBackAsKafkasByteUtilsReadsIt() {
        Property.forAll(Gens.ints()).tries(500).check(v -> {
            ByteBuffer kafka = ByteBuffer.allocate(6);
            ByteUtils.writeUnsignedVarint(v, kafka);
            kafka.put((byte) 0x2a).flip(); // a byte of the next field: reading must stop before it
            KafkaReader in = new KafkaReader(kafka.duplicate());
            String yours = in.unsignedVarint("v") + ", next field at byte " + in.position();
            int theirs = ByteUtils.readUnsignedVarint(kafka);
            Judge.agree("the bytes " + Property.show(java.util.Arrays.copyOf(kafka.array(), kafka.limit())), "reading",
                    yours, "ByteUtils.readUnsignedVarint reads", theirs + ", next field at byte " + kafka.position(),
                    "stop at the first byte without the high bit: each byte gives seven bits, the first byte the lowest");
        });
    }

    /** Up to six bytes, each with or without the high bit: varints, cut-off ones and ones that run past five bytes. */
    static Gen<byte[]> varintLikeBytes() {
        Gen<Integer> b = Gens.oneOf(Gens.ints(0, 255), Gens.elements(0x00, 0x7f, 0x80, 0xff, 0x8f, 0x0f, 0x10, 0x70));
        return Gens.lists(b, 0, 7).map(list -> {
            byte[] bytes = new byte[list.size()];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (int) list.get(i);
            }
            return bytes;
        });
    }

    @Test
    void anyBytesAreReadOrRefusedAsKafkasByteUtilsDoes() {
        Property.forAll(varintLikeBytes()).tries(500).check(bytes -> {
            Judge.Outcome yours = Judge.Outcome.of(() -> {
                KafkaReader in = new KafkaReader(bytes);
                return in.unsignedVarint("length") + " ending at byte " + in.position();
            });
            Judge.Outcome kafkas = Judge.Outcome.of(() -> {
                ByteBuffer in = ByteBuffer.wrap(bytes);
                return ByteUtils.readUnsignedVarint(in) + " ending at byte " + in.position();
            });
            Judge.agree("the bytes " + Property.show(bytes), "reading", yours, "ByteUtils.readUnsignedVarint gives", kafkas,
                    "an int fits five bytes: the fifth byte's high bit set (a sixth byte) is not a varint, and bytes"
                            + " that end while the high bit still says more are refused; above the 32nd bit the fifth"
                            + " byte's bits are dropped");
            if (yours.refused()) {
                assertThat(yours.refusal()).as("a refusal names the field: a MalformedMessageException, not %s",
                        yours.refusal()).isInstanceOf(MalformedMessageException.class).hasMessageContaining("length");
            }
        });
    }

    /**
     * Writes {@code v} on a thread of its own and waits at most {@value #WRITE_SECONDS} seconds: a writer
     * that shifts with {@code >>} never ends on a negative int, and would fill the heap (and end the
     * test run) instead of failing this test.
     */
    @SuppressWarnings({"deprecation", "removal"})
    private static byte[] writtenWithinSeconds(int v) throws Exception {
        FutureTask<byte[]> write = new FutureTask<>(() -> new KafkaWriter().unsignedVarint(v).toByteArray());
        Thread writer = new Thread(write, "unsigned-varint-writer");
        writer.setDaemon(true);
        writer.start();
        try {
            return write.get(WRITE_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            // the writer's own failure (its TODO, say), as if it had been called on this thread
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            try {
                writer.stop(); // a loop that never ends does not look at interrupts; Java 17 can still stop it
            } catch (UnsupportedOperationException newerJava) {
                // Java 20 and later cannot stop a thread: it runs on, a daemon, until the JVM ends
            }
            throw new AssertionError("task 1 (UnsignedVarintTest): writing " + v + " as an unsigned varint did not end within "
                    + WRITE_SECONDS + " s. Shift with >>>, not >>: an arithmetic shift copies the sign bit of a"
                    + " negative int back in, so the value never reaches zero and the loop never ends", e);
        }
    }
}
