package kaenlog.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.ListOffsets;
import kaenlog.wire.OffsetCommit;
import kaenlog.wire.OffsetFetch;

/**
 * {@code klog consume}: fetches as a consumer (up to the high watermark) and prints one line per
 * record, five tab-separated columns:
 * <pre>
 * OFFSET  TIMESTAMP  KEY  VALUE  HEADERS
 * </pre>
 * the timestamp in ms since the epoch (the record's CreateTime), a null key or value as
 * {@code null}, headers as {@code k=v,k=v} or {@code NO_HEADERS} (Kafka's console consumer's word).
 *
 * <p>Where it starts: {@code --from beginning} (the log start offset, the default), {@code end}
 * (the high watermark: only what comes next) or an offset; {@code --from-time T} (ms since the epoch)
 * starts at the earliest offset whose record's timestamp is at or after T, which the broker finds
 * with its time index (LIST_OFFSETS, as kcat's {@code -o s@T}), or at the high watermark when no
 * record is that new. With {@code --group G} it starts at the
 * group's committed offset (chapter 6 stores it), {@code --from} applying only when the group has
 * none (Kafka's auto.offset.reset), and commits the next offset after every fetch it printed, so a
 * second run, even after a broker restart, goes on where the first stopped. A fetch answers with
 * whole batches, so records below the start in the first batch are skipped, as Kafka's consumer
 * does. It stops after {@code --max} records, or when a fetch that waited {@code --wait-ms} comes
 * back empty, unless {@code --follow}: then it waits for more until interrupted. The count goes to
 * stderr at the end (like Kafka's "Processed a total of N messages").
 */
public final class ConsumeCommand implements Subcommand {
    static final int FETCH_MAX_BYTES = 512 * 1024;

    @Override
    public String name() {
        return "consume";
    }

    @Override
    public String usage() {
        return "--partition NAME [--port P (default 9092)] [--host 127.0.0.1] [--from beginning|end|OFFSET"
                + " (default beginning) | --from-time MS] [--group G] [--max N] [--follow] [--wait-ms MS (default 500)] [--skip-corrupt]"
                + "   (prints OFFSET TAB TIMESTAMP TAB KEY TAB VALUE TAB HEADERS)";
    }

    @Override
    public String summary() {
        return "chapter 3: print a partition's records from a running broker (chapter 6: as a consumer group)";
    }

    /** Where to start when no commit says it: beginning, end, an offset, or {@code time:MS}. */
    private record Start(String where) {
        static Start ofTime(String text) throws UsageException {
            try {
                long ms = Long.parseLong(text);
                if (ms < 0) {
                    throw new UsageException("--from-time takes a timestamp in ms since the epoch, 0 or more, not " + text);
                }
                return new Start("time:" + ms);
            } catch (NumberFormatException e) {
                throw new UsageException("--from-time takes a timestamp in ms since the epoch, not '" + text + "'");
            }
        }

