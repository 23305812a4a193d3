package kaenlog.kafkawire;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import kaenlog.txn.TransactionResult;
import kaenlog.txn.TxnMarker;
import kaenlog.txn.TxnTransit;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * Kafka's WriteTxnMarkers (api key 27), the request a transaction coordinator sends each leader of
 * a transaction's partitions, in its only version, v1 (flexible; v0 was removed in Kafka 4.0):
 * kafka-clients 4.1.1's {@code common/message/WriteTxnMarkersRequest.json} and
 * {@code WriteTxnMarkersResponse.json}. Request: markers [producer_id int64 · producer_epoch int16 ·
 * transaction_result bool (true: COMMIT) · topics [name · partition_indexes [int32]] ·
 * coordinator_epoch int32]; response: markers [producer_id · topics [name · partitions
 * [partition_index · error_code]]]; compact strings and arrays, no tagged fields. kaen-log carries this
 * body on chapter 10's inter-broker listener under its own key (chapter 3's
 * {@code ApiKeys.WRITE_TXN_MARKERS}), as Kafka sends it on its inter-broker listener.
 */
public final class WriteTxnMarkers {
    /** Kafka's api key and the version whose body this is. */
    public static final short KAFKA_API_KEY = 27;
    public static final short VERSION = 1;

    private WriteTxnMarkers() {
    }

    /** One marker as the request carries it: whose, which end, the coordinator's epoch, where. */
    public record Marker(long producerId, short producerEpoch, TransactionResult result, int coordinatorEpoch,
                         SortedSet<TopicPartition> partitions) {
    }

    /** The request's body for {@code markers}. */
    public static byte[] request(List<TxnMarker> markers) {
        KafkaWriter out = new KafkaWriter().compactArrayLength(markers.size());
        for (TxnMarker marker : markers) {
            out.int64(marker.producerId()).int16(marker.producerEpoch())
                    .bool(marker.result() == TransactionResult.COMMIT);
            Map<String, List<Integer>> topics = byTopic(marker.partitions());
            out.compactArrayLength(topics.size());
            topics.forEach((topic, partitions) -> {
                out.compactNullableString(topic).compactArrayLength(partitions.size());
                partitions.forEach(out::int32);
                out.noTaggedFields();
            });
            out.int32(marker.coordinatorEpoch()).noTaggedFields();
        }
        return out.noTaggedFields().toByteArray();
    }

    /** Reads a request's body; a body that is not one is a {@link MalformedMessageException}. */
    public static List<Marker> parseRequest(byte[] body) {
        KafkaReader in = new KafkaReader(body);
        int count = required(in.compactArrayLength("markers"), "markers");
        List<Marker> markers = new ArrayList<>();
        for (int m = 0; m < count; m++) {
            long producerId = in.int64("producer_id");
            short producerEpoch = in.int16("producer_epoch");
            TransactionResult result = in.bool("transaction_result") ? TransactionResult.COMMIT : TransactionResult.ABORT;
            SortedSet<TopicPartition> partitions = new TreeSet<>(TxnTransit.ORDER);
            int topics = required(in.compactArrayLength("topics"), "topics");
            for (int t = 0; t < topics; t++) {
                String topic = in.compactString("topics.name");
                int indexes = required(in.compactArrayLength("partition_indexes"), "partition_indexes");
                for (int p = 0; p < indexes; p++) {
                    partitions.add(new TopicPartition(topic, in.int32("partition_index")));
                }
                in.skipTaggedFields("WriteTxnMarkers topic");
            }
            int coordinatorEpoch = in.int32("coordinator_epoch");
            in.skipTaggedFields("WriteTxnMarkers marker");
            markers.add(new Marker(producerId, producerEpoch, result, coordinatorEpoch, partitions));
        }
        in.skipTaggedFields("WriteTxnMarkers request");
        in.end("WriteTxnMarkers v" + VERSION + " request");
        return markers;
    }

    /** The response's body: for each marker in order, its producer id and each partition's error code. */
    public static byte[] response(List<Long> producerIds, List<Map<TopicPartition, Short>> errors) {
        KafkaWriter out = new KafkaWriter().compactArrayLength(producerIds.size());
        for (int m = 0; m < producerIds.size(); m++) {
            out.int64(producerIds.get(m));
            Map<String, List<Integer>> topics = byTopic(errors.get(m).keySet());
            out.compactArrayLength(topics.size());
            int marker = m;
            topics.forEach((topic, partitions) -> {
                out.compactNullableString(topic).compactArrayLength(partitions.size());
                for (int partition : partitions) {
                    out.int32(partition).int16(errors.get(marker).get(new TopicPartition(topic, partition)))
                            .noTaggedFields();
                }
                out.noTaggedFields();
            });
            out.noTaggedFields();
        }
        return out.noTaggedFields().toByteArray();
    }

    /** Reads a response's body: each marker's partitions with their error codes, in the order of the markers. */
    public static List<Map<TopicPartition, Short>> parseResponse(byte[] body) {
        KafkaReader in = new KafkaReader(body);
        int count = required(in.compactArrayLength("markers"), "markers");
        List<Map<TopicPartition, Short>> results = new ArrayList<>();
        for (int m = 0; m < count; m++) {
            in.int64("producer_id");
            Map<TopicPartition, Short> errors = new LinkedHashMap<>();
            int topics = required(in.compactArrayLength("topics"), "topics");
            for (int t = 0; t < topics; t++) {
                String topic = in.compactString("topics.name");
                int partitions = required(in.compactArrayLength("partitions"), "partitions");
                for (int p = 0; p < partitions; p++) {
                    int partition = in.int32("partition_index");
                    errors.put(new TopicPartition(topic, partition), in.int16("error_code"));
                    in.skipTaggedFields("WriteTxnMarkers partition result");
                }
                in.skipTaggedFields("WriteTxnMarkers topic result");
            }
            in.skipTaggedFields("WriteTxnMarkers marker result");
            results.add(errors);
        }
        in.skipTaggedFields("WriteTxnMarkers response");
        in.end("WriteTxnMarkers v" + VERSION + " response");
        return results;
    }

    private static int required(int count, String field) {
        if (count < 0) {
            throw new MalformedMessageException("WriteTxnMarkers: " + field + " is null");
        }
        return count;
    }

    /** The partitions grouped by topic, topics and partitions in order. */
    private static Map<String, List<Integer>> byTopic(Collection<TopicPartition> partitions) {
        Map<String, List<Integer>> topics = new LinkedHashMap<>();
        partitions.stream().sorted(TxnTransit.ORDER)
                .forEach(tp -> topics.computeIfAbsent(tp.topic(), x -> new ArrayList<>()).add(tp.partition()));
        return topics;
    }
}
