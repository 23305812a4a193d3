package kaenlog.replication;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import kaenlog.batch.BatchBuilder;
import kaenlog.wire.RequestEnvelope;
import kaenlog.wire.ResponseEnvelope;
import kaenlog.log.AppendInfo;
import kaenlog.log.FetchIsolation;
import kaenlog.log.OffsetOutOfRangeException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.ProduceRequest;

/**
 * Two brokers in one process: a leader (id 1) and a follower (id 2) of partition {@code orders-0},
 * each with its own log under {@code <root>/broker-N/orders-0}, joined by an in-memory link that
 * carries chapter 3's frames. Nothing runs by itself: a caller drives it one step at a time
 * ({@link #produce}, {@link #fetchOnce}, {@link IsrState#shrinkIsr}), feeding the time in, so every
 * run of the same steps gives the same numbers.
 */
public final class Cluster implements Closeable {
    public static final int LEADER_ID = 1;
    public static final int FOLLOWER_ID = 2;
    public static final String PARTITION = "orders-0";
    /** How much one follower fetch may carry (at least one whole batch is always sent). */
    public static final int FETCH_MAX_BYTES = 64 * 1024;

    private final int minIsr;
    private final InMemoryLink link = new InMemoryLink();
    private Replica leader;
    private Replica follower;
    private IsrState isr;
    private IsrGate gate;
    private int correlationId;

    private Cluster(Replica leader, Replica follower, IsrState isr) {
        this.leader = leader;
        this.follower = follower;
        this.isr = isr;
        this.minIsr = isr.minIsr();
        installGate();
    }

    /**
     * Opens the two replicas, makes replica 1 the leader at epoch 0, and switches off the eager
     * high watermark on both logs. Every follower starts in the ISR, counted as caught up at
     * {@code nowMs}.
     */
    public static Cluster open(Path root, int minIsr, long nowMs) throws IOException {
        Objects.requireNonNull(root, "root");
        // BEGIN-SOLUTION ch08 task 5: two replicas, a leader at epoch 0, and no eager high watermark (ClusterOpenTest)
        Replica leader = Replica.open(LEADER_ID, Role.LEADER, root.resolve("broker-1").resolve(PARTITION));
        Replica follower = Replica.open(FOLLOWER_ID, Role.FOLLOWER, root.resolve("broker-2").resolve(PARTITION));
        leader.becomeLeader(0);
        // THE line this chapter exists to teach. With one replica the high watermark follows the
        // log end; with two it must come from the smallest LEO in the ISR instead.
        leader.stopEagerHighWatermark();
        follower.stopEagerHighWatermark();
        IsrState isr = new IsrState(leader.id(), List.of(follower.id()), minIsr, nowMs);
        return new Cluster(leader, follower, isr);
        // END-SOLUTION
    }

    /**
     * How far a fetch from {@code replicaId} may read. A follower is a consumer that carries its
     * broker id: a follower (id >= 0) must copy everything, so it reads to the log end; a consumer
     * (-1) reads only what is committed, up to the high watermark. The only difference between them,
     * and chapter 3's rule already ({@link FetchIsolation#of}): the leader asks it, it does not
     * write it a second time.
     */
    public static FetchIsolation isolationOf(int replicaId) {
        // BEGIN-SOLUTION ch08 task 6: the leader reads with chapter 3's ceiling for the replica id (IsolationTest)
        return FetchIsolation.of(replicaId);
        // END-SOLUTION
    }

    /**
     * Moves the leader's high watermark to what {@link HighWatermark#advanceHw} proposes, never
     * backwards: the proposal knows nothing of the current HW, so the "never backwards" rule is
     * this caller's job.
     */
    public void recomputeHw() throws IOException {
        recomputeHw(leader, isr);
    }

    /**
     * The same rule for any leader and any view of its ISR: chapter 10's leaders, each in its own
     * broker process, move their high watermarks with it too.
     */
    public static void recomputeHw(Replica leader, IsrView isr) throws IOException {
        // BEGIN-SOLUTION ch08 task 7: propose from the ISR, then never move backwards (RecomputeHwTest)
        OptionalLong proposal = HighWatermark.advanceHw(leader.id(), leader.leo(), isr.followerLeos(),
                isr.maximalIsr(), isr.minIsr());
        long current = leader.highWatermark();
        long next = HighWatermark.nextHighWatermark(current, proposal);
        if (next != current) {
            leader.updateHighWatermark(next);
        }
        // END-SOLUTION
    }

