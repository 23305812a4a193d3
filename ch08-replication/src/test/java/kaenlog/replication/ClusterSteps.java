package kaenlog.replication;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.RequestEnvelope;
import kaenlog.wire.ResponseEnvelope;
import org.opentest4j.AssertionFailedError;

/**
 * Random sequences of produce, fetch rounds, stray fetches, shrinks and acks=all questions, run on a
 * real {@link Cluster} and on a model of Kafka's rules ({@link KafkaModel}) side by side; after every
 * step what the cluster answered is compared with what the model answers, each with the rule of the
 * task it belongs to. A task's test class runs only the steps whose code is written by then (a
 * fetch round needs the fetch task, acks=all the produce task, a question the gate task).
 */
final class ClusterSteps {
    static final long T0 = 1_700_000_000_000L;
    /**
     * Replays a failing sequence may spend to shrink: each opens two logs (tens of milliseconds), so a
     * property on a cluster shrinks within seconds rather than minutes.
     */
    static final int CLUSTER_SHRINKS = 120;

    static final String FETCH_RULE = "the follower's fetch offset IS its LEO: the leader records it with the request's"
            + " time and recomputes the HW before reading any record; the follower appends the leader's bytes as they"
            + " are, assigning no offsets, then takes the HW from the response, capped at its own LEO and never below"
            + " its current HW";
    static final String CHECK_RULE = "the replica id must be one of the followers and the offset inside the leader's log,"
            + " start and end included; a refusal is answered with its error, under the request's correlation id, and"
            + " records nothing";
    static final String PRODUCE_RULE = "acks=all is checked against min ISR BEFORE the append: under it, the answer is"
            + " NOT_ENOUGH_REPLICAS and nothing is written; otherwise it is appended like any other write, then the HW"
            + " recomputed: acks changes when a producer is answered, never what is written";
    static final String GATE_RULE = "the verdict is AckVerdict.decide fed with live values: the HW and the ISR size read"
            + " at each question, never once at construction; chapter 3's yes/no question is yes only for Committed";

    private ClusterSteps() {
    }

    sealed interface Step {
    }

    record Produce(short acks) implements Step {
        @Override
        public String toString() {
            return "produce acks=" + acks;
        }
    }

    /** One {@code fetchOnce}, {@code afterMs} after the step before (negative: a clock that went back). */
    record Fetch(long afterMs) implements Step {
        @Override
        public String toString() {
            return "fetchOnce(+" + afterMs + " ms)";
        }
    }

    record Shrink(long afterMs) implements Step {
        @Override
        public String toString() {
            return "shrinkIsr(+" + afterMs + " ms)";
        }
    }

    /** Where a stray fetch's offset lies: around the leader's log start, around its end, or far away. */
    enum From { START, END, ABSOLUTE }

    /** A fetch frame of the test's own on the link, from any broker id, at any offset. */
    record Stray(int replicaId, From from, long offset) implements Step {
        long resolve(long logEnd) {
            return switch (from) {
                case START -> offset;
                case END -> logEnd + offset;
                case ABSOLUTE -> offset;
            };
        }

        @Override
        public String toString() {
            String at = switch (from) {
                case START -> "log start " + (offset < 0 ? "- " + -offset : "+ " + offset);
                case END -> "log end " + (offset < 0 ? "- " + -offset : "+ " + offset);
                case ABSOLUTE -> Long.toString(offset);
            };
            return "a fetch from replica " + replicaId + " at offset " + at;
        }
    }

    /** The gate asked about a write ending at the leader's log end minus {@code belowEnd}. */
    record Ask(long belowEnd) implements Step {
        @Override
        public String toString() {
            return "verdict(LEO - " + belowEnd + ")";
        }
    }

    record Steps(int minIsr, List<Step> steps) {
        @Override
        public String toString() {
            return "Cluster.open(root, " + minIsr + ", " + T0 + "), then " + steps;
        }
    }

    static Gen<Step> produces(Short... acks) {
        return Gens.elements(acks).map(Produce::new);
    }

    static final Gen<Step> FETCHES = Gens.oneOf(Gens.longs(0, 100), Gens.longs(-100, 100)).map(Fetch::new);

    static final Gen<Step> SHRINKS = Gens.oneOf(Gens.longs(-1, 1).map(d -> IsrState.REPLICA_LAG_TIME_MAX_MS + d),
            Gens.longs(0, 100)).map(Shrink::new);

    static final Gen<Step> STRAYS = c -> new Stray(Gens.elements(Cluster.FOLLOWER_ID, Cluster.LEADER_ID, 0, 3, 1000)
            .generate(c), Gens.elements(From.END, From.START, From.ABSOLUTE).generate(c),
            Gens.oneOf(Gens.longs(-2, 2), Gens.elements(1L << 40, Long.MAX_VALUE, Long.MIN_VALUE, -1L)).generate(c));

