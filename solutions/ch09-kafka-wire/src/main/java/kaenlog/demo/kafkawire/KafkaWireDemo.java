package kaenlog.demo.kafkawire;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.cli.Claims;
import kaenlog.cli.Flags;
import kaenlog.cli.ScratchDir;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.kafkawire.ApiKey;
import kaenlog.kafkawire.Backend;
import kaenlog.kafkawire.KafkaApis;
import kaenlog.kafkawire.KafkaErrors;
import kaenlog.kafkawire.KafkaReader;
import kaenlog.kafkawire.KafkaWriter;
import kaenlog.kafkawire.ListOffsets;
import kaenlog.kafkawire.Metadata;
import kaenlog.wire.ErrorCode;

/**
 * {@code klog kafka-wire-demo}: a Kafka client's first conversation with kaen-log, byte for byte,
 * with no socket in the way: each request is built as kafka-clients 4.1.1 builds it, handed to
 * {@link KafkaApis}, and the answer read back. ApiVersions and its fallback, Metadata, InitProducerId,
 * an idempotent Produce and its resend, ListOffsets, Fetch, and the error table. Every claim is
 * checked before it exits.
 */
public final class KafkaWireDemo implements Subcommand {
    private static final String ADVERTISED_HOST = "127.0.0.1";
    private static final int ADVERTISED_PORT = 9093;
    private static final HexFormat HEX = HexFormat.of();

    @Override
    public String name() {
        return "kafka-wire-demo";
    }

    @Override
    public String usage() {
        return "[--now-ms MS (the records' CreateTime)]";
    }

    @Override
    public String summary() {
        return "chapter 9: a Kafka client's first requests, answered by kaen-log, byte by byte";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("now-ms"), Set.of()).noPositional();
        long nowMs = flags.nowMs(1_700_000_000_000L);
        Claims claims = new Claims();
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        try (ScratchDir scratch = ScratchDir.create("klog-kafka-wire-demo");
             Broker broker = Broker.start(BrokerConfig.of(scratch.resolve("data")).withTickMs(0), quiet)) {
            KafkaApis apis = new KafkaApis(new Backend(broker), ADVERTISED_HOST, ADVERTISED_PORT, quiet);
            showApiVersions(apis, out, claims);
            showMetadata(apis, out, claims);
            long producerId = showInitProducerId(apis, out, claims);
            showProduce(apis, producerId, nowMs, out, claims);
            showListOffsets(apis, out, claims);
            showFetch(apis, nowMs, out, claims);
            showErrorTable(out, claims);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println();
        out.println("self-checks: " + claims.held() + " held");
        return 0;
    }

    /** A request frame as a Kafka client writes it: header v1 or v2, then the body. */
    static byte[] request(ApiKey key, short version, int correlationId, String clientId, KafkaWriter body) {
        KafkaWriter out = new KafkaWriter().int16(key.id).int16(version).int32(correlationId).nullableString(clientId);
        if (key.requestHeaderVersion(version) >= 2) {
            out.noTaggedFields();
        }
        byte[] head = out.toByteArray();
        byte[] tail = body.toByteArray();
        byte[] frame = new byte[head.length + tail.length];
        System.arraycopy(head, 0, frame, 0, head.length);
        System.arraycopy(tail, 0, frame, head.length, tail.length);
        return frame;
    }

    private static KafkaReader answer(KafkaApis apis, byte[] request, int correlationId, boolean headerV1,
                                      Claims claims) throws IOException {
        byte[] response = apis.handle(request).orElseThrow(() -> new IOException("no answer"));
        KafkaReader in = new KafkaReader(response);
        claims.check(in.int32("correlation_id") == correlationId, "the answer carries the request's correlation id "
                + correlationId);
        if (headerV1) {
            in.skipTaggedFields("response header");
        }
        return in;
    }

