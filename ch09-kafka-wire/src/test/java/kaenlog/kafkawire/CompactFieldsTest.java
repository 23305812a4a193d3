package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.HexFormat;
import kaenlog.wire.MalformedMessageException;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 2: compact strings and arrays (length + 1, 0 = null) and tagged fields, from KIP-482. */
@Order(2)
class CompactFieldsTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void aCompactStringCarriesItsLengthPlusOne() {
        assertThat(HEX.formatHex(new KafkaWriter().compactNullableString("abc").toByteArray()))
                .as("'abc' is length 3, written as 3 + 1 = 04, then the UTF-8 bytes").isEqualTo("04616263");
        assertThat(HEX.formatHex(new KafkaWriter().compactNullableString("").toByteArray()))
                .as("the empty string is length 0, written as 01 — it is not null").isEqualTo("01");
        assertThat(HEX.formatHex(new KafkaWriter().compactNullableString(null).toByteArray()))
                .as("null is 00: that is why every compact length is shifted by one").isEqualTo("00");
    }

    @Test
    void compactStringsReadBackIncludingNullAndEmpty() {
        KafkaReader in = new KafkaReader(HEX.parseHex("0461626301000bc3a9"));
        assertThat(in.compactNullableString("a")).as("04 616263 is 'abc'").isEqualTo("abc");
        assertThat(in.compactNullableString("b")).as("01 is the empty string").isEmpty();
        assertThat(in.compactNullableString("c")).as("00 is null").isNull();
        assertThat(catchThrowable(() -> in.compactNullableString("d")))
                .as("0b announces 10 bytes and two follow: refused before anything is allocated")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("d");
    }

    @Test
    void aCompactArrayCarriesItsCountPlusOne() {
        assertThat(HEX.formatHex(new KafkaWriter().compactArrayLength(6).toByteArray()))
                .as("six elements are written as 07").isEqualTo("07");
        // a byte to spare, so that a count read one too high is a wrong count, not a lack of bytes
        assertThat(new KafkaReader(HEX.parseHex("07" + "00".repeat(7))).compactArrayLength("api_keys"))
                .as("07 is six elements").isEqualTo(6);
        assertThat(new KafkaReader(HEX.parseHex("00")).compactArrayLength("topics"))
                .as("00 is a null array, returned as -1").isEqualTo(-1);
    }

    @Test
    void anArrayCountLargerThanTheBytesLeftIsALie() {
        assertThat(catchThrowable(() -> new KafkaReader(HEX.parseHex("ffffff7f00")).compactArrayLength("topics")))
                .as("a count of 268 million with one byte left would grow a list until memory runs out: refuse it")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("topics");
    }

    @Test
    void unknownTaggedFieldsAreSkippedByTheirSize() {
        // two tagged fields: tag 0 of 2 bytes, tag 5 of 1 byte; then an int16 that must still be found
        KafkaReader in = new KafkaReader(HEX.parseHex("02" + "00" + "02" + "abcd" + "05" + "01" + "ee" + "1234"));
        in.skipTaggedFields("header");
        assertThat(in.int16("next")).as("after skipping both tagged fields by their sizes the next field is 0x1234")
                .isEqualTo((short) 0x1234);
        KafkaReader none = new KafkaReader(HEX.parseHex("00" + "1234"));
        none.skipTaggedFields("header");
        assertThat(none.int16("next")).as("a tagged field count of 0 takes one byte").isEqualTo((short) 0x1234);
    }

    @Test
    void aTaggedFieldLongerThanTheBytesLeftIsRefused() {
        assertThat(catchThrowable(() -> new KafkaReader(HEX.parseHex("01" + "00" + "09" + "ab"))
                .skipTaggedFields("header")))
                .as("a tagged field of 9 bytes with 1 left: an error naming the structure")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("header");
    }
}