    static final Gen<Step> ASKS = Gens.longs(-2, 4).map(Ask::new);

    /** Sequences of 1 to {@code max} steps drawn from {@code step}, with min ISR 1 or 2. */
    static Gen<Steps> sequences(Gen<Step> step, int max) {
        return c -> new Steps(Gens.ints(1, 2).generate(c), Gens.lists(step, 1, max).generate(c));
    }

    /** What Kafka's rules make of the same steps: the leader's and the follower's numbers, the ISR, what the leader knows. */
    static final class Model {
        final int minIsr;
        long now = T0;
        long leaderLeo;
        long leaderHw;
        long followerLeo;
        long followerHw;
        boolean followerInIsr = true;
        Long knownLeo;
        long lastCaughtUpMs = T0;

        Model(int minIsr) {
            this.minIsr = minIsr;
        }

        Set<Integer> isr() {
            return followerInIsr ? Set.of(Cluster.LEADER_ID, Cluster.FOLLOWER_ID) : Set.of(Cluster.LEADER_ID);
        }

        /** {@code updateFollowerFetchState}: the fetch offset is the LEO, the time only moves forward; then the HW. */
        void observe(long fetchOffset) {
            knownLeo = fetchOffset;
            lastCaughtUpMs = Math.max(lastCaughtUpMs, now);
            recomputeHw();
        }

        void recomputeHw() {
            leaderHw = KafkaModel.leaderHwAfter(leaderHw, Cluster.LEADER_ID, leaderLeo,
                    knownLeo == null ? Map.of() : Map.of(Cluster.FOLLOWER_ID, knownLeo), isr(), minIsr);
        }

        Produced produce(short acks) {
            if (KafkaModel.refusedBeforeTheAppend(isr().size(), minIsr, acks)) {
                return Produced.refused(ErrorCode.NOT_ENOUGH_REPLICAS);
            }
            long base = leaderLeo++;
            recomputeHw();
            return new Produced(base, ErrorCode.NONE);
        }

        /**
         * One round as the guide states it: the leader learns the LEO from the request and recomputes the HW
         * before it reads (so the response carries the new HW: kaen-log's documented difference, "The HW in the
         * same response"); the follower appends everything (a round of this size fits in one fetch) and takes
         * {@code max(own HW, min(response HW, own LEO))} ({@code ReplicaFetcherThread}:
         * {@code log.maybeUpdateHighWatermark(partitionData.highWatermark)}).
         */
        FetchRound fetch(long afterMs) {
            now += afterMs;
            long fetchOffset = followerLeo;
            observe(fetchOffset);
            long responseHw = leaderHw;
            followerLeo = leaderLeo;
            followerHw = Math.max(followerHw, Math.min(responseHw, followerLeo));
            return new FetchRound(fetchOffset, (int) (leaderLeo - fetchOffset), responseHw, leaderLeo, leaderHw,
                    followerLeo, followerHw);
        }

        ErrorCode stray(int replicaId, long offset) {
            ErrorCode error = KafkaModel.followerFetch(replicaId, offset, List.of(Cluster.FOLLOWER_ID), 0, leaderLeo);
            if (error == ErrorCode.NONE) {
                observe(offset);
            }
            return error;
        }

        /** {@code getOutOfSyncReplicas}, kaen-log's time clause: silent for strictly more than the lag. */
        void shrink(long afterMs) {
            now += afterMs;
            if (followerInIsr && now - lastCaughtUpMs > IsrState.REPLICA_LAG_TIME_MAX_MS) {
                followerInIsr = false;
            }
        }
    }

    /**
     * Runs {@code tries} sequences of {@code step} on a fresh cluster each (under {@code root}) and on the model, and
     * fails at the first step where they disagree, naming the step, the two answers and the rule.
     */
    static void check(Path root, Gen<Step> step, int maxSteps, int tries) {
        AtomicInteger run = new AtomicInteger();
        Property.forAll(sequences(step, maxSteps)).tries(tries).shrinkBudget(CLUSTER_SHRINKS).check(s -> {
            try (Cluster c = Cluster.open(root.resolve("try-" + run.incrementAndGet()), s.minIsr(), T0)) {
                Model m = new Model(s.minIsr());
                for (int i = 0; i < s.steps().size(); i++) {
                    Step current = s.steps().get(i);
                    String at = "step " + (i + 1) + " (" + current + ") of " + s + ",";
                    try {
                        apply(c, m, current, at, i);
                    } catch (IOException | RuntimeException e) {
                        if (e.getMessage() != null && e.getMessage().startsWith("TODO ch")) {
                            throw e;
                        }
                        throw new AssertionFailedError("for " + at + " your cluster threw " + e + ", where Kafka's rules"
                                + " (modelled) answer: " + ruleOf(current), e);
                    }
                }
            }
        });
    }

