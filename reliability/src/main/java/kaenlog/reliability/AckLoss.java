package kaenlog.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import kaenlog.broker.Broker;
import kaenlog.client.BrokerClient;
import kaenlog.broker.BrokerConfig;
import kaenlog.client.IdempotentProducer;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;
import kaenlog.testkit.FaultInjectingProxy;

/**
 * Item 2: lost acknowledgements. A producer sends 10,000 records (batches of 10, up to five
 * requests in flight, acks=all) through a {@link FaultInjectingProxy} that drops 2% of requests
 * and 10% of responses (each drop ending the connection) and delays 20% of the other frames. Run
 * twice with the same seed: chapter 7's {@link IdempotentProducer} against a broker with chapter
 * 7's handlers, and a {@link RetryingProducer} (retries on, idempotence off). Then the log is read
 * directly from the broker, not through the proxy. The first must show 0 duplicates, 0 gaps and
 * order kept; the second shows the duplicates that idempotence exists to prevent.
 */
public final class AckLoss {
    static final String PARTITION = "acks-0";

    /** @param maxInFlight requests in flight per producer, 1..5 (the broker remembers five batches) */
    public record Config(long seed, int records, int recordsPerBatch, int maxInFlight) {
        /** The issue's size: 10,000 records. */
        public static Config full() {
            return new Config(2, 10_000, 10, IdempotentProducer.MAX_IN_FLIGHT);
        }
    }

    /** One producer's run through the proxy, and what the log holds afterwards. */
    public record Run(String producer, long recordsSent, Ledger.Audit audit, long connections, long requestsDropped,
                      long responsesDropped, long delayed, long reconnects, long resentRequests) {
        public long faultsInjected() {
            return requestsDropped + responsesDropped + delayed;
        }

        /** Records sent but not in the log. */
        public long gaps() {
            return audit.lost();
        }
    }

    private static final String IDEMPOTENT_ROW = "2 lost acks, idempotent producer";
    private static final String PLAIN_ROW = "2 lost acks, no idempotence";

    /** Both runs. */
    public record Result(Config config, Run idempotent, Run plain, List<String> problems) implements Figures {
        public Result {
            problems = List.copyOf(problems);
        }

        /** The idempotent producer's row. */
        @Override
        public Row row() {
            return row(IDEMPOTENT_ROW, idempotent);
        }

        /** One row per producer. */
        @Override
        public List<Row> rows() {
            return List.of(row(IDEMPOTENT_ROW, idempotent), row(PLAIN_ROW, plain));
        }

        /** The producer without idempotence is there for contrast: its duplicates are the lesson, not a failure. */
        @Override
        public String verdict(Row row) {
            return row.scenario().equals(PLAIN_ROW) ? "(for contrast)" : Figures.super.verdict(row);
        }

        private static Row row(String name, Run run) {
            return new Row(name, 1, run.recordsSent(), run.faultsInjected(), run.gaps() + run.audit().misplaced(),
                    run.audit().duplicates(), -1);
        }

        @Override
        public List<String> details() {
            List<String> lines = new ArrayList<>();
            for (Run run : List.of(idempotent, plain)) {
                lines.add(String.format("%-22s %d records in batches of %d: %d connections, %d requests and %d"
                                + " responses dropped, %d frames delayed; %d reconnects, %d requests resent", run.producer(),
                        run.recordsSent(), config.recordsPerBatch(), run.connections(), run.requestsDropped(),
                        run.responsesDropped(), run.delayed(), run.reconnects(), run.resentRequests()));
                lines.add(String.format("%-22s the log holds %d records: %d duplicates, %d missing, %d out of order,"
                                + " %d answers pointing elsewhere", "", run.audit().recordsInLog(), run.audit().duplicates(),
                        run.gaps(), run.audit().outOfOrder(), run.audit().misplaced()));
            }
            lines.add("the same faults without idempotence wrote " + plain.audit().duplicates() + " duplicate records:"
                    + " every resent batch the broker had already written (chapter 7's opening scene)");
            return lines;
        }

        @Override
        public boolean ok() {
            Ledger.Audit a = idempotent.audit();
            return a.duplicates() == 0 && a.lost() == 0 && a.outOfOrder() == 0 && a.misplaced() == 0
                    && a.strangers() == 0 && idempotent.responsesDropped() > 0 && problems.isEmpty();
        }
    }

    private AckLoss() {
    }

    public static Result run(Path dir, Config config) throws IOException {
        List<String> problems = new ArrayList<>();
        List<List<String>> batches = batches(config);
        Run idem = through(Files.createDirectories(dir.resolve("idempotent")), config, batches, true, problems);
        Run plain = through(Files.createDirectories(dir.resolve("plain")), config, batches, false, problems);
        return new Result(config, idem, plain, problems);
    }

