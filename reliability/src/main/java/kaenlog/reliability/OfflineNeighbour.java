package kaenlog.reliability;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.RecordBatch;
import kaenlog.client.BrokerClient;
import kaenlog.log.Segment;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ListOffsets;
import kaenlog.wire.ProduceRequest;

/**
 * One offline partition beside a healthy one (issue #23, finding 5): a real broker holds
 * {@code healthy-0} and {@code broken-0}; after a clean stop a second segment claiming the first
 * one's offsets is put into {@code broken-0}, so it cannot be opened and is offline. One client then
 * alternates, on one connection, ListOffsets (every kind), Fetch and Produce between the two. Every
 * request about the offline partition must be answered STORAGE_ERROR, the connection must stay open
 * (the finding: one ListOffsets closed it, and a consumer of both reconnected 98 times in 12 s
 * without reading anything), and the healthy partition must be read whole.
 */
public final class OfflineNeighbour implements Figures {
    static final String HEALTHY = "healthy-0";
    static final String BROKEN = "broken-0";
    private static final int BATCHES = 20;
    private static final int RECORDS_PER_BATCH = 10;
    private static final int ROUNDS = 50;
    private static final long[] TIMESTAMPS = {ListOffsets.EARLIEST, ListOffsets.LATEST, ListOffsets.MAX_TIMESTAMP,
            1_700_000_000_000L};

    private final long requests;
    private final long offlineAnswers;
    private final long otherAnswers;
    private final long connectionsClosed;
    private final long healthyAcked;
    private final long healthyRead;
    private final List<String> notes;

    private OfflineNeighbour(long requests, long offlineAnswers, long otherAnswers, long connectionsClosed,
                             long healthyAcked, long healthyRead, List<String> notes) {
        this.requests = requests;
        this.offlineAnswers = offlineAnswers;
        this.otherAnswers = otherAnswers;
        this.connectionsClosed = connectionsClosed;
        this.healthyAcked = healthyAcked;
        this.healthyRead = healthyRead;
        this.notes = List.copyOf(notes);
    }

    public long connectionsClosed() {
        return connectionsClosed;
    }

    public long healthyLost() {
        return healthyAcked - healthyRead;
    }

    /** Answers about the offline partition that were not STORAGE_ERROR. */
    public long otherAnswers() {
        return otherAnswers;
    }

    public long offlineAnswers() {
        return offlineAnswers;
    }

    public static OfflineNeighbour run(Path dir, BrokerProcess.Options options) throws IOException {
        List<String> notes = new ArrayList<>();
        long acked = 0;
        try (BrokerProcess broker = BrokerProcess.start(dir, options);
             BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), 20_000)) {
            for (int b = 0; b < BATCHES; b++) {
                if (client.produce(HEALTHY, ProduceRequest.ACKS_ALL, batch(b)).error() == ErrorCode.NONE) {
                    acked += RECORDS_PER_BATCH;
                }
            }
            client.produce(BROKEN, ProduceRequest.ACKS_ALL, batch(-1));
        }
        Path broken = dir.resolve(BROKEN);
        Files.copy(broken.resolve(Segment.fileName(0, Segment.LOG_SUFFIX)), broken.resolve(Segment.fileName(1,
                Segment.LOG_SUFFIX)), StandardCopyOption.REPLACE_EXISTING);
        long requests = 0;
        long offline = 0;
        long other = 0;
        long closed = 0;
        long read = 0;
        try (BrokerProcess broker = BrokerProcess.start(dir, options)) {
            broker.awaitLog(line -> line.contains(BROKEN + " is offline"), 10_000);
            broker.log().stream().filter(line -> line.contains(BROKEN + " is offline")).findFirst()
                    .ifPresent(line -> notes.add("broker log: " + line.replace(dir.toString(), "<data>")));
            BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), 20_000);
            long position = 0;
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    try {
                        for (long timestamp : TIMESTAMPS) {
                            requests += 2;
                            ErrorCode e = listOffsets(client, BROKEN, timestamp);
                            offline += e == ErrorCode.STORAGE_ERROR ? 1 : 0;
                            other += e == ErrorCode.STORAGE_ERROR ? 0 : 1;
                            listOffsets(client, HEALTHY, timestamp);
                        }
                        requests += 3;
                        ErrorCode fetch = client.fetch(FetchRequest.consumer(BROKEN, 0, 1 << 20, 0)).error();
                        ErrorCode produce = client.produce(BROKEN, ProduceRequest.ACKS_ALL, batch(99)).error();
                        offline += (fetch == ErrorCode.STORAGE_ERROR ? 1 : 0) + (produce == ErrorCode.STORAGE_ERROR ? 1 : 0);
                        other += (fetch == ErrorCode.STORAGE_ERROR ? 0 : 1) + (produce == ErrorCode.STORAGE_ERROR ? 0 : 1);
                        FetchResponse healthy = client.fetch(FetchRequest.consumer(HEALTHY, position, 4096, 0));
                        for (RecordBatch batch : RecordBatch.decodeAll(healthy.records())) {
                            read += batch.records().size();
                            position = batch.nextOffset();
                        }
                    } catch (EOFException gone) {
                        closed++;
                        client.close();
                        client = BrokerClient.connect(broker.host(), broker.port(), 20_000);
                    }
                }
            } finally {
                client.close();
            }
        }
        notes.add(requests + " requests on one connection, " + ROUNDS + " rounds of ListOffsets (-2, -1, -3, a time)"
                + " for both partitions, Fetch and Produce to " + BROKEN + ", Fetch from " + HEALTHY);
        notes.add(offline + " answers about " + BROKEN + " were STORAGE_ERROR, " + other + " something else; "
                + closed + " connection(s) closed; " + read + " of " + acked + " records of " + HEALTHY + " read");
        return new OfflineNeighbour(requests, offline, other, closed, acked, read, notes);
    }

    private static ErrorCode listOffsets(BrokerClient client, String partition, long timestamp) throws IOException {
        return ListOffsets.Response.decode(client.call(ApiKeys.LIST_OFFSETS,
                new ListOffsets.Request(partition, timestamp).encode())).error();
    }

    private static ByteBuffer batch(int serial) {
        BatchBuilder builder = new BatchBuilder();
        for (int r = 0; r < RECORDS_PER_BATCH; r++) {
            builder.append(1_700_000_000_000L + r, null, String.format("b%03d-r%02d", serial, r)
                    .getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    @Override
    public Row row() {
        return new Row("10 one offline partition beside a healthy one", requests, healthyAcked, 1, healthyLost(), -1,
                -1);
    }

    @Override
    public List<String> details() {
        return notes;
    }

    @Override
    public boolean ok() {
        return connectionsClosed == 0 && otherAnswers == 0 && healthyLost() == 0 && offlineAnswers > 0;
    }
}