    private static void showApiVersions(KafkaApis apis, PrintStream out, Claims claims) throws IOException {
        out.println("== 1. ApiVersions: the first question on every connection ==");
        KafkaWriter v4Body = new KafkaWriter().compactNullableString("apache-kafka-java")
                .compactNullableString("4.1.1").noTaggedFields();
        byte[] v4 = request(ApiKey.API_VERSIONS, (short) 4, 1, "producer-1", v4Body);
        out.println("the client asks ApiVersions v4 (its newest); request header v2:");
        out.println("  " + HEX.formatHex(v4, 0, 2) + " api_key 18 · " + HEX.formatHex(v4, 2, 4) + " api_version 4 · "
                + HEX.formatHex(v4, 4, 8) + " correlation_id 1");
        out.println("  " + HEX.formatHex(v4, 8, 20) + " client_id 'producer-1' (a CLASSIC string: int16 length 10)");
        out.println("  " + HEX.formatHex(v4, 20, 21) + " no tagged fields · then the compact body: "
                + HEX.formatHex(v4, 21, 22) + " = length 17 + 1");
        KafkaReader fallback = answer(apis, v4, 1, false, claims);
        short error = fallback.int16("error_code");
        out.println("answer (v0 layout, response header v0): error_code " + error + " UNSUPPORTED_VERSION, with the"
                + " table below");
        claims.check(error == KafkaErrors.UNSUPPORTED_VERSION, "ApiVersions v4 is answered UNSUPPORTED_VERSION (35)");
        byte[] v3 = request(ApiKey.API_VERSIONS, (short) 3, 2, "producer-1", v4Body);
        KafkaReader table = answer(apis, v3, 2, false, claims);
        claims.check(table.int16("error_code") == KafkaErrors.NONE, "asked again at v3, the answer is error 0");
        int count = table.compactArrayLength("api_keys");
        out.println("asked again at v3 (compact layout): error_code 0, " + count + " api keys");
        out.printf("  %-25s %4s %4s %4s %s%n", "request", "key", "min", "max", "first flexible");
        for (int i = 0; i < count; i++) {
            ApiKey key = ApiKey.of(table.int16("api_key")).orElseThrow();
            short min = table.int16("min_version");
            short max = table.int16("max_version");
            table.skipTaggedFields("api_version");
            out.printf("  %-25s %4d %4d %4d %s%n", key, key.id, min, max,
                    key.firstFlexibleVersion == Short.MAX_VALUE ? "none" : key.firstFlexibleVersion);
            claims.check(min == key.minVersion && max == key.maxVersion, key + ": the table says v" + min + "..v" + max);
        }
        out.println();
    }

    private static void showMetadata(KafkaApis apis, PrintStream out, Claims claims) throws IOException {
        out.println("== 2. Metadata v8: who leads topic 'orders'? ==");
        KafkaWriter body = new KafkaWriter().arrayLength(1).nullableString("orders").bool(true).bool(false).bool(false);
        KafkaReader in = answer(apis, request(ApiKey.METADATA, (short) 8, 3, "producer-1", body), 3, false, claims);
        in.int32("throttle_time_ms");
        in.arrayLength("brokers");
        int node = in.int32("node_id");
        String host = in.string("host");
        int port = in.int32("port");
        in.nullableString("rack");
        String cluster = in.nullableString("cluster_id");
        in.int32("controller_id");
        in.arrayLength("topics");
        short topicError = in.int16("error_code");
        String topic = in.string("name");
        in.bool("is_internal");
        int partitions = in.arrayLength("partitions");
        in.int16("partition error_code");
        int partition = in.int32("partition_index");
        int leader = in.int32("leader_id");
        out.println("brokers: node " + node + " at " + host + ":" + port + " · cluster '" + cluster + "'");
        out.println("topic '" + topic + "': error " + topicError + ", " + partitions + " partition · partition "
                + partition + " led by node " + leader + " · created on first use (auto.create.topics.enable)");
        out.println("kaen-log's partition directory for it: " + Backend.partitionName(topic, partition));
        claims.check(topicError == KafkaErrors.NONE && partitions == 1 && leader == Metadata.NODE_ID,
                "orders exists now, one partition, led by this broker");
        out.println();
    }

