package kaenlog.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.cli.WallClock;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * {@code klog idem-produce}: chapter 3's {@code klog produce} with an idempotent producer behind it.
 * Every line of stdin becomes a record, {@code --batch} lines a batch; the producer gets its id from
 * the broker, keeps at most {@code --max-in-flight} (at most 5) requests in flight, and resends the
 * unanswered ones, unchanged, whenever a connection breaks, up to {@code --retries} reconnects.
 *
 * <p>A separate subcommand because {@code klog produce} belongs to chapter 3, which cannot know
 * about producer ids; it takes the same flags plus the two above.
 */
public final class IdemProduceCommand implements Subcommand {
    private final InputStream stdin;

    public IdemProduceCommand() {
        this(System.in);
    }

    public IdemProduceCommand(InputStream stdin) {
        this.stdin = stdin;
    }

    @Override
    public String name() {
        return "idem-produce";
    }

    @Override
    public String usage() {
        return "--partition NAME [--port P (default 9092)] [--host 127.0.0.1] [--acks 1|all (default all)] [--batch N (default 100)]"
                + " [--max-in-flight 1..5 (default 5)] [--retries N (default 100)] [--now-ms MS]"
                + "   (one record per line of stdin)";
    }

    @Override
    public String summary() {
        return "chapter 7: send stdin's lines idempotently: resends after a lost answer are written once";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("host", "port", "partition", "acks", "batch", "max-in-flight",
                "retries", "now-ms"), Set.of()).noPositional();
        ClientFlags client = ClientFlags.of(flags);
        short acks = switch (flags.string("acks", "all")) {
            case "1" -> ProduceRequest.ACKS_LEADER;
            case "all", "-1" -> ProduceRequest.ACKS_ALL;
            default -> throw new UsageException("--acks takes 1 or all: an idempotent producer needs its answers"
                    + " (acks=0 is refused, as Kafka refuses it with enable.idempotence)");
        };
        int batchLines = flags.intValue("batch", 100, 1, 10_000);
        int maxInFlight = flags.intValue("max-in-flight", IdempotentProducer.MAX_IN_FLIGHT, 1,
                IdempotentProducer.MAX_IN_FLIGHT);
        int retries = flags.intValue("retries", 100, 0, 1_000_000);
        long nowMs = WallClock.of(flags).getAsLong();

        List<List<String>> batches = batches(batchLines);
        if (batches.isEmpty()) {
            out.println("no lines on stdin: nothing produced to " + client.partition());
            return Klog.OK;
        }
        try (IdempotentProducer producer = new IdempotentProducer(client.host(), client.port(), maxInFlight, retries,
                IdempotentProducer.DEFAULT_RETRY_BACKOFF_MS, err)) {
            IdempotentProducer.Report report = producer.send(client.partition(), batches, acks, nowMs);
            List<ProduceResponse> answers = report.responses();
            long records = batches.stream().mapToLong(List::size).sum();
            out.println("produced " + records + " record(s) to " + client.partition() + " in " + batches.size()
                    + " batch(es) as producer " + producer.producerId() + " epoch " + producer.producerEpoch()
                    + ": offsets " + answers.get(0).baseOffset() + ".." + answers.get(answers.size() - 1).lastOffset()
                    + " · reconnects " + report.reconnects() + ", requests resent " + report.resentRequests());
            return Klog.OK;
        } catch (IOException e) {
            err.println("klog idem-produce: " + client.address() + ": " + e.getMessage());
            return Klog.FAILED;
        }
    }

    private List<List<String>> batches(int batchLines) {
        List<List<String>> batches = new ArrayList<>();
        List<String> current = new ArrayList<>();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                current.add(line);
                if (current.size() == batchLines) {
                    batches.add(current);
                    current = new ArrayList<>();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!current.isEmpty()) {
            batches.add(current);
        }
        return batches;
    }
}