    private static String ruleOf(Step step) {
        if (step instanceof Produce) {
            return PRODUCE_RULE;
        }
        if (step instanceof Stray) {
            return CHECK_RULE;
        }
        return step instanceof Ask ? GATE_RULE : FETCH_RULE;
    }

    private static void apply(Cluster c, Model m, Step step, String at, int index) throws IOException {
        if (step instanceof Produce p) {
            Produced yours = c.produce(0, p.acks(), m.now);
            Judge.agree(at, "answer", yours, "appendRecordsToLeader (Partition.scala, modelled) answers",
                    m.produce(p.acks()), PRODUCE_RULE);
            Judge.agree(at, "(leader LEO, leader HW)", List.of(c.leader().leo(), c.leader().highWatermark()),
                    "appendRecordsToLeader then maybeIncrementLeaderHW (modelled) leave", List.of(m.leaderLeo,
                            m.leaderHw), PRODUCE_RULE);
        } else if (step instanceof Fetch f) {
            FetchRound yours = c.fetchOnce(m.now + f.afterMs());
            Judge.agree(at, "round", yours, "fetchRecords, updateFollowerFetchState and the fetcher's"
                    + " maybeUpdateHighWatermark (modelled) give", m.fetch(f.afterMs()), FETCH_RULE);
        } else if (step instanceof Shrink s) {
            m.shrink(s.afterMs());
            c.isr().shrinkIsr(m.now);
            Judge.agree(at, "ISR", c.isr().isr(), "getOutOfSyncReplicas (modelled) leaves", List.copyOf(
                    new java.util.TreeSet<>(m.isr())), "a follower silent for strictly more than 30000 ms leaves");
        } else if (step instanceof Stray s) {
            long offset = s.resolve(c.leader().leo());
            int correlationId = 1000 + index;
            byte[] body = new FetchRequest(s.replicaId(), Cluster.PARTITION, offset, Cluster.FETCH_MAX_BYTES, 0)
                    .encode();
            c.link().toLeader().send(new RequestEnvelope(ApiKeys.FETCH, correlationId, body).encode());
            c.answerFetch(m.now);
            ResponseEnvelope envelope = ResponseEnvelope.decode(c.link().toFollower().receive());
            FetchResponse response = FetchResponse.decode(envelope.body());
            String input = at + " offset " + offset + " against the leader's log [0, " + c.leader().leo() + "],";
            Judge.agree(input, "(error, correlation id)", List.of(response.error(), envelope.correlationId()),
                    "fetchRecords (followerReplicaOrThrow, then the read; Partition.scala, modelled) answers",
                    List.of(m.stray(s.replicaId(), offset), correlationId), CHECK_RULE);
            String rule = response.error() == ErrorCode.NONE ? FETCH_RULE : CHECK_RULE;
            Judge.agree(input, "(follower LEOs known, follower 2's caught-up time, leader HW) afterwards",
                    List.of(c.isr().followerLeos(), c.isr().lastCaughtUpMs(Cluster.FOLLOWER_ID),
                            c.leader().highWatermark()), "updateFollowerFetchState (modelled) leaves",
                    List.of(m.knownLeo == null ? Map.of() : Map.of(Cluster.FOLLOWER_ID, m.knownLeo), m.lastCaughtUpMs,
                            m.leaderHw), rule);
        } else if (step instanceof Ask a) {
            long required = Math.max(0, m.leaderLeo - a.belowEnd());
            AckVerdict kafkas = KafkaModel.checkEnoughReplicasReachOffset(required, m.leaderHw, m.isr().size(),
                    m.minIsr);
            String input = at + " a write ending before offset " + required + ", HW " + m.leaderHw + ", ISR "
                    + new java.util.TreeSet<>(m.isr()) + ", min ISR " + m.minIsr + ",";
            Judge.agree(input, "verdict", c.gate().verdict(required), "checkEnoughReplicasReachOffset (Partition.scala,"
                    + " modelled) answers", kafkas, GATE_RULE);
            Judge.agree(input, "answer to 'may the acks=all answer go out'", c.gate().checkEnoughReplicasReached(required),
                    "checkEnoughReplicasReachOffset's (true, NONE) says", kafkas == AckVerdict.COMMITTED, GATE_RULE);
        }
    }
}