        static Start of(String text) throws UsageException {
            if (!text.equals("beginning") && !text.equals("end")) {
                try {
                    if (Long.parseLong(text) < 0) {
                        throw new UsageException("--from takes beginning, end or an offset of 0 or more, not " + text);
                    }
                } catch (NumberFormatException e) {
                    throw new UsageException("--from takes beginning, end or an offset, not '" + text + "'");
                }
            }
            return new Start(text);
        }
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("host", "port", "partition", "from", "from-time", "max", "wait-ms", "group"),
                Set.of("follow", "skip-corrupt")).noPositional();
        ClientFlags from = ClientFlags.of(flags);
        if (flags.has("from") && flags.has("from-time")) {
            throw new UsageException("--from and --from-time choose the same thing: give one");
        }
        Start start = flags.has("from-time") ? Start.ofTime(flags.string("from-time", null))
                : Start.of(flags.string("from", "beginning"));
        long max = flags.longValue("max", Long.MAX_VALUE, 1, Long.MAX_VALUE);
        int waitMs = flags.intValue("wait-ms", 500, 0, Integer.MAX_VALUE);
        String group = flags.string("group", null);
        if (group != null && (group.isEmpty() || group.getBytes(StandardCharsets.UTF_8).length > Short.MAX_VALUE)) {
            throw new UsageException("--group takes a name of 1 to " + Short.MAX_VALUE + " bytes");
        }
        boolean follow = flags.has("follow");
        try (BrokerClient client = BrokerClient.connect(from.host(), from.port())) {
            Consumer consumer = new Consumer(client, from.partition(), group, flags.has("skip-corrupt"), out, err);
            return consumer.run(start, max, waitMs, follow);
        } catch (ConnectException e) {
            err.println("klog consume: cannot connect to " + from.address() + ": " + e.getMessage());
        } catch (IOException e) {
            err.println("klog consume: " + from.address() + ": " + e.getMessage());
        }
        return Klog.FAILED;
    }

    /** One run of klog consume against one connection. */
    private static final class Consumer {
        private final BrokerClient client;
        private final String partition;
        private final String group;
        private final boolean skipCorrupt;
        private long skipped;
        private final PrintStream out;
        private final PrintStream err;

        Consumer(BrokerClient client, String partition, String group, boolean skipCorrupt, PrintStream out,
                 PrintStream err) {
            this.client = client;
            this.partition = partition;
            this.group = group;
            this.skipCorrupt = skipCorrupt;
            this.out = out;
            this.err = err;
        }

        int run(Start start, long max, int waitMs, boolean follow) throws IOException {
            long offset;
            long committed = group == null ? OffsetFetch.NO_OFFSET : committedOffset();
            if (committed != OffsetFetch.NO_OFFSET) {
                offset = committed;
            } else {
                offset = startOffset(start);
                if (offset < 0) {
                    return Klog.FAILED;
                }
            }
            long printed = 0;
            fetching:
            while (printed < max) {
                FetchResponse response = client.fetch(FetchRequest.consumer(partition, offset, FETCH_MAX_BYTES, waitMs));
                if (response.error() == ErrorCode.CORRUPT_BATCH && response.records().remaining() >= BatchHeader.SIZE) {
                    long next = corruptBatch(response, offset);
                    if (next < 0) {
                        return Klog.FAILED;
                    }
                    offset = next;
                    continue;
                }
                if (response.error() != ErrorCode.NONE) {
                    reportFetchError(response, offset);
                    return Klog.FAILED;
                }
                List<RecordBatch> batches = RecordBatch.decodeAll(response.records());
                if (batches.isEmpty()) {
                    if (follow) {
                        continue;
                    }
                    break;
                }
                for (RecordBatch batch : batches) {
                    for (Record r : batch.records()) {
                        if (r.offset() < offset) {
                            continue; // a fetch answers with whole batches: the first may start before the offset asked for
                        }
                        out.println(format(r));
                        if (++printed == max) {
                            offset = r.offset() + 1;
                            commit(offset);
                            break fetching;
                        }
                    }
                    offset = Math.max(offset, batch.nextOffset());
                }
                out.flush();
                commit(offset);
            }
            err.println("consumed " + printed + " record(s) from " + partition + "; next offset " + offset
                    + (group == null ? "" : "; committed for group " + group)
                    + (skipped > 0 ? "; skipped " + skipped + " corrupt batch(es)" : ""));
            return Klog.OK;
        }

        /**
         * The broker found a stored batch that fails its checks and sent it back marked so: stop there
         * and say which offsets (-1), or, with --skip-corrupt, go on after it (the next offset).
         */
        private long corruptBatch(FetchResponse response, long offset) {
            BatchHeader corrupt = BatchHeader.readFrom(response.records().duplicate());
            long last = corrupt.baseOffset() + Math.max(0, corrupt.lastOffsetDelta());
            String where = "the batch at offsets " + corrupt.baseOffset() + ".." + last + " of " + partition;
            if (!skipCorrupt || last < offset) {
                err.println("klog consume: " + where + " is corrupt on the broker (it fails its CRC check);"
                        + " stopped at offset " + offset + " (--skip-corrupt skips such batches)");
                return -1;
            }
            err.println("klog consume: skipped " + where + ": corrupt on the broker (it fails its CRC check)");
            skipped++;
            return last + 1;
        }

        /** The offset to start at when no commit says it; -1 when the broker refused. */
        private long startOffset(Start start) throws IOException {
            if (start.where().startsWith("time:")) {
                return offsetForTime(Long.parseLong(start.where().substring("time:".length())));
            }
            if (!start.where().equals("beginning") && !start.where().equals("end")) {
                return Long.parseLong(start.where());
            }
            // A fetch of nothing (maxWaitMs 0) tells the log start offset and the high watermark.
            FetchResponse probe = client.fetch(FetchRequest.consumer(partition, 0, 1, 0));
            if (probe.error() != ErrorCode.NONE && probe.error() != ErrorCode.OFFSET_OUT_OF_RANGE
                    || probe.logStartOffset() < 0) {
                reportFetchError(probe, 0);
                return -1;
            }
            return start.where().equals("beginning") ? probe.logStartOffset() : probe.highWatermark();
        }

        /** The earliest offset at or after {@code timestampMs}, by LIST_OFFSETS; the high watermark when none; -1 when refused. */
        private long offsetForTime(long timestampMs) throws IOException {
            ListOffsets.Response found = ListOffsets.Response.decode(client.call(ApiKeys.LIST_OFFSETS,
                    new ListOffsets.Request(partition, timestampMs).encode()));
            if (found.error() != ErrorCode.NONE) {
                err.println("klog consume: looking up " + partition + " by time " + timestampMs + " failed: "
                        + found.error());
                return -1;
            }
            if (found.offset() != ListOffsets.UNKNOWN) {
                return found.offset();
            }
            ListOffsets.Response end = ListOffsets.Response.decode(client.call(ApiKeys.LIST_OFFSETS,
                    new ListOffsets.Request(partition, ListOffsets.LATEST).encode()));
            err.println("klog consume: no record of " + partition + " has a timestamp at or after " + timestampMs
                    + ": starting at the high watermark, " + end.offset());
            return end.offset();
        }

        private void reportFetchError(FetchResponse response, long offset) {
            String hint = "";
            if (response.error() == ErrorCode.OFFSET_OUT_OF_RANGE && response.logStartOffset() >= 0) {
                hint = " (the log holds offsets " + response.logStartOffset() + " to " + response.highWatermark()
                        + "; retention removed what was below; --from beginning starts at the log start offset)";
            }
            err.println("klog consume: fetch from " + partition + " at offset " + offset + " failed: "
                    + response.error() + hint);
        }

        private long committedOffset() throws IOException {
            OffsetFetch.Response response;
            try {
                response = OffsetFetch.Response.decode(client.call(ApiKeys.OFFSET_FETCH,
                        new OffsetFetch.Request(group, partition).encode()));
            } catch (EOFException e) {
                throw new IOException("the broker closed the connection instead of answering OFFSET_FETCH (a broker"
                        + " without chapter 6 has no consumer groups; the broker's log says why)");
            }
            if (response.error() != ErrorCode.NONE) {
                throw new IOException("group " + group + ": offset fetch failed: " + response.error());
            }
            return response.offset();
        }

        private void commit(long offset) throws IOException {
            if (group == null) {
                return;
            }
            OffsetCommit.Response response = OffsetCommit.Response.decode(client.call(ApiKeys.OFFSET_COMMIT,
                    new OffsetCommit.Request(group, partition, offset).encode()));
            if (response.error() != ErrorCode.NONE) {
                throw new IOException("group " + group + ": offset commit of " + offset + " failed: "
                        + response.error());
            }
        }
    }

    /** One record as one line: OFFSET, TIMESTAMP, KEY, VALUE, HEADERS, tab-separated. */
    public static String format(Record r) {
        String headers = r.headers().isEmpty() ? "NO_HEADERS" : r.headers().stream()
                .map(h -> h.key() + "=" + Record.show(h.value())).collect(Collectors.joining(","));
        return r.offset() + "\t" + r.timestamp() + "\t" + Record.show(r.key()) + "\t" + Record.show(r.value()) + "\t"
                + headers;
    }
}
