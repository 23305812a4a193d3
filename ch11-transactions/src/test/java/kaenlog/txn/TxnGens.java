package kaenlog.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.wire.PartitionNames.TopicPartition;

/** The properties' inputs: transactional ids in every state a log can hold, and the requests that meet them. */
final class TxnGens {
    static final long T0 = TxnFixture.T0;
    static final long PRODUCER_ID = 5000;
    static final long PREVIOUS_PRODUCER_ID = 4999;
    static final List<TopicPartition> PARTITIONS = List.of(TxnFixture.ORDERS_0, TxnFixture.ORDERS_1, TxnFixture.PAYMENTS_0);

    private TxnGens() {
    }

    /** An id's state as loaded (and, for a Prepare state, maybe its markers in flight; for Ongoing, maybe a failed fence). */
    record Seed(TxnTransit state, Optional<TransactionState> pending, boolean failedEpochFence) {
        @Override
        public String toString() {
            return state + pending.map(p -> " pending " + p).orElse("") + (failedEpochFence ? " after a failed fence" : "");
        }

        TransactionMetadata ours(String id) {
            TransactionMetadata md = new TransactionMetadata(id, state);
            pending.ifPresent(p -> md.prepareTransitionTo(state.next(p).withPartitions(Set.of())));
            if (failedEpochFence) {
                md.failedEpochFence();
            }
            return md;
        }

        void seed(KafkaCoordinator kafka, String id) {
            kafka.seed(id, state, pending, failedEpochFence);
        }
    }

    static Gen<Short> epochs() {
        return Gens.elements((short) 0, (short) 1, (short) 7, (short) (Short.MAX_VALUE - 3), (short) (Short.MAX_VALUE - 2),
                (short) (Short.MAX_VALUE - 1));
    }

    static Gen<Seed> seeds() {
        Gen<TransactionState> states = Gens.elements(TransactionState.EMPTY, TransactionState.ONGOING,
                TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.COMPLETE_COMMIT,
                TransactionState.COMPLETE_ABORT);
        return c -> {
            TransactionState state = states.generate(c);
            boolean resting = state == TransactionState.EMPTY;
            short epoch = resting && c.oneIn(4) ? TxnTransit.NO_PRODUCER_EPOCH
                    : (state == TransactionState.COMPLETE_ABORT || state == TransactionState.PREPARE_ABORT) && c.oneIn(6)
                    ? Short.MAX_VALUE : epochs().generate(c);
            short lastEpoch = Gens.elements(TxnTransit.NO_PRODUCER_EPOCH, (short) (epoch - 1), (short) 3).generate(c);
            long prevProducerId = Gens.elements(PRODUCER_ID, PREVIOUS_PRODUCER_ID, TxnTransit.NO_PRODUCER_ID).generate(c);
            int timeoutMs = Gens.elements(60_000, 1_000).generate(c);
            boolean open = state == TransactionState.ONGOING || state == TransactionState.PREPARE_COMMIT
                    || state == TransactionState.PREPARE_ABORT;
            List<TopicPartition> partitions = open ? partitions().generate(c) : List.of();
            long start = resting ? TxnTransit.NO_TIMESTAMP : T0 - Gens.longs(0, 120_000).generate(c);
            long lastUpdate = T0 - Gens.longs(0, 1_000).generate(c);
            Optional<TransactionState> pending = Optional.empty();
            if ((state == TransactionState.PREPARE_COMMIT || state == TransactionState.PREPARE_ABORT) && c.oneIn(3)) {
                pending = Optional.of(state == TransactionState.PREPARE_COMMIT ? TransactionState.COMPLETE_COMMIT
                        : TransactionState.COMPLETE_ABORT);
            }
            boolean failedFence = state == TransactionState.ONGOING && c.oneIn(4);
            return new Seed(new TxnTransit(PRODUCER_ID, prevProducerId, epoch, lastEpoch, timeoutMs, state,
                    TxnTransit.sorted(partitions), start, lastUpdate), pending, failedFence);
        };
    }

    /** One to three of the partitions. */
    static Gen<List<TopicPartition>> partitions() {
        return c -> {
            List<TopicPartition> chosen = new ArrayList<>();
            for (TopicPartition p : PARTITIONS) {
                if (c.oneIn(2)) {
                    chosen.add(p);
                }
            }
            if (chosen.isEmpty()) {
                chosen.add(PARTITIONS.get(c.belowInt(PARTITIONS.size())));
            }
            return chosen;
        };
    }

    /** The producer a request names: the id's own at its epoch, at its last epoch, at an older one, the id it had, another. */
    static Gen<ProducerIdAndEpoch> producers(TxnTransit state) {
        short epoch = state.producerEpoch();
        return Gens.elements(new ProducerIdAndEpoch(state.producerId(), epoch),
                new ProducerIdAndEpoch(state.producerId(), state.lastProducerEpoch()),
                new ProducerIdAndEpoch(state.producerId(), (short) (epoch - 1)),
                new ProducerIdAndEpoch(state.producerId(), (short) (epoch + 1)),
                new ProducerIdAndEpoch(state.prevProducerId(), (short) (Short.MAX_VALUE - 1)),
                new ProducerIdAndEpoch(state.prevProducerId(), epoch),
                new ProducerIdAndEpoch(4242, epoch));
    }

    /** Any transition the codec may meet: every state, any ids, epochs, times, topics (Unicode too) and partition numbers. */
    static Gen<TxnTransit> transits() {
        Gen<TransactionState> states = Gens.elements(TransactionState.values());
        Gen<TopicPartition> partition = Gens.strings(1, 12).zip(Gens.ints(0, Integer.MAX_VALUE), TopicPartition::new);
        return c -> {
            TransactionState state = states.generate(c);
            List<TopicPartition> partitions = state == TransactionState.EMPTY ? List.of()
                    : Gens.lists(Gens.oneOf(Gens.elements(PARTITIONS.toArray(new TopicPartition[0])), partition), 0, 6)
                    .generate(c);
            return new TxnTransit(Gens.longs(0, Long.MAX_VALUE).generate(c), TxnTransit.NO_PRODUCER_ID,
                    Gens.ints(0, Short.MAX_VALUE).generate(c).shortValue(), TxnTransit.NO_PRODUCER_EPOCH,
                    Gens.ints().generate(c), state, TxnTransit.sorted(partitions), Gens.longs().generate(c),
                    Gens.longs().generate(c));
        };
    }

    /**
     * A decision of ours on a seeded id, told the way {@link #kafkasOutcome} tells Kafka's: "answer E" or
     * "write T". A Write is also prepared (the checks Kafka's prepareTransitionTo makes); a refusal is
     * UNKNOWN_SERVER_ERROR, as Kafka's request handler answers an exception.
     */
    static String ourOutcome(TransactionMetadata md, Judge.ThrowingSupplier<Decision> decide) {
        Judge.Outcome decided = Judge.Outcome.of(() -> {
            Decision d = decide.get();
            if (d instanceof Decision.Write write) {
                md.prepareTransitionTo(write.next());
            }
            return d;
        });
        if (decided.refused()) {
            return "answer " + TxnError.UNKNOWN_SERVER_ERROR;
        }
        return decided.value() instanceof Decision.Write write ? "write " + write.next()
                : "answer " + ((Decision.Answer) decided.value()).error();
    }

    /** What Kafka's coordinator did with one request: the transition it wrote first, else its answer. */
    static String kafkasOutcome(KafkaCoordinator kafka, TxnError answer) {
        return kafka.written.isEmpty() ? "answer " + answer : "write " + kafka.written.get(0).transit();
    }
}
