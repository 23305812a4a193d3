package kaenlog.demo.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import kaenlog.broker.BrokerContext;
import kaenlog.broker.CloseConnectionException;
import kaenlog.broker.RequestHandler;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.OffsetsForLeaderEpoch;

/**
 * What the demo puts in front of one broker's request handlers (the same door across its
 * restarts). It lets the demo cut that broker off from chosen followers, a network partition
 * between two brokers that leaves both ZooKeeper sessions alive: their fetches and epoch questions
 * are refused by closing the connection, as a partition would end it. It records what crossed it,
 * for the demo to wait on and to print: each follower's last answered fetch (the broker's time when
 * it came in, the leader epoch it named, its fetch offset), the first fetch at each epoch, and the
 * OffsetsForLeaderEpoch questions answered. And whatever a handler throws (a learner's TODO in the
 * leader's side of a fetch, say) is reported to the demo, which would otherwise only see a closed
 * connection and wait.
 */
final class Door {
    /** A follower's fetch that the broker answered: when it came in, by the broker's time. */
    record Fetch(long arrivedAtMs, int leaderEpoch, long fetchOffset) {
    }

    /** An OffsetsForLeaderEpoch question answered: the epoch asked about, and where the answer says it ends. */
    record Question(int askedEpoch, int answeredEpoch, long endOffset) {
    }

    /** The first fetch of a follower at one leader epoch (as it came in), and the questions it asked before it. */
    record FirstFetch(long fetchOffset, List<Question> questions) {
    }

    private final Set<Integer> cutOff = ConcurrentHashMap.newKeySet();
    private final Map<Integer, Integer> inFlight = new ConcurrentHashMap<>();
    private final Map<Integer, Fetch> lastFetch = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> refusedAtEpoch = new ConcurrentHashMap<>();
    private final Map<List<Integer>, FirstFetch> firstFetch = new ConcurrentHashMap<>();
    private final Map<List<Integer>, List<Question>> questions = new ConcurrentHashMap<>();
    private final Consumer<Throwable> failures;

    Door(Consumer<Throwable> failures) {
        this.failures = failures;
    }

    /** Every handler on the classpath, each behind this door. */
    List<RequestHandler> guard(List<RequestHandler> handlers) {
        List<RequestHandler> guarded = new ArrayList<>();
        handlers.forEach(handler -> guarded.add(new Guarded(handler)));
        return guarded;
    }

    /** From now on the broker refuses {@code replicaId}'s fetches and questions. */
    void cut(int replicaId) {
        cutOff.add(replicaId);
    }

    /** The partition between this broker and {@code replicaId} heals. */
    void heal(int replicaId) {
        cutOff.remove(replicaId);
    }

    /** True while a request of {@code replicaId}, let in before the cut, is still being answered (a parked fetch). */
    boolean busyWith(int replicaId) {
        return inFlight.getOrDefault(replicaId, 0) > 0;
    }

    Optional<Fetch> lastFetch(int replicaId) {
        return Optional.ofNullable(lastFetch.get(replicaId));
    }

    /** True once a request of {@code replicaId} naming {@code leaderEpoch} was refused at this door. */
    boolean refused(int replicaId, int leaderEpoch) {
        return refusedAtEpoch.getOrDefault(replicaId, -1) >= leaderEpoch;
    }

    Optional<FirstFetch> firstFetch(int replicaId, int leaderEpoch) {
        return Optional.ofNullable(firstFetch.get(List.of(replicaId, leaderEpoch)));
    }

    private Optional<byte[]> fetch(RequestHandler handler, byte[] body, BrokerContext broker) throws IOException {
        FetchRequest request = FetchRequest.decode(body);
        int replica = request.replicaId();
        if (replica < 0) {
            return handler.handle(body, broker);
        }
        // counted before the cut is looked at: once the demo has seen no fetch of a follower in flight
        // after cutting it off, every later fetch of it is refused
        inFlight.merge(replica, 1, Integer::sum);
        try {
            refuseIfCut(replica, request.currentLeaderEpoch());
            long arrivedAtMs = broker.nowMs();
            firstFetch.computeIfAbsent(List.of(replica, request.currentLeaderEpoch()), key -> new FirstFetch(
                    request.fetchOffset(), List.copyOf(questions.getOrDefault(key, List.of()))));
            Optional<byte[]> answer = handler.handle(body, broker);
            lastFetch.put(replica, new Fetch(arrivedAtMs, request.currentLeaderEpoch(), request.fetchOffset()));
            return answer;
        } finally {
            inFlight.merge(replica, -1, Integer::sum);
        }
    }

    private Optional<byte[]> question(RequestHandler handler, byte[] body, BrokerContext broker) throws IOException {
        OffsetsForLeaderEpoch.Request request = OffsetsForLeaderEpoch.Request.decode(body);
        refuseIfCut(request.replicaId(), request.currentLeaderEpoch());
        Optional<byte[]> answer = handler.handle(body, broker);
        OffsetsForLeaderEpoch.Response response = OffsetsForLeaderEpoch.Response.decode(answer.orElseThrow());
        if (response.error() == ErrorCode.NONE) {
            questions.computeIfAbsent(List.of(request.replicaId(), request.currentLeaderEpoch()),
                            k -> Collections.synchronizedList(new ArrayList<>()))
                    .add(new Question(request.leaderEpoch(), response.leaderEpoch(), response.endOffset()));
        }
        return answer;
    }

    private void refuseIfCut(int replica, int leaderEpoch) {
        if (cutOff.contains(replica)) {
            refusedAtEpoch.merge(replica, leaderEpoch, Math::max);
            throw new CloseConnectionException("the demo cut broker " + replica + " off from this broker");
        }
    }

    /** One handler behind the door: same key, same priority; what it throws is reported, then thrown on. */
    private final class Guarded implements RequestHandler {
        private final RequestHandler handler;

        Guarded(RequestHandler handler) {
            this.handler = handler;
        }

        @Override
        public short apiKey() {
            return handler.apiKey();
        }

        @Override
        public int chapter() {
            return handler.chapter();
        }

        @Override
        public int priority() {
            return handler.priority();
        }

        @Override
        public Optional<byte[]> handle(byte[] body, BrokerContext broker) throws IOException {
            try {
                if (handler.apiKey() == ApiKeys.FETCH) {
                    return fetch(handler, body, broker);
                }
                if (handler.apiKey() == OffsetsForLeaderEpoch.API_KEY) {
                    return question(handler, body, broker);
                }
                return handler.handle(body, broker);
            } catch (CloseConnectionException cut) {
                throw cut;
            } catch (RuntimeException | Error failure) {
                failures.accept(failure);
                throw failure;
            }
        }
    }
}