    /**
     * One round of replication, over the link: the follower sends a fetch request (its LEO as the
     * fetch offset), the leader answers it, the follower applies the answer.
     */
    public FetchRound fetchOnce(long nowMs) throws IOException {
        long fetchOffset = sendFetchRequest();
        answerFetch(nowMs);
        Received received = applyFetchResponse();
        return new FetchRound(fetchOffset, received.recordsShipped(), received.highWatermark(),
                leader.leo(), leader.highWatermark(), follower.leo(), follower.highWatermark());
    }

    /** What the follower took from one response: the records it appended, the HW the response carried. */
    public record Received(int recordsShipped, long highWatermark) {
    }

    /** The follower asks for the offset after the last one it holds: its fetch offset is its LEO. */
    private long sendFetchRequest() throws IOException {
        long fetchOffset = follower.leo();
        FetchRequest request = new FetchRequest(follower.id(), PARTITION, fetchOffset, FETCH_MAX_BYTES, 0);
        link.toLeader().send(new RequestEnvelope(ApiKeys.FETCH, ++correlationId, request.encode()).encode());
        return fetchOffset;
    }

    /**
     * The leader's side of a round: read the request off the link; a fetch the leader cannot take
     * at its word ({@link #checkFollowerFetch}) is answered with its error and teaches the leader
     * nothing; any other fetch's offset is the follower's LEO: record it, recompute the high
     * watermark, and answer with the records from the fetch offset up to the log end and the high
     * watermark. Package-private: a test puts a request of its own on the link and calls it.
     */
    void answerFetch(long nowMs) throws IOException {
        // BEGIN-SOLUTION ch08 task 8: the leader learns the follower's LEO from the request (FetchRoundTest)
        RequestEnvelope envelope = fetchRequestOffTheLink();
        FetchRequest request = FetchRequest.decode(envelope.body());
        ErrorCode refused = checkFollowerFetch(request.replicaId(), request.fetchOffset(), isr.followers(),
                leader.logStartOffset(), leader.leo());
        if (refused != ErrorCode.NONE) {
            // checked before it is recorded: a word the log cannot back moves no LEO, no time, no HW
            link.toFollower().send(new ResponseEnvelope(envelope.correlationId(),
                    FetchResponse.error(PARTITION, refused).encode()).encode());
            return;
        }
        // The request's fetch offset IS the follower's LEO. The leader learns it here, from this
        // request, before it reads a single record: this is where the one-round lag comes from.
        isr.observe(request.replicaId(), request.fetchOffset(), nowMs);
        recomputeHw();
        FetchResponse response = readForFetch(request);
        link.toFollower().send(new ResponseEnvelope(envelope.correlationId(), response.encode()).encode());
        // END-SOLUTION
    }

    /**
     * Whether the leader may take a follower's fetch at its word (Kafka's {@code Partition.fetchRecords}
     * for a follower: {@code followerReplicaOrThrow}, then the read, then only
     * {@code updateFollowerFetchState}). A replica id that is not one of {@code followers} (the
     * partition's other assigned replicas) is NOT_LEADER_OR_FOLLOWER; a fetch offset outside the
     * leader's log, below its start or past its end, is OFFSET_OUT_OF_RANGE: a follower cannot hold
     * a record the leader never had, so such an offset is no follower's LEO. NONE: the fetch offset
     * may be recorded as that follower's LEO. The leader's own log end is a fetch offset like any
     * other: a follower that holds everything asks for it.
     */
    public static ErrorCode checkFollowerFetch(int replicaId, long fetchOffset, Collection<Integer> followers,
                                               long logStartOffset, long logEndOffset) {
        // BEGIN-SOLUTION ch08 task 8: a replica's word is checked against the log before it counts (FetchRoundTest)
        if (!followers.contains(replicaId)) {
            return ErrorCode.NOT_LEADER_OR_FOLLOWER;
        }
        if (fetchOffset < logStartOffset || fetchOffset > logEndOffset) {
            return ErrorCode.OFFSET_OUT_OF_RANGE;
        }
        return ErrorCode.NONE;
        // END-SOLUTION
    }

    /** The follower's side of a round, on the response read off the link. */
    private Received applyFetchResponse() throws IOException {
        return applyFetchResponse(follower, receiveFetchResponse());
    }

