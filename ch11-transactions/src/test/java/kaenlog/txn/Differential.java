package kaenlog.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.wire.PartitionNames.TopicPartition;

/**
 * Runs one sequence of requests on this chapter's coordinator and on Kafka's, side by side, and
 * after every step compares what each answered, the state each keeps of every transactional id,
 * the records each wrote and the markers each sent.
 */
final class Differential {
    static final List<String> IDS = List.of("alpha", "beta");

    /** Whose producer id and epoch a request carries: the id's own, its epoch before, another producer's. */
    enum Producer { OWN, OLDER_EPOCH, OTHER_ID }

    sealed interface Op {
    }

    record Init(String id, int timeoutMs) implements Op {
    }

    record Add(String id, Producer producer, List<TopicPartition> partitions) implements Op {
    }

    record AddOffsets(String id, Producer producer, String group) implements Op {
    }

    record End(String id, Producer producer, TransactionResult result) implements Op {
    }

    /** Every marker in flight reaches its partitions. */
    record Deliver() implements Op {
    }

    /** Time passes, and both coordinators look for transactions open past their timeout. */
    record Wait(long ms) implements Op {
    }

    static Gen<String> ids() {
        return Gens.elements(IDS.toArray(new String[0]));
    }

    static Gen<Op> inits() {
        return ids().zip(Gens.elements(1_000, 60_000), Init::new);
    }

    static Gen<Op> adds() {
        Gen<Producer> producers = Gens.elements(Producer.OWN, Producer.OWN, Producer.OLDER_EPOCH, Producer.OTHER_ID);
        return Gens.oneOf(c -> new Add(ids().generate(c), producers.generate(c), TxnGens.partitions().generate(c)),
                c -> new AddOffsets(ids().generate(c), producers.generate(c), Gens.elements("g1", "g2").generate(c)));
    }

    static Gen<Op> ends() {
        Gen<Producer> producers = Gens.elements(Producer.OWN, Producer.OWN, Producer.OWN, Producer.OLDER_EPOCH,
                Producer.OTHER_ID);
        return Gens.oneOf(c -> new End(ids().generate(c), producers.generate(c),
                Gens.elements(TransactionResult.COMMIT, TransactionResult.ABORT).generate(c)), c -> new Deliver());
    }

    static Gen<Op> waits() {
        return Gens.longs(1, 70_000).map(Wait::new);
    }

    /** A sequence that begins with both ids initialised, then {@code steps} from {@code step}. */
    static Gen<List<Op>> sequences(Gen<Op> step, int maxSteps) {
        return Gens.lists(step, 1, maxSteps).map(ops -> {
            List<Op> all = new ArrayList<>();
            IDS.forEach(id -> all.add(new Init(id, 60_000)));
            all.addAll(ops);
            return all;
        });
    }

    /** Runs the sequence on both coordinators; fails at the first step where they part. */
    static void run(List<Op> ops, String rule) throws Exception {
        TxnFixture ours = new TxnFixture();
        KafkaCoordinator kafka = new KafkaCoordinator(ours.nextProducerId);
        long now = TxnFixture.T0;
        List<String> done = new ArrayList<>();
        for (Op op : ops) {
            now += op instanceof Wait wait ? wait.ms() : 100;
            String yours = answer(ours, op, kafka, now);
            String kafkas = kafkaAnswer(kafka, op, now);
            done.add(op.toString());
            Judge.agree("the requests " + done, "answer", yours, "TransactionCoordinator answers", kafkas, rule);
            for (String id : IDS) {
                Judge.agree("the requests " + done, "state of " + id, ours.coordinator.transaction(id)
                                + ours.coordinator.pendingState(id).map(p -> " pending " + p).orElse(""),
                        "TransactionCoordinator keeps", kafka.state(id) + kafka.pendingState(id).map(p -> " pending " + p)
                                .orElse(""), rule);
            }
            Judge.agree("the requests " + done, "records written", ours.journal, "TransactionCoordinator writes",
                    kafka.written.stream().map(w -> w.transactionalId() + " " + TransactionLogTest.withoutMemoryFields(
                            w.transit())).toList(), rule);
            Judge.agree("the requests " + done, "markers sent", ours.markers.sent, "TransactionCoordinator sends",
                    kafka.sent, rule);
        }
    }

    /** The producer id and epoch a request carries, from Kafka's state of the id (both coordinators agree on it so far). */
    private static ProducerIdAndEpoch producer(KafkaCoordinator kafka, String id, Producer producer) {
        Optional<TxnTransit> state = kafka.state(id);
        long pid = state.map(TxnTransit::producerId).orElse(4242L);
        short epoch = state.map(TxnTransit::producerEpoch).orElse((short) 0);
        return switch (producer) {
            case OWN -> new ProducerIdAndEpoch(pid, epoch);
            case OLDER_EPOCH -> new ProducerIdAndEpoch(pid, (short) (epoch - 1));
            case OTHER_ID -> new ProducerIdAndEpoch(pid + 77, epoch);
        };
    }

    private static String answer(TxnFixture ours, Op op, KafkaCoordinator kafka, long now) {
        TransactionCoordinator c = ours.coordinator;
        if (op instanceof Init init) {
            return c.initProducerId(new InitProducerIdRequest(init.id(), init.timeoutMs()), now).toString();
        }
        if (op instanceof Add add) {
            ProducerIdAndEpoch p = producer(kafka, add.id(), add.producer());
            return c.addPartitions(new AddPartitionsRequest(add.id(), p.producerId(), p.epoch(), Set.copyOf(add.partitions())),
                    now).toString();
        }
        if (op instanceof AddOffsets add) {
            ProducerIdAndEpoch p = producer(kafka, add.id(), add.producer());
            return c.addOffsets(new AddOffsetsRequest(add.id(), p.producerId(), p.epoch(), add.group()), now).toString();
        }
        if (op instanceof End end) {
            ProducerIdAndEpoch p = producer(kafka, end.id(), end.producer());
            return c.endTxn(new EndTxnRequest(end.id(), p.producerId(), p.epoch(), end.result()), now).toString();
        }
        if (op instanceof Deliver) {
            ours.markers.deliverAll();
            return "delivered";
        }
        c.abortTimedOutTransactions(now);
        return "waited";
    }

    private static String kafkaAnswer(KafkaCoordinator kafka, Op op, long now) {
        if (op instanceof Init init) {
            return kafka.init(new InitProducerIdRequest(init.id(), init.timeoutMs()), now).toString();
        }
        if (op instanceof Add add) {
            ProducerIdAndEpoch p = producer(kafka, add.id(), add.producer());
            return kafka.add(new AddPartitionsRequest(add.id(), p.producerId(), p.epoch(), Set.copyOf(add.partitions())),
                    now).toString();
        }
        if (op instanceof AddOffsets add) {
            ProducerIdAndEpoch p = producer(kafka, add.id(), add.producer());
            // Kafka's KafkaApis: the group's __consumer_offsets partition, then the coordinator's AddPartitions.
            return kafka.add(new AddPartitionsRequest(add.id(), p.producerId(), p.epoch(),
                    Set.of(TransactionCoordinator.kafkaOffsetsPartition(add.group()))), now).toString();
        }
        if (op instanceof End end) {
            ProducerIdAndEpoch p = producer(kafka, end.id(), end.producer());
            return kafka.end(new EndTxnRequest(end.id(), p.producerId(), p.epoch(), end.result()), now).toString();
        }
        if (op instanceof Deliver) {
            kafka.deliverMarkers(now);
            return "delivered";
        }
        kafka.abortTimedOutTransactions(now);
        return "waited";
    }
}