    private static long showInitProducerId(KafkaApis apis, PrintStream out, Claims claims) throws IOException {
        out.println("== 3. InitProducerId v1 (Kafka key 22): chapter 7's producer id ==");
        KafkaWriter body = new KafkaWriter().nullableString(null).int32(60_000);
        KafkaReader in = answer(apis, request(ApiKey.INIT_PRODUCER_ID, (short) 1, 4, "producer-1", body), 4, false,
                claims);
        in.int32("throttle_time_ms");
        short error = in.int16("error_code");
        long producerId = in.int64("producer_id");
        short epoch = in.int16("producer_epoch");
        out.println("error " + error + " · producer_id " + producerId + " · producer_epoch " + epoch
                + " (issued by chapter 7's INIT_PRODUCER_ID, kaen-log key 2)");
        claims.check(error == KafkaErrors.NONE && producerId >= 0, "an idempotent producer gets an id");
        out.println();
        return producerId;
    }

    private static void showProduce(KafkaApis apis, long producerId, long nowMs, PrintStream out, Claims claims)
            throws IOException {
        out.println("== 4. Produce v8, acks=all: an idempotent batch, then its resend ==");
        ByteBuffer batch = new BatchBuilder().producer(producerId, (short) 0, 0).append(nowMs, "k1", "apple")
                .append(nowMs, "k2", "banana").append(nowMs, "k1", "cherry").build();
        long[] first = produce(apis, batch, 5, claims);
        out.println("seq 0..2 · error " + first[0] + " · base_offset " + first[1] + " · log_start_offset " + first[2]);
        long[] again = produce(apis, batch, 6, claims);
        out.println("the same batch again (its ack was lost) · error " + again[0] + " · base_offset " + again[1]
                + " · a duplicate is answered with the original offsets and writes nothing");
        claims.check(first[0] == KafkaErrors.NONE && first[1] == 0, "the batch lands at base offset 0");
        claims.check(again[0] == KafkaErrors.NONE && again[1] == 0, "the resend is answered with base offset 0 again");
        out.println();
    }

    private static long[] produce(KafkaApis apis, ByteBuffer batch, int correlationId, Claims claims)
            throws IOException {
        KafkaWriter body = new KafkaWriter().nullableString(null).int16(-1).int32(30_000).arrayLength(1)
                .nullableString("orders").arrayLength(1).int32(0).nullableBytes(batch);
        KafkaReader in = answer(apis, request(ApiKey.PRODUCE, (short) 8, correlationId, "producer-1", body),
                correlationId, false, claims);
        in.arrayLength("responses");
        in.string("name");
        in.arrayLength("partition_responses");
        in.int32("index");
        short error = in.int16("error_code");
        long baseOffset = in.int64("base_offset");
        in.int64("log_append_time_ms");
        long logStart = in.int64("log_start_offset");
        return new long[] {error, baseOffset, logStart};
    }

    private static void showListOffsets(KafkaApis apis, PrintStream out, Claims claims) throws IOException {
        out.println("== 5. ListOffsets v5: where can a consumer start? ==");
        long earliest = listOffset(apis, ListOffsets.EARLIEST, 7, claims);
        long latest = listOffset(apis, ListOffsets.LATEST, 8, claims);
        out.println("timestamp -2 (earliest) → offset " + earliest + " · the log start offset");
        out.println("timestamp -1 (latest)   → offset " + latest + " · the high watermark, not the log end");
        claims.check(earliest == 0 && latest == 3, "earliest 0, latest 3: three records, the resend added none");
        out.println();
    }