    /**
     * The follower's side of a round: append the leader's batches as they are (no offset is
     * assigned: the leader already did), then take the high watermark from the response, capped at
     * its own log end. Chapter 10's fetcher applies every response it gets over TCP with this too.
     */
    public static Received applyFetchResponse(Replica follower, FetchResponse response) throws IOException {
        // BEGIN-SOLUTION ch08 task 8: append the leader's bytes, then take the HW from the response (FetchRoundTest)
        int shipped = follower.appendAsFollower(response.records());
        // The HW arrives in the RESPONSE, and a follower can never have a HW above the records it holds.
        long hw = Math.max(follower.highWatermark(), Math.min(response.highWatermark(), follower.leo()));
        follower.updateHighWatermark(hw);
        return new Received(shipped, response.highWatermark());
        // END-SOLUTION
    }

    /** The leader reads as for any fetch; only the isolation depends on who asks. */
    private FetchResponse readForFetch(FetchRequest request) throws IOException {
        return leader.partition().locked(log -> {
            try {
                ByteBuffer records = log.read(request.fetchOffset(), request.maxBytes(),
                        isolationOf(request.replicaId()));
                return new FetchResponse(PARTITION, ErrorCode.NONE, log.highWatermark(), log.logStartOffset(), records);
            } catch (OffsetOutOfRangeException e) {
                return FetchResponse.error(PARTITION, ErrorCode.OFFSET_OUT_OF_RANGE);
            }
        });
    }

    /** Reads the leader's answer off the link: the right correlation id, no error, a HW that is an offset. */
    private FetchResponse receiveFetchResponse() throws IOException {
        ResponseEnvelope envelope = ResponseEnvelope.decode(link.toFollower().receive());
        if (envelope.correlationId() != correlationId) {
            throw new MalformedMessageException("response to request " + envelope.correlationId() + ", expected "
                    + correlationId);
        }
        FetchResponse response = FetchResponse.decode(envelope.body());
        if (response.error() != ErrorCode.NONE) {
            throw new IllegalStateException("the leader answered fetch " + correlationId + " with " + response.error());
        }
        if (response.highWatermark() < 0) {
            throw new MalformedMessageException("highWatermark " + response.highWatermark() + " is not an offset");
        }
        return response;
    }

    /**
     * A producer writes one record, {@code m<n>}, to the leader. acks=all with an ISR below
     * {@code min.insync.replicas} is refused BEFORE the append (nothing is written); otherwise the
     * leader appends, then tries to move the high watermark (the ISR may be the leader alone).
     * acks decides when a producer is answered, never what is written: acks=1 and acks=all write
     * the same record at the same place.
     *
     * @param acks {@link ProduceRequest#ACKS_NONE}, {@link ProduceRequest#ACKS_LEADER} or {@link ProduceRequest#ACKS_ALL}
     */
    public Produced produce(long n, short acks, long nowMs) throws IOException {
        if (acks != ProduceRequest.ACKS_NONE && acks != ProduceRequest.ACKS_LEADER && acks != ProduceRequest.ACKS_ALL) {
            throw new IllegalArgumentException("acks must be 0, 1 or -1 (all), got " + acks);
        }
        return acks == ProduceRequest.ACKS_ALL ? produceAcksAll(n, nowMs) : append(n, nowMs);
    }

    /**
     * acks=all is checked against {@code min.insync.replicas} BEFORE the append: under it, the
     * answer is Kafka's NOT_ENOUGH_REPLICAS and nothing is written; otherwise it is appended like
     * any other write.
     */
    private Produced produceAcksAll(long n, long nowMs) throws IOException {
        // BEGIN-SOLUTION ch08 task 9: refuse acks=all under min ISR before the append (ProduceTest)
        ErrorCode refused = produceRefusal(ProduceRequest.ACKS_ALL, isr);
        if (refused != ErrorCode.NONE) {
            return Produced.refused(refused);
        }
        return append(n, nowMs);
        // END-SOLUTION
    }

    /**
     * The check before the append, as a rule of its own (Kafka's {@code appendRecordsToLeader}): a
     * write with acks=all while {@code isr} is under {@code min.insync.replicas} is refused with
     * NOT_ENOUGH_REPLICAS (Kafka's error 19) and nothing is written; acks=0 and acks=1 wait for no
     * replica and are never refused here. Chapter 10's leaders ask it about the ISR as written in
     * ZooKeeper ({@link IsrState#withIsr}).
     */
    public static ErrorCode produceRefusal(short acks, IsrState isr) {
        // BEGIN-SOLUTION ch08 task 9: acks=all under min ISR is NOT_ENOUGH_REPLICAS, other acks never (ProduceTest)
        if (acks == ProduceRequest.ACKS_ALL && isr.underMinIsr()) {
            // Kafka's error 19, NOT_ENOUGH_REPLICAS: checked before the append, not together with it.
            return ErrorCode.NOT_ENOUGH_REPLICAS;
        }
        return ErrorCode.NONE;
        // END-SOLUTION
    }

