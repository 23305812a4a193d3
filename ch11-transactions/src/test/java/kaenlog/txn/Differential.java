package kaenlog.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.LongConsumer;
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

    /** One coordinator as the sequence drives it, ours or Kafka's: what each request is on it. */
    record Side(BiFunction<InitProducerIdRequest, Long, Object> init, BiFunction<AddPartitionsRequest, Long, Object> add,
                BiFunction<AddOffsetsRequest, Long, Object> addOffsets, BiFunction<EndTxnRequest, Long, Object> end,
                LongConsumer deliverMarkers, LongConsumer abortTimedOutTransactions) {
    }

    /** Runs the sequence on both coordinators; fails at the first step where they part. */
    static void run(List<Op> ops, String rule) throws Exception {
        TxnFixture ours = new TxnFixture();
        KafkaCoordinator kafka = new KafkaCoordinator(ours.nextProducerId);
        TransactionCoordinator c = ours.coordinator;
        Side yourSide = new Side(c::initProducerId, c::addPartitions, c::addOffsets, c::endTxn,
                nowMs -> ours.markers.deliverAll(), c::abortTimedOutTransactions);
        Side kafkaSide = new Side(kafka::init, kafka::add, kafka::addOffsets, kafka::end, kafka::deliverMarkers,
                kafka::abortTimedOutTransactions);
        long now = TxnFixture.T0;
        List<String> done = new ArrayList<>();
        for (Op op : ops) {
            now += op instanceof Wait wait ? wait.ms() : 100;
            String yours = apply(yourSide, op, kafka, now);
            String kafkas = apply(kafkaSide, op, kafka, now);
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

    /**
     * One step on one side. The producer id and epoch a request carries come from Kafka's state of
     * the id before the step (both coordinators agree on it so far, or the run has stopped).
     */
    private static String apply(Side side, Op op, KafkaCoordinator kafka, long now) {
        if (op instanceof Init init) {
            return String.valueOf(side.init().apply(new InitProducerIdRequest(init.id(), init.timeoutMs()), now));
        }
        if (op instanceof Add add) {
            ProducerIdAndEpoch p = producer(kafka, add.id(), add.producer());
            return String.valueOf(side.add().apply(new AddPartitionsRequest(add.id(), p.producerId(), p.epoch(),
                    Set.copyOf(add.partitions())), now));
        }
        if (op instanceof AddOffsets add) {
            ProducerIdAndEpoch p = producer(kafka, add.id(), add.producer());
            return String.valueOf(side.addOffsets().apply(new AddOffsetsRequest(add.id(), p.producerId(), p.epoch(),
                    add.group()), now));
        }
        if (op instanceof End end) {
            ProducerIdAndEpoch p = producer(kafka, end.id(), end.producer());
            return String.valueOf(side.end().apply(new EndTxnRequest(end.id(), p.producerId(), p.epoch(), end.result()),
                    now));
        }
        if (op instanceof Deliver) {
            side.deliverMarkers().accept(now);
            return "delivered";
        }
        side.abortTimedOutTransactions().accept(now);
        return "waited";
    }

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
}