    private static long listOffset(KafkaApis apis, long timestamp, int correlationId, Claims claims) throws IOException {
        KafkaWriter body = new KafkaWriter().int32(-1).int8(0).arrayLength(1).nullableString("orders").arrayLength(1)
                .int32(0).int32(-1).int64(timestamp);
        KafkaReader in = answer(apis, request(ApiKey.LIST_OFFSETS, (short) 5, correlationId, "consumer-1", body),
                correlationId, false, claims);
        in.int32("throttle_time_ms");
        in.arrayLength("topics");
        in.string("name");
        in.arrayLength("partitions");
        in.int32("partition_index");
        claims.check(in.int16("error_code") == KafkaErrors.NONE, "ListOffsets " + timestamp + " answers error 0");
        in.int64("timestamp");
        return in.int64("offset");
    }

    private static void showFetch(KafkaApis apis, long nowMs, PrintStream out, Claims claims) throws IOException {
        out.println("== 6. Fetch v11 from offset 0, and from offset 7 ==");
        KafkaReader in = fetch(apis, 0, 9, claims);
        short error = in.int16("error_code");
        long hw = in.int64("high_watermark");
        in.int64("last_stable_offset");
        in.int64("log_start_offset");
        in.arrayLength("aborted_transactions");
        in.int32("preferred_read_replica");
        ByteBuffer records = in.nullableBytes("records");
        int bytes = records.remaining();
        List<RecordBatch> batches = RecordBatch.decodeAll(records);
        out.println("error " + error + " · high_watermark " + hw + " · " + bytes + " bytes of records · "
                + batches.size() + " batch, as chapter 1 wrote it:");
        for (RecordBatch b : batches) {
            for (Record r : b.records()) {
                out.println("  offset " + r.offset() + " · CreateTime " + r.timestamp() + " · key " + Record.show(r.key())
                        + " · value " + Record.show(r.value()));
                claims.check(r.timestamp() == nowMs, "offset " + r.offset() + " keeps the producer's CreateTime");
            }
            claims.check(b.header().producerId() >= 0, "the batch still carries its producer id");
        }
        claims.check(error == KafkaErrors.NONE && hw == 3 && batches.size() == 1 && batches.get(0).records().size() == 3,
                "one batch of three records, high watermark 3");
        KafkaReader past = fetch(apis, 7, 10, claims);
        short pastError = past.int16("error_code");
        out.println("from offset 7 · error " + pastError + " OFFSET_OUT_OF_RANGE: the consumer resets by its"
                + " auto.offset.reset");
        claims.check(pastError == KafkaErrors.OFFSET_OUT_OF_RANGE, "offset 7 is out of range (log end 3)");
        out.println();
    }

    private static KafkaReader fetch(KafkaApis apis, long offset, int correlationId, Claims claims) throws IOException {
        KafkaWriter body = new KafkaWriter().int32(-1).int32(0).int32(1).int32(1 << 20).int8(0).int32(0).int32(-1)
                .arrayLength(1).nullableString("orders").arrayLength(1).int32(0).int32(-1).int64(offset).int64(-1)
                .int32(1 << 20).arrayLength(0).nullableString("");
        KafkaReader in = answer(apis, request(ApiKey.FETCH, (short) 11, correlationId, "consumer-1", body),
                correlationId, false, claims);
        in.int32("throttle_time_ms");
        claims.check(in.int16("error_code") == KafkaErrors.NONE, "the fetch as a whole has no error");
        claims.check(in.int32("session_id") == 0, "no fetch session: session_id 0");
        in.arrayLength("responses");
        in.string("topic");
        in.arrayLength("partitions");
        in.int32("partition_index");
        return in;
    }

    private static void showErrorTable(PrintStream out, Claims claims) {
        out.println("== 7. kaen-log's error codes as Kafka's ==");
        out.printf("  %-34s %8s %6s%n", "kaen-log error", "kaen-log", "Kafka");
        for (ErrorCode error : ErrorCode.values()) {
            short kafka = KafkaErrors.of(error);
            out.printf("  %-34s %8d %6d%n", error, error.code(), kafka);
            claims.check(kafka != KafkaErrors.UNKNOWN_SERVER_ERROR, error + " has a Kafka code of its own");
        }
    }
}