    /** Records p0-0, p0-1, ... in batches. */
    static List<List<String>> batches(Config config) {
        List<List<String>> batches = new ArrayList<>();
        for (int first = 0; first < config.records(); first += config.recordsPerBatch()) {
            List<String> values = new ArrayList<>();
            for (int i = first; i < Math.min(config.records(), first + config.recordsPerBatch()); i++) {
                values.add(Ledger.value(0, i));
            }
            batches.add(values);
        }
        return batches;
    }

    private static Run through(Path dir, Config config, List<List<String>> batches, boolean idempotent,
                               List<String> problems) throws IOException {
        ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
        try (Broker broker = Broker.start(BrokerConfig.of(dir), new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
             FaultInjectingProxy proxy = new FaultInjectingProxy(BrokerConfig.DEFAULT_HOST, broker.port(),
                     FaultInjectingProxy.Faults.issue(config.seed()))) {
            List<ProduceResponse> answers;
            int reconnects;
            int resent;
            if (idempotent) {
                try (IdempotentProducer producer = new IdempotentProducer(BrokerConfig.DEFAULT_HOST, proxy.port(),
                        config.maxInFlight(), 1_000_000, 1, new PrintStream(OutputStream.nullOutputStream(), true,
                        StandardCharsets.UTF_8))) {
                    IdempotentProducer.Report report = producer.send(PARTITION, batches, ProduceRequest.ACKS_ALL, 0);
                    answers = report.responses();
                    reconnects = report.reconnects();
                    resent = report.resentRequests();
                }
            } else {
                try (RetryingProducer producer = new RetryingProducer(BrokerConfig.DEFAULT_HOST, proxy.port(),
                        config.maxInFlight(), 1_000_000)) {
                    RetryingProducer.Report report = producer.send(PARTITION, batches, ProduceRequest.ACKS_ALL);
                    answers = report.responses();
                    reconnects = report.reconnects();
                    resent = report.resentRequests();
                }
            }
            Ledger ledger = new Ledger();
            for (int b = 0; b < batches.size(); b++) {
                ProduceResponse answer = answers.get(b);
                ledger.acked(PARTITION, 0, (long) b * config.recordsPerBatch(), batches.get(b).size(),
                        answer.baseOffset(), answer.lastOffset());
            }
            Ledger.Audit audit;
            try (BrokerClient direct = BrokerClient.connect(BrokerConfig.DEFAULT_HOST, broker.port(), 30_000)) {
                audit = ledger.audit(Map.of(PARTITION, LogContents.consume(direct, PARTITION)));
            }
            return new Run(idempotent ? "idempotent producer" : "no idempotence", config.records(), audit,
                    proxy.connections(), proxy.requestsDropped(), proxy.responsesDropped(), proxy.delayed(), reconnects,
                    resent);
        } catch (IOException e) {
            problems.add((idempotent ? "idempotent" : "plain") + " run: " + e);
            throw e;
        }
    }

    /**
     * A finding, measured: a response dropped without the connection closing (what a stuck broker
     * or a middlebox does; {@link FaultInjectingProxy.Faults#silentDrops()}). Chapter 7's
     * {@link IdempotentProducer} once waited for such an answer forever; it now gives the request
     * up after its request timeout (a fifth of {@code waitMs} here) and resends. Returns true when
     * it was still waiting after {@code waitMs}; the proxy is then closed, which ends the wait.
     */
    public static boolean idempotentProducerWaitsForeverOnASilentDrop(Path dir, long waitMs) throws IOException {
        try (Broker broker = Broker.start(BrokerConfig.of(dir), new PrintStream(OutputStream.nullOutputStream()))) {
            FaultInjectingProxy proxy = new FaultInjectingProxy(BrokerConfig.DEFAULT_HOST, broker.port(),
                    new FaultInjectingProxy.Faults(1, 0, 1.0, 0, 1, true));
            IdempotentProducer producer = new IdempotentProducer(BrokerConfig.DEFAULT_HOST, proxy.port(), 1, 0, 1,
                    (int) (waitMs / 5), new PrintStream(OutputStream.nullOutputStream()));
            Thread sender = new Thread(() -> {
                try {
                    producer.send(PARTITION, List.of(List.of("x")), ProduceRequest.ACKS_ALL, 0);
                } catch (IOException expected) {
                    // the proxy closed under it
                }
            }, "silently-dropped-producer");
            sender.setDaemon(true);
            sender.start();
            boolean stillWaiting;
            try {
                stillWaiting = !Deadline.in(waitMs).await(() -> !sender.isAlive());
            } finally {
                proxy.close();
                producer.close();
            }
            try {
                sender.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return stillWaiting;
        }
    }
}

