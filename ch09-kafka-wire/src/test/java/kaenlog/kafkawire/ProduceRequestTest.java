package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.MalformedMessageException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Task 5: a Produce request as kafka-clients writes it, v3 to v8, and v0 to v2 as Kafka's own
 * message definition lays them out (kafka-clients 3.9.1's ProduceRequest.json; kafka-clients 4 writes
 * no version below 3).
 */
@Order(5)
class ProduceRequestTest {

    @Test
    void everyVersionFromThreeToEightIsReadFieldByField() {
        MemoryRecords records = MemoryRecords.withIdempotentRecords(Compression.NONE, 1000L, (short) 0, 7,
                new SimpleRecord(1_700_000_000_000L, "k".getBytes(), "v1".getBytes()),
                new SimpleRecord(1_700_000_000_000L, null, "v2".getBytes()));
        for (short v = 3; v <= 8; v++) {
            ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000)
                    .setTransactionalId(null);
            data.topicData().add(new ProduceRequestData.TopicProduceData().setName("orders").setPartitionData(List.of(
                    new ProduceRequestData.PartitionProduceData().setIndex(2).setRecords(records))));
            ByteBuffer bytes = new ProduceRequest(data, v)
                    .serializeWithHeader(new RequestHeader(ApiKeys.PRODUCE, v, "producer-1", 1));
            KafkaReader in = new KafkaReader(bytes);
            kaenlog.kafkawire.RequestHeader.parse(in);
            Produce.Request request = parsed(in, v);
            assertThat(request.transactionalId()).as("v%d: transactional_id, a nullable string: null here", v).isNull();
            assertThat(request.acks()).as("v%d: acks -1 (all)", v).isEqualTo((short) -1);
            assertThat(request.timeoutMs()).as("v%d: timeout_ms", v).isEqualTo(30_000);
            assertThat(request.topics()).as("v%d: one topic", v).hasSize(1);
            assertThat(request.topics().get(0).name()).isEqualTo("orders");
            Produce.PartitionData partition = request.topics().get(0).partitions().get(0);
            assertThat(partition.index()).as("v%d: partition index 2", v).isEqualTo(2);
            assertThat(partition.records()).as("v%d: the records are the batch's bytes, untouched (int32 length, then"
                    + " a RecordBatch v2 that chapter 1 can decode)", v).isEqualTo(records.buffer());
        }
    }

    /**
     * v0 to v2 are v3 without transactional_id ({@code "versions": "3+"} in Kafka's message
     * definition): the request starts with acks. Nobody sends them today, but the listener says it
     * answers them (librdkafka compresses only for a broker whose Produce starts at v0), so it must.
     */
    @Test
    void beforeVersionThreeARequestHasNoTransactionalIdAndStartsWithAcks() {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(1_700_000_000_000L, "k".getBytes(), "v".getBytes()));
        for (short v = 0; v <= 2; v++) {
            for (short acks : new short[] {1, -1}) {
                byte[] body = new KafkaWriter().int16(acks).int32(30_000).arrayLength(1).nullableString("orders")
                        .arrayLength(1).int32(2).nullableBytes(records.buffer()).toByteArray();
                Produce.Request request = parsed(new KafkaReader(body), v);
                String rule = "(no transactional_id before v3: a v" + v + " request starts with acks)";
                assertThat(request.transactionalId()).as("v%d: no transactional_id %s", v, rule).isNull();
                assertThat(request.acks()).as("v%d: acks %d %s", v, acks, rule).isEqualTo(acks);
                assertThat(request.timeoutMs()).as("v%d: timeout_ms %s", v, rule).isEqualTo(30_000);
                assertThat(request.topics()).extracting(Produce.TopicData::name).as("v%d: one topic %s", v, rule)
                        .containsExactly("orders");
                Produce.PartitionData partition = request.topics().get(0).partitions().get(0);
                assertThat(partition.index()).as("v%d: partition index 2 %s", v, rule).isEqualTo(2);
                assertThat(partition.records()).as("v%d: the records, untouched %s", v, rule)
                        .isEqualTo(records.buffer());
            }
        }
    }

    @Test
    void aRequestWithBytesAfterItsLastFieldIsRefused() {
        byte[] withExtra = new KafkaWriter().nullableString(null).int16(1).int32(1_000).arrayLength(0).int8(7)
                .toByteArray();
        assertThat(catchThrowable(() -> Produce.parse(new KafkaReader(withExtra), (short) 8)))
                .as("after the last topic nothing may follow: a leftover byte means the request was read wrong")
                .isInstanceOf(MalformedMessageException.class);
    }

    @Test
    void aNullTopicOrPartitionListIsRefused() {
        byte[] nullTopics = new KafkaWriter().nullableString(null).int16(1).int32(1_000).arrayLength(-1).toByteArray();
        assertThat(catchThrowable(() -> Produce.parse(new KafkaReader(nullTopics), (short) 8)))
                .as("topic_data may not be null: a count of -1 is refused with a MalformedMessageException naming it,"
                        + " as Kafka's ProduceRequestData refuses it ('non-nullable field topicData was serialized as"
                        + " null'), never read as an empty list nor used to size one")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("topic_data");
        byte[] nullPartitions = new KafkaWriter().nullableString(null).int16(1).int32(1_000).arrayLength(1)
                .nullableString("orders").arrayLength(-1).toByteArray();
        assertThat(catchThrowable(() -> Produce.parse(new KafkaReader(nullPartitions), (short) 8)))
                .as("a topic's partition_data may not be null either: -1 is refused with a MalformedMessageException")
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("partition_data");
    }

    @Test
    void everyTopicKeepsItsOwnPartitions() {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(0L, null, "x".getBytes()));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName("orders").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records),
                new ProduceRequestData.PartitionProduceData().setIndex(1).setRecords(records))));
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName("payments").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(3).setRecords(records))));
        ByteBuffer bytes = new ProduceRequest(data, (short) 8)
                .serializeWithHeader(new RequestHeader(ApiKeys.PRODUCE, (short) 8, "producer-1", 1));
        KafkaReader in = new KafkaReader(bytes);
        kaenlog.kafkawire.RequestHeader.parse(in);
        Produce.Request request = parsed(in, (short) 8);
        assertThat(request.topics()).extracting(Produce.TopicData::name).as("two topics, in the request's order")
                .containsExactly("orders", "payments");
        assertThat(request.topics().get(0).partitions()).extracting(Produce.PartitionData::index)
                .as("orders keeps its own partitions, 0 and 1: each topic has a partition list of its own")
                .containsExactly(0, 1);
        assertThat(request.topics().get(1).partitions()).extracting(Produce.PartitionData::index)
                .as("payments keeps its own partitions, only 3: each topic has a partition list of its own")
                .containsExactly(3);
    }

    // ---- Kafka judges: every version from 3 to 8, any field ------------------------------------

    /** A Produce request of version 3 to 8 as kafka-clients writes it (maybe cut short). */
    record Request(ProduceRequestData data, short version, KafkaMessages.Sent sent) {
        @Override
        public String toString() {
            return "Produce v" + version + " " + describe(data) + "; the bytes " + sent;
        }
    }

    /**
     * Any transactional id (null, empty, any text), acks and timeout of any value, zero to three topics (names over
     * all of Unicode) of zero to three partitions, each any index and records of any bytes or null: a parser reads
     * the layout, it does not judge the values.
     */
    static Gen<Request> requests() {
        return c -> {
            short version = (short) (3 + c.belowInt(6));
            ProduceRequestData data = new ProduceRequestData().setTransactionalId(KafkaMessages.text(3).generate(c))
                    .setAcks(Gens.ints(Short.MIN_VALUE, Short.MAX_VALUE).generate(c).shortValue())
                    .setTimeoutMs(Gens.ints().generate(c));
            for (int t = c.belowInt(4); t > 0; t--) {
                List<ProduceRequestData.PartitionProduceData> partitions = new ArrayList<>();
                for (int p = c.belowInt(4); p > 0; p--) {
                    partitions.add(new ProduceRequestData.PartitionProduceData().setIndex(Gens.ints().generate(c))
                            .setRecords(c.oneIn(5) ? null : MemoryRecords.readableRecords(ByteBuffer.wrap(
                                    Gens.bytes(0, 12).generate(c)))));
                }
                data.topicData().add(new ProduceRequestData.TopicProduceData().setName(KafkaMessages.text(0).generate(c))
                        .setPartitionData(partitions));
            }
            return new Request(data, version, KafkaMessages.maybeDamaged(c, KafkaMessages.write(data, version)));
        };
    }

    static String describe(ProduceRequestData d) {
        List<String> topics = new ArrayList<>();
        for (ProduceRequestData.TopicProduceData t : d.topicData()) {
            topics.add(Property.show(t.name()) + " " + t.partitionData().stream().map(p -> p.index() + ": "
                    + (p.records() == null ? "null" : Property.show(((MemoryRecords) p.records()).buffer()))).toList());
        }
        return "transactional_id " + Property.show(d.transactionalId()) + ", acks " + d.acks() + ", timeout_ms "
                + d.timeoutMs() + ", topic_data " + topics;
    }

    static String describe(Produce.Request r) {
        List<String> topics = new ArrayList<>();
        for (Produce.TopicData t : r.topics()) {
            topics.add(Property.show(t.name()) + " " + t.partitions().stream().map(p -> p.index() + ": "
                    + (p.records() == null ? "null" : Property.show(p.records()))).toList());
        }
        return "transactional_id " + Property.show(r.transactionalId()) + ", acks " + r.acks() + ", timeout_ms "
                + r.timeoutMs() + ", topic_data " + topics;
    }

    @Test
    void everyRequestIsParsedAsKafkasProduceRequestDataReadsIt() {
        Property.forAll(requests()).tries(300).check(r -> {
            Judge.Outcome yours = Judge.Outcome.of(() -> describe(Produce.parse(new KafkaReader(r.sent().bytes()), r.version())));
            Judge.Outcome kafkas = Judge.Outcome.of(() -> {
                ByteBuffer in = ByteBuffer.wrap(r.sent().bytes());
                return KafkaMessages.nothingLeft(in, describe(new ProduceRequestData(new ByteBufferAccessor(in), r.version())));
            });
            KafkaMessages.refusedWithATypedError(yours, "this request");
            KafkaMessages.agree(r.sent(), "this request", "parse", yours, "ProduceRequestData reads (nothing may follow)", kafkas,
                    "v3 to v8 share one classic layout: transactional_id (nullable string, -1 = null), acks int16,"
                            + " timeout_ms int32, topic_data (int32 count), each topic a name (int16 length) and its own"
                            + " partition_data (int32 count), each partition an index int32 and records (nullable bytes,"
                            + " int32 length, -1 = null), and nothing after the last topic");
        });
    }

    /**
     * Parses a request as Kafka lays it out: a refusal of it is this task's mistake, and fails saying
     * what the layout is instead of only where the reading went wrong.
     */
    private static Produce.Request parsed(KafkaReader in, short version) {
        try {
            return Produce.parse(in, version);
        } catch (MalformedMessageException e) {
            throw new AssertionError("Produce v" + version + " as Kafka lays it out was refused (" + e.getMessage()
                    + "). v0 to v8 share one classic layout: transactional_id (a nullable string, -1 = null; no"
                    + " transactional_id before v3), acks"
                    + " int16, timeout_ms int32, then topic_data, an int32 count of topics, each a name (a classic"
                    + " string, int16 length) and an int32 count of partitions, each an index (int32), then its records"
                    + " (nullable bytes, int32 length)", e);
        }
    }
}
