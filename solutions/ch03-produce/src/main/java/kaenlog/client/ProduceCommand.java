package kaenlog.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import kaenlog.batch.BatchBuilder;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.cli.WallClock;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.Frames;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * {@code klog produce}: every line of stdin becomes a record, sent in batches of up to
 * {@code --batch} lines. A batch also goes out as soon as stdin has nothing more ready, so lines
 * typed by hand arrive one by one. As with kcat ({@code -K :}, {@code -H k=v}) and Kafka's console
 * producer ({@code --property parse.key=true --property key.separator=:}): without a key separator
 * the line is the value and the key is null; with {@code --key-separator SEP} the line is
 * {@code KEY SEP VALUE}, split at the first SEP; {@code --header k=v} (repeatable) goes on every
 * record. The timestamp is the wall clock when the batch is sent, or {@code --now-ms}.
 */
public final class ProduceCommand implements Subcommand {
    /** A batch is sent before its values pass this many bytes, keeping every request under the frame limit. */
    static final int FLUSH_BYTES = Frames.DEFAULT_MAX_FRAME_BYTES / 2;

    private final InputStream stdin;

    public ProduceCommand() {
        this(System.in);
    }

    /** Reads the lines from {@code stdin} instead of System.in (tests). */
    public ProduceCommand(InputStream stdin) {
        this.stdin = stdin;
    }

    @Override
    public String name() {
        return "produce";
    }

    @Override
    public String usage() {
        return "--partition NAME [--port P (default 9092)] [--host 127.0.0.1] [--acks 0|1|all (default 1)]"
                + " [--batch N (default 100)] [--key-separator SEP] [--property parse.key=true|key.separator=SEP]"
                + " [--header KEY=VALUE]... [--now-ms MS]   (one record per line of stdin)";
    }

    @Override
    public String summary() {
        return "chapter 3: send stdin's lines to a partition of a running broker";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("host", "port", "partition", "acks", "batch", "now-ms", "key-separator"),
                Set.of(), Set.of("header", "property")).noPositional();
        ClientFlags to = ClientFlags.of(flags);
        short acks = acks(flags.string("acks", "1"));
        int batchLines = flags.intValue("batch", 100, 1, 100_000);
        LineFormat format = LineFormat.of(flags);
        LongSupplier time = WallClock.of(flags);
        try (BrokerClient client = BrokerClient.connect(to.host(), to.port())) {
            return produceLines(client, to, acks, batchLines, format, time, out, err);
        } catch (ConnectException e) {
            err.println("klog produce: cannot connect to " + to.address() + ": " + e.getMessage());
        } catch (IOException e) {
            err.println("klog produce: " + to.address() + ": " + e.getMessage());
        }
        return Klog.FAILED;
    }

    static short acks(String text) throws UsageException {
        return switch (text) {
            case "0" -> ProduceRequest.ACKS_NONE;
            case "1" -> ProduceRequest.ACKS_LEADER;
            case "all", "-1" -> ProduceRequest.ACKS_ALL;
            default -> throw new UsageException("--acks takes 0, 1 or all, not '" + text + "'");
        };
    }

    private int produceLines(BrokerClient client, ClientFlags to, short acks, int batchLines, LineFormat format,
                             LongSupplier time, PrintStream out, PrintStream err) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
        List<String> pending = new ArrayList<>();
        int pendingBytes = 0;
        Summary summary = new Summary();
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            int lineBytes = line.getBytes(StandardCharsets.UTF_8).length;
            if (!pending.isEmpty() && pendingBytes + lineBytes > FLUSH_BYTES) {
                // a long line goes out on its own, so a batch too large for a frame is always one line
                if (!send(client, to, acks, format, time.getAsLong(), pending, summary, err)) {
                    return Klog.FAILED;
                }
                pending.clear();
                pendingBytes = 0;
            }
            pending.add(line);
            pendingBytes += lineBytes;
            if (pending.size() == batchLines || pendingBytes >= FLUSH_BYTES || !lines.ready()) {
                if (!send(client, to, acks, format, time.getAsLong(), pending, summary, err)) {
                    return Klog.FAILED;
                }
                pending.clear();
                pendingBytes = 0;
            }
        }
        if (!pending.isEmpty() && !send(client, to, acks, format, time.getAsLong(), pending, summary, err)) {
            return Klog.FAILED;
        }
        out.println(summary.describe(to.partition(), acks));
        return Klog.OK;
    }

    private static boolean send(BrokerClient client, ClientFlags to, short acks, LineFormat format, long nowMs,
                                List<String> lines, Summary summary, PrintStream err) throws IOException {
        BatchBuilder builder = new BatchBuilder();
        for (String line : lines) {
            String problem = format.append(builder, nowMs, line);
            if (problem != null) {
                err.println("klog produce: line " + (summary.records + builder.recordCount() + 1) + ": " + problem
                        + "; nothing of this batch was sent");
                return false;
            }
        }
        ByteBuffer batch = builder.build();
        if (batch.remaining() > Frames.DEFAULT_MAX_FRAME_BYTES - 1024) {
            err.println("klog produce: a line of " + lines.get(0).getBytes(StandardCharsets.UTF_8).length
                    + " bytes does not fit in one request"
                    + " (frames are at most " + Frames.DEFAULT_MAX_FRAME_BYTES + " bytes)");
            return false;
        }
        ProduceResponse response = client.produce(new ProduceRequest(to.partition(), acks,
                BrokerClient.DEFAULT_PRODUCE_TIMEOUT_MS, batch));
        if (response.error() != ErrorCode.NONE) {
            err.println("klog produce: batch " + (summary.batches + 1) + " to " + to.partition() + " failed: "
                    + response.error() + (response.error() == ErrorCode.BATCH_TOO_LARGE
                    ? " (a batch must fit in the partition's segment.bytes, which klog configs shows; try a smaller"
                    + " --batch)" : ""));
            return false;
        }
        summary.add(lines.size(), response);
        return true;
    }

    /** What was sent and where it landed. */
    private static final class Summary {
        long records;
        int batches;
        long firstOffset = -1;
        long lastOffset = -1;

        void add(int count, ProduceResponse response) {
            records += count;
            batches++;
            if (firstOffset < 0) {
                firstOffset = response.baseOffset();
            }
            lastOffset = response.lastOffset();
        }

        String describe(String partition, short acks) {
            if (records == 0) {
                return "no lines on stdin: nothing produced to " + partition;
            }
            String sent = records + " record(s) to " + partition + " in " + batches + " batch(es)";
            if (acks == ProduceRequest.ACKS_NONE) {
                return "sent " + sent + " with acks=0: the broker never answers, so no offsets are known";
            }
            return "produced " + sent + " with acks=" + (acks == ProduceRequest.ACKS_ALL ? "all" : "1")
                    + ": offsets " + firstOffset + ".." + lastOffset;
        }
    }
}
