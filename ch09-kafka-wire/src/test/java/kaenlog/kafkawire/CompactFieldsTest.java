package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.MalformedMessageException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData.TopicPartitions;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
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

    // ---- Kafka judges: a flexible message of every shape, written and read by kafka-clients ------
    //
    // ConsumerGroupHeartbeatRequest (KIP-848) is flexible from its first version and has every compact type:
    // compact strings (group_id, member_id), nullable ones (instance_id, rack_id, server_assignor), a nullable
    // compact array of compact strings, a nullable compact array of structures that end with tagged fields,
    // and tagged fields at the end. Your reader and writer take it field by field in its layout.

    /** A heartbeat of any shape, Kafka's tagged fields it does not know included, and the version (0 or 1). */
    record Heartbeat(ConsumerGroupHeartbeatRequestData data, short version) {
        @Override
        public String toString() {
            return "ConsumerGroupHeartbeatRequest v" + version + " " + describe(data, version);
        }
    }

    static Gen<Heartbeat> heartbeats() {
        Gen<String> nullable = KafkaMessages.text(3);
        Gen<String> text = KafkaMessages.text(0);
        return c -> {
            short version = (short) c.belowInt(2);
            ConsumerGroupHeartbeatRequestData data = new ConsumerGroupHeartbeatRequestData()
                    .setGroupId(text.generate(c)).setMemberId(text.generate(c)).setMemberEpoch(Gens.ints().generate(c))
                    .setInstanceId(nullable.generate(c)).setRackId(nullable.generate(c))
                    .setRebalanceTimeoutMs(Gens.ints().generate(c))
                    .setSubscribedTopicNames(c.oneIn(3) ? null : Gens.lists(text, 0, 3).generate(c))
                    .setSubscribedTopicRegex(version >= 1 ? nullable.generate(c) : null)
                    .setServerAssignor(nullable.generate(c));
            if (!c.oneIn(3)) {
                List<TopicPartitions> topics = new ArrayList<>();
                for (int i = c.belowInt(3); i > 0; i--) {
                    TopicPartitions topic = new TopicPartitions()
                            .setTopicId(new Uuid(Gens.longs().generate(c), Gens.longs().generate(c)))
                            .setPartitions(Gens.lists(Gens.ints(), 0, 3).generate(c));
                    topic.unknownTaggedFields().addAll(KafkaMessages.unknownTaggedFields().generate(c));
                    topics.add(topic);
                }
                data.setTopicPartitions(topics);
            } else {
                data.setTopicPartitions(null);
            }
            data.unknownTaggedFields().addAll(KafkaMessages.unknownTaggedFields().generate(c));
            return new Heartbeat(data, version);
        };
    }

    /** What a reader found, field by field, as one line (tagged fields it does not know are not part of it). */
    static String describe(ConsumerGroupHeartbeatRequestData d, short version) {
        List<String> topics = d.topicPartitions() == null ? null : d.topicPartitions().stream()
                .map(t -> "(" + t.topicId().getMostSignificantBits() + " " + t.topicId().getLeastSignificantBits() + " "
                        + t.partitions() + ")").toList();
        return "group_id " + Property.show(d.groupId()) + ", member_id " + Property.show(d.memberId()) + ", member_epoch "
                + d.memberEpoch() + ", instance_id " + Property.show(d.instanceId()) + ", rack_id "
                + Property.show(d.rackId()) + ", rebalance_timeout_ms " + d.rebalanceTimeoutMs()
                + ", subscribed_topic_names " + Property.show(d.subscribedTopicNames())
                + (version >= 1 ? ", subscribed_topic_regex " + Property.show(d.subscribedTopicRegex()) : "")
                + ", server_assignor " + Property.show(d.serverAssignor()) + ", topic_partitions " + Property.show(topics);
    }

    /** Reads a heartbeat with your reader, field by field in Kafka's layout. */
    static String readWithYourReader(byte[] bytes, short version) {
        KafkaReader in = new KafkaReader(bytes);
        ConsumerGroupHeartbeatRequestData d = new ConsumerGroupHeartbeatRequestData()
                .setGroupId(in.compactString("group_id")).setMemberId(in.compactString("member_id"))
                .setMemberEpoch(in.int32("member_epoch")).setInstanceId(in.compactNullableString("instance_id"))
                .setRackId(in.compactNullableString("rack_id")).setRebalanceTimeoutMs(in.int32("rebalance_timeout_ms"));
        int names = in.compactArrayLength("subscribed_topic_names");
        if (names >= 0) {
            List<String> list = new ArrayList<>();
            for (int i = 0; i < names; i++) {
                list.add(in.compactString("subscribed_topic_names"));
            }
            d.setSubscribedTopicNames(list);
        } else {
            d.setSubscribedTopicNames(null);
        }
        if (version >= 1) {
            d.setSubscribedTopicRegex(in.compactNullableString("subscribed_topic_regex"));
        }
        d.setServerAssignor(in.compactNullableString("server_assignor"));
        int topics = in.compactArrayLength("topic_partitions");
        if (topics >= 0) {
            List<TopicPartitions> list = new ArrayList<>();
            for (int i = 0; i < topics; i++) {
                TopicPartitions t = new TopicPartitions().setTopicId(new Uuid(in.int64("topic_id"), in.int64("topic_id")));
                int partitions = in.compactArrayLength("partitions");
                if (partitions < 0) {
                    throw new MalformedMessageException("partitions: null where an array is required");
                }
                List<Integer> p = new ArrayList<>();
                for (int j = 0; j < partitions; j++) {
                    p.add(in.int32("partitions"));
                }
                t.setPartitions(p);
                in.skipTaggedFields("topic_partitions");
                list.add(t);
            }
            d.setTopicPartitions(list);
        } else {
            d.setTopicPartitions(null);
        }
        in.skipTaggedFields("ConsumerGroupHeartbeatRequest");
        return describe(d, version) + "; the next field at byte " + in.position();
    }

    /** Writes a heartbeat with your writer, field by field in Kafka's layout, no tagged field of its own. */
    static byte[] writeWithYourWriter(ConsumerGroupHeartbeatRequestData d, short version) {
        KafkaWriter out = new KafkaWriter().compactNullableString(d.groupId()).compactNullableString(d.memberId())
                .int32(d.memberEpoch()).compactNullableString(d.instanceId()).compactNullableString(d.rackId())
                .int32(d.rebalanceTimeoutMs());
        if (d.subscribedTopicNames() == null) {
            out.compactArrayLength(-1);
        } else {
            out.compactArrayLength(d.subscribedTopicNames().size());
            d.subscribedTopicNames().forEach(out::compactNullableString);
        }
        if (version >= 1) {
            out.compactNullableString(d.subscribedTopicRegex());
        }
        out.compactNullableString(d.serverAssignor());
        if (d.topicPartitions() == null) {
            out.compactArrayLength(-1);
        } else {
            out.compactArrayLength(d.topicPartitions().size());
            for (TopicPartitions t : d.topicPartitions()) {
                out.int64(t.topicId().getMostSignificantBits()).int64(t.topicId().getLeastSignificantBits());
                out.compactArrayLength(t.partitions().size());
                t.partitions().forEach(out::int32);
                out.noTaggedFields();
            }
        }
        return out.noTaggedFields().toByteArray();
    }

    private static final String RULE = "a compact string or array carries its length + 1 as an unsigned varint (0 is"
            + " null, 1 the empty one), a string then its UTF-8 bytes; every flexible structure ends with tagged fields,"
            + " a count then per field a tag and a size, skipped by the size; a count or length above the bytes left is"
            + " refused";

    @Test
    void kafkasMessagesAreReadFieldByFieldAsKafkaReadsThem() {
        Property.forAll(heartbeats().flatMap(h -> c -> new Object[] {h, KafkaMessages.maybeDamaged(c,
                KafkaMessages.write(h.data(), h.version()))})).tries(300).show(x -> x[0] + "\n  the bytes " + x[1])
                .check(x -> {
                    Heartbeat h = (Heartbeat) x[0];
                    KafkaMessages.Sent sent = (KafkaMessages.Sent) x[1];
                    byte[] bytes = sent.bytes();
                    Judge.Outcome yours = Judge.Outcome.of(() -> readWithYourReader(bytes, h.version()));
                    Judge.Outcome kafkas = Judge.Outcome.of(() -> {
                        ByteBuffer in = ByteBuffer.wrap(bytes);
                        ConsumerGroupHeartbeatRequestData d = new ConsumerGroupHeartbeatRequestData(new ByteBufferAccessor(in),
                                h.version());
                        return describe(d, h.version()) + "; the next field at byte " + in.position();
                    });
                    KafkaMessages.refusedWithATypedError(yours, "these bytes of ConsumerGroupHeartbeatRequest v" + h.version());
                    KafkaMessages.agree(sent, "these bytes of ConsumerGroupHeartbeatRequest v" + h.version(), "reading", yours,
                            "ConsumerGroupHeartbeatRequestData reads", kafkas, RULE);
                });
    }

    @Test
    void kafkasMessagesAreWrittenByteForByteAsKafkaWritesThem() {
        Property.forAll(heartbeats()).tries(300).check(h -> {
            h.data().unknownTaggedFields().clear(); // your writer has no tagged field to send
            if (h.data().topicPartitions() != null) {
                h.data().topicPartitions().forEach(t -> t.unknownTaggedFields().clear());
            }
            Judge.agree("the " + h, "bytes", writeWithYourWriter(h.data(), h.version()),
                    "ConsumerGroupHeartbeatRequestData writes", KafkaMessages.write(h.data(), h.version()), RULE);
        });
    }
}