    /** The leader appends the record, then tries to move the high watermark (the ISR may be the leader alone). */
    private Produced append(long n, long nowMs) throws IOException {
        AppendInfo appended = leader.appendAsLeader(record(n, nowMs));
        recomputeHw();
        return new Produced(appended.firstOffset(), ErrorCode.NONE);
    }

    /** The one-record batch a producer sends for {@code produce(n, ...)}: key {@code order-<n>}, value {@code m<n>}. */
    public static ByteBuffer record(long n, long nowMs) {
        return new BatchBuilder().append(nowMs, "order-" + n, "m" + n).build();
    }

    /**
     * Before KIP-101, a follower that restarted cut its log back to its own high watermark. That
     * HW is one round behind, so this can throw away a record that is committed on the leader.
     * Kept here to show the loss; returns the follower's LEO afterwards.
     */
    public long truncateFollowerToHighWatermark() throws IOException {
        follower.truncateTo(follower.highWatermark());
        return follower.leo();
    }

    /**
     * KIP-101: the follower asks the leader where the latest epoch it holds ends, and truncates to
     * {@code min(its own LEO, that end)}, never to its own high watermark. Returns the leader's
     * answer (empty when the follower holds no epoch, or when the leader knows none at or below it;
     * then it falls back to its high watermark, as Kafka's follower does on an undefined answer).
     */
    public Optional<EpochEndOffset> truncateFollowerByLeaderEpoch() throws IOException {
        // BEGIN-SOLUTION ch08 task 11: truncate to the leader's end of my epoch, not to my HW (Kip101Test)
        OptionalInt held = follower.epochs().latestEpoch();
        if (held.isEmpty()) {
            return Optional.empty(); // an empty log has nothing to cut
        }
        Optional<EpochEndOffset> answer = askLeaderForEpochEnd(held.getAsInt());
        long leo = follower.leo();
        long truncateTo = answer.map(end -> Math.min(leo, end.endOffset())).orElse(follower.highWatermark());
        follower.truncateTo(truncateTo);
        return answer;
        // END-SOLUTION
    }

    /**
     * Kafka's OffsetsForLeaderEpoch request, as a call: the leader's answer crosses the wire as a
     * pair, with (-1, -1) for "none", and becomes an Optional again on the other side.
     */
    private Optional<EpochEndOffset> askLeaderForEpochEnd(int epoch) {
        EpochEndOffset.Wire wire = EpochEndOffset.toWire(leader.endOffsetForEpoch(epoch));
        return EpochEndOffset.fromWire(wire.leaderEpoch(), wire.endOffset());
    }

    /**
     * The leader is gone: the follower takes over at {@code newEpoch} and the old leader becomes
     * its follower, both still in the ISR of the new leader (a controller would decide this in
     * Kafka; kaen-log has none, so the caller does). The old leader still has to reconcile its log
     * with the new leader's: call one of the two truncations.
     */
    public void failOver(int newEpoch, long nowMs) {
        Replica oldLeader = leader;
        leader = follower;
        follower = oldLeader;
        follower.becomeFollower();
        leader.becomeLeader(newEpoch);
        isr = new IsrState(leader.id(), List.of(follower.id()), minIsr, nowMs);
        installGate();
    }

    /** Chapter 3's acks=all path asks this gate (the leader's HW and the ISR, read live). */
    private void installGate() {
        gate = new IsrGate(leader.highWatermarkInsideLock(), isr);
        leader.partition().setReplicaGate(gate);
    }

    public Replica leader() {
        return leader;
    }

    public Replica follower() {
        return follower;
    }

    public IsrState isr() {
        return isr;
    }

    public IsrGate gate() {
        return gate;
    }

    public InMemoryLink link() {
        return link;
    }

    @Override
    public void close() throws IOException {
        try {
            leader.close();
        } finally {
            follower.close();
        }
    }

    /** The next request on the link, which must be a fetch (chapter 3's envelope: apiKey · correlationId · body). */
    private RequestEnvelope fetchRequestOffTheLink() throws IOException {
        RequestEnvelope envelope = RequestEnvelope.decode(link.toLeader().receive());
        if (envelope.apiKey() != ApiKeys.FETCH) {
            throw new MalformedMessageException("apiKey " + envelope.apiKey() + " on the replication link, expected "
                    + ApiKeys.FETCH);
        }
        return envelope;
    }
}
