package kaenlog.broker;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.util.List;
import java.util.Set;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.produce.ErrorCode;
import kaenlog.produce.FetchRequest;
import kaenlog.produce.FetchResponse;

/**
 * {@code klog consume}: fetches as a consumer (up to the high watermark) from {@code --from} and
 * prints {@code offset TAB key TAB value} per record. A fetch returns whole batches, so records
 * below {@code --from} in the first batch are skipped here, as Kafka's consumer does. Stops after
 * {@code --max} records, or when a fetch that waited {@code --wait-ms} comes back empty. The
 * count goes to stderr at the end (like Kafka's "Processed a total of N messages").
 */
public final class ConsumeCommand implements Subcommand {
    static final int FETCH_MAX_BYTES = 512 * 1024;

    @Override
    public String name() {
        return "consume";
    }

    @Override
    public String usage() {
        return "--port P --partition NAME [--host 127.0.0.1] [--from OFFSET (default 0)] [--max N]"
                + " [--wait-ms MS (default 500)] [--skip-corrupt]";
    }

    @Override
    public String summary() {
        return "chapter 3: print a partition's records from a running broker";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("host", "port", "partition", "from", "max", "wait-ms"),
                        Set.of("skip-corrupt"))
                .noPositional();
        ClientFlags from = ClientFlags.of(flags);
        long offset = flags.longValue("from", 0, 0, Long.MAX_VALUE - 1);
        long max = flags.longValue("max", Long.MAX_VALUE, 1, Long.MAX_VALUE);
        int waitMs = flags.intValue("wait-ms", 500, 0, Integer.MAX_VALUE);
        try (BrokerClient client = BrokerClient.connect(from.host(), from.port())) {
            return consume(client, from.partition(), offset, max, waitMs, flags.has("skip-corrupt"), out, err);
        } catch (ConnectException e) {
            err.println("klog consume: cannot connect to " + from.address() + ": " + e.getMessage());
        } catch (IOException e) {
            err.println("klog consume: " + from.address() + ": " + e.getMessage());
        }
        return Klog.FAILED;
    }

    private static int consume(BrokerClient client, String partition, long from, long max, int waitMs,
                               boolean skipCorrupt, PrintStream out, PrintStream err) throws IOException {
        long offset = from;
        long printed = 0;
        long skipped = 0;
        fetching:
        while (printed < max) {
            FetchResponse response = client.fetch(FetchRequest.consumer(partition, offset, FETCH_MAX_BYTES, waitMs));
            if (response.error() == ErrorCode.CORRUPT_BATCH && response.records().remaining() >= BatchHeader.SIZE) {
                // The broker found a stored batch that fails its checks and sent it back marked so.
                BatchHeader corrupt = BatchHeader.readFrom(response.records().duplicate());
                long last = corrupt.baseOffset() + Math.max(0, corrupt.lastOffsetDelta());
                String where = "the batch at offsets " + corrupt.baseOffset() + ".." + last + " of " + partition;
                if (!skipCorrupt || last < offset) {
                    err.println("klog consume: " + where + " is corrupt on the broker (it fails its CRC check);"
                            + " stopped at offset " + offset + " (--skip-corrupt skips such batches)");
                    return Klog.FAILED;
                }
                err.println("klog consume: skipped " + where + ": corrupt on the broker (it fails its CRC check)");
                skipped++;
                offset = last + 1;
                continue;
            }
            if (response.error() != ErrorCode.NONE) {
                err.println("klog consume: fetch from " + partition + " at offset " + offset + " failed: "
                        + response.error());
                return Klog.FAILED;
            }
            List<RecordBatch> batches = RecordBatch.decodeAll(response.records());
            if (batches.isEmpty()) {
                break;
            }
            for (RecordBatch batch : batches) {
                for (Record r : batch.records()) {
                    if (r.offset() < offset) {
                        continue; // a fetch answers with whole batches: the first may start before the offset asked for
                    }
                    out.println(r.offset() + "\t" + Record.show(r.key()) + "\t" + Record.show(r.value()));
                    if (++printed == max) {
                        offset = r.offset() + 1;
                        break fetching;
                    }
                }
                offset = batch.nextOffset();
            }
        }
        err.println("consumed " + printed + " record(s) from " + partition + "; next offset " + offset
                + (skipped > 0 ? "; skipped " + skipped + " corrupt batch(es)" : ""));
        return Klog.OK;
    }
}
