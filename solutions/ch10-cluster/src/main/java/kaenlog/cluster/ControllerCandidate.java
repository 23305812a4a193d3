package kaenlog.cluster;

import java.io.PrintStream;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.apache.zookeeper.KeeperException;

/**
 * A broker's part in the controller (given code): every broker runs for controller when it joins
 * and whenever {@code /controller} goes (Kafka's {@code KafkaController} runs on every broker and is
 * active on one: {@code Startup}, {@code ControllerChange}, {@code Reelect}); the one that wins holds
 * a {@link Controller} for its term, which reacts to every change the term's watches report, one at
 * a time, on this broker's controller thread. A term ends when another broker holds
 * {@code /controller}, when a write is fenced by a newer controller epoch
 * ({@link ControllerMovedException}), or with the session: it never acts on a stale term.
 */
final class ControllerCandidate {
    private final int brokerId;
    private final LongSupplier nowMs;
    private final BiConsumer<String, String> refused;
    private final PrintStream log;
    private final EventQueue events;
    /** The session, set on the controller thread when the broker joins (again). */
    private ZkClient zk;
    /** This broker's term as controller, or null; read by {@link #isController} from any thread. */
    private volatile Controller term;

    /**
     * @param refused hears of every znode the controller refused to act on, with why
     * @param failed  hears of what failed in a reaction that is no ZooKeeper weather (a bug, a TODO)
     */
    ControllerCandidate(int brokerId, LongSupplier nowMs, BiConsumer<String, String> refused, PrintStream log,
                        BiConsumer<String, Throwable> failed) {
        this.brokerId = brokerId;
        this.nowMs = nowMs;
        this.refused = refused;
        this.log = log;
        this.events = new EventQueue("klog-controller-" + brokerId, "the controller", log, failed, this::eventOf,
                this::runForController);
    }

    /** The broker joined on {@code session} (or joined again): it runs for controller. */
    void startup(ZkClient session) {
        events.put(() -> {
            zk = session;
            runForController();
        });
    }

    /** The session expired: its {@code /controller} went with it, and so did the term. */
    void sessionExpired() {
        events.put(() -> term = null);
    }

    boolean isController() {
        return term != null;
    }

    void close(long waitMs) {
        events.close(waitMs);
    }

    /** What a watch's change is for the controller: an election for {@code /controller}, else its term's reaction. */
    private EventQueue.Event eventOf(ZNodeChange change) {
        if (change.kind() == ZNodeChange.Kind.CONTROLLER) {
            return this::runForController;
        }
        return () -> {
            Controller current = term;
            if (current != null) {
                act(() -> current.process(change));
            }
        };
    }

    /**
     * Watches {@code /controller}; when no one holds it, runs (task 3 (ControllerElectionTest)) and,
     * having won, takes office; when another broker holds it, this broker's term is over.
     */
    private void runForController() throws KeeperException, InterruptedException {
        zk.get(ZNodes.CONTROLLER, events);
        int holder = ControllerElection.controller(zk);
        if (holder == PartitionState.NO_LEADER) {
            ControllerElection.elect(zk, brokerId, nowMs.getAsLong()).ifPresent(epoch -> {
                log.println("cluster: broker " + brokerId + " is the controller, epoch " + epoch.epoch());
                term = new Controller(zk, epoch, refused, events);
            });
        } else if (holder != brokerId && term != null) {
            log.println("cluster: broker " + brokerId + " is no longer the controller: broker " + holder + " is");
            term = null;
        }
        Controller current = term;
        if (current != null) {
            act(current::onControllerFailover);
        }
    }

    /** One reaction of the term; a write fenced by a newer controller epoch ends the term. */
    private void act(Reaction reaction) throws KeeperException, InterruptedException {
        try {
            reaction.run().forEach(change -> log.println("cluster: controller " + brokerId + ": " + change));
        } catch (ControllerMovedException moved) {
            log.println("cluster: broker " + brokerId + " is no longer the controller: " + moved.getMessage());
            term = null;
        }
    }

    @FunctionalInterface
    private interface Reaction {
        List<Controller.Change> run() throws ControllerMovedException, KeeperException, InterruptedException;
    }
}
