package kaenlog.reliability;

import com.sun.jdi.AbsentInformationException;
import com.sun.jdi.Bootstrap;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.Location;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.IllegalConnectorArgumentsException;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import kaenlog.batch.BatchBuilder;
import kaenlog.client.BrokerClient;
import kaenlog.wire.ProduceRequest;

/**
 * Item 1, a crash during a segment roll. A roll ({@code LocalLog.roll}, chapter 3) flushes the active
 * segment, creates the new {@code .log} file, then its {@code .index}, and only then is the batch
 * that did not fit written into it. To kill the broker at exactly those moments, the broker JVM
 * runs with a debugger agent (JDWP, loopback only) and this class, through the JDK's own debugger
 * API (JDI), stops the roll's thread at a breakpoint and SIGKILLs the process while it stands
 * there. A kill at a breakpoint leaves the files exactly as a crash at that instruction would.
 *
 * <p>After each kill the broker is restarted without the agent; the same checks as
 * {@link CrashRecovery} run, more is written (more rolls), the broker is killed once more
 * anywhere, restarted, and checked again.
 */
public final class RollCrash {
    static final String PARTITION = "roll-0";
    /** The smallest segment klog serve allows: a roll every few batches. */
    static final int SEGMENT_BYTES = 1024;

    /** Where in the roll the broker dies. */
    public enum Point {
        /** The old segment is flushed; no new file exists yet ({@code Segment.create} entered). */
        BEFORE_NEW_FILES("kaenlog.log.Segment", "create", false),
        /** The new {@code .log} exists, empty; its {@code .index} does not ({@code OffsetIndex.create} entered). */
        NEW_LOG_WITHOUT_INDEX("kaenlog.log.OffsetIndex", "create", false),
        /** Both new files exist, nothing written into them ({@code LocalLog.roll} about to return). */
        NEW_SEGMENT_EMPTY("kaenlog.log.LocalLog", "roll", true);

        final String className;
        final String methodName;
        final boolean atReturn;

        Point(String className, String methodName, boolean atReturn) {
            this.className = className;
            this.methodName = methodName;
            this.atReturn = atReturn;
        }
    }

    /** One kill inside a roll and what the restarted broker showed. */
    public record Outcome(Point point, boolean killedInRoll, List<String> filesAtKill, Ledger.Audit afterRestart,
                          Ledger.Audit afterMoreWrites, boolean acceptsWrites, List<String> problems) {
        public Outcome {
            filesAtKill = List.copyOf(filesAtKill);
            problems = List.copyOf(problems);
        }

        boolean ok() {
            return killedInRoll && afterRestart.clean() && afterMoreWrites.clean() && acceptsWrites && problems.isEmpty();
        }
    }

    /** The figures of all the points. */
    public record Result(List<Outcome> outcomes) implements Figures {
        public Result {
            outcomes = List.copyOf(outcomes);
        }

        @Override
        public Row row() {
            long records = outcomes.stream().mapToLong(o -> o.afterMoreWrites().ackedRecords()).sum();
            long lost = outcomes.stream().mapToLong(o -> o.afterRestart().lost() + o.afterRestart().misplaced()
                    + o.afterMoreWrites().lost() + o.afterMoreWrites().misplaced()).sum();
            long dups = outcomes.stream().mapToLong(o -> o.afterRestart().duplicates() + o.afterMoreWrites().duplicates())
                    .sum();
            // two kills per point: one inside the roll, one anywhere after more writes
            long survived = outcomes.stream().mapToLong(o -> (o.afterRestart().clean() ? 1 : 0)
                    + (o.afterMoreWrites().clean() ? 1 : 0)).sum();
            return new Row("1 SIGKILL inside a segment roll", outcomes.size(), records, 2L * outcomes.size(), lost, dups,
                    survived);
        }

        @Override
        public List<String> details() {
            List<String> lines = new ArrayList<>();
            for (Outcome o : outcomes) {
                lines.add(o.point() + ": killed inside LocalLog.roll: " + (o.killedInRoll() ? "yes" : "NO") + "; files: "
                        + String.join(", ", o.filesAtKill()) + "; after restart lost " + o.afterRestart().lost()
                        + ", dups " + o.afterRestart().duplicates() + ", accepts writes " + (o.acceptsWrites() ? "yes" : "NO")
                        + (o.problems().isEmpty() ? "" : " " + o.problems()));
            }
            return lines;
        }

        @Override
        public boolean ok() {
            return !outcomes.isEmpty() && outcomes.stream().allMatch(Outcome::ok);
        }
    }

    private RollCrash() {
    }

    public static Result run(Path root, BrokerProcess.Options options, long seed) throws IOException {
        List<Outcome> outcomes = new ArrayList<>();
        int i = 0;
        for (Point point : Point.values()) {
            outcomes.add(run(Files.createDirectories(root.resolve("roll-" + point.name().toLowerCase())), options,
                    point, seed + i++));
        }
        return new Result(outcomes);
    }

    static Outcome run(Path dir, BrokerProcess.Options options, Point point, long seed) throws IOException {
        BrokerProcess.Options plain = options.withSegmentBytes(SEGMENT_BYTES);
        BrokerProcess.Options debuggable = plain.plusJvmArgs(List.of(
                "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"));
        Ledger ledger = new Ledger();
        LedgerProducer producer = new LedgerProducer(0, PARTITION, ProduceRequest.ACKS_LEADER, 8, seed, ledger);
        List<String> problems = new ArrayList<>();
        List<String> filesAtKill = new ArrayList<>();
        boolean killed;
        BrokerProcess broker = BrokerProcess.start(dir, debuggable);
        try {
            warmUp(broker);
            killed = killInRoll(broker, point, dir.resolve(PARTITION), producer, filesAtKill, problems);
            broker.kill();
            broker = BrokerProcess.start(dir, plain);
            CrashRecovery.Check first = CrashRecovery.check(broker, dir, ledger, PARTITION);
            // More writes (several rolls), a kill anywhere, a restart: the log rolled on from the crash state.
            AtomicLong acked = new AtomicLong();
            producer.runUntilBroken(broker.host(), broker.port(), 40, acked);
            broker.kill();
            broker = BrokerProcess.start(dir, plain);
            boolean accepts = CrashRecovery.acceptsWrites(broker, ledger, PARTITION);
            CrashRecovery.Check second = CrashRecovery.check(broker, dir, ledger, PARTITION);
            if (!first.clean()) {
                problems.add("after the kill in the roll: " + first.describe());
            }
            if (!second.clean()) {
                problems.add("after more writes and another kill: " + second.describe());
            }
            return new Outcome(point, killed, filesAtKill, first.audit(), second.audit(), accepts, problems);
        } finally {
            broker.close();
        }
    }

    /** Opens another partition first, so the log classes are loaded before breakpoints are set. */
    private static void warmUp(BrokerProcess broker) throws IOException {
        try (BrokerClient client = BrokerClient.connect(broker.host(), broker.port(), LedgerProducer.READ_TIMEOUT_MS)) {
            client.produce("warm-0", ProduceRequest.ACKS_LEADER, new BatchBuilder().append(0L, null, "warm").build());
        }
    }

    /**
     * Sets the breakpoint, lets the producer write until a roll's thread stops there, lists the
     * partition's files, and kills the broker while the thread stands at the breakpoint.
     */
    private static boolean killInRoll(BrokerProcess broker, Point point, Path partitionDir, LedgerProducer producer,
                                      List<String> filesAtKill, List<String> problems) throws IOException {
        VirtualMachine vm = attach(broker.debugPort());
        Thread writer = null;
        try {
            breakpointAt(vm, point);
            AtomicLong acked = new AtomicLong();
            writer = new Thread(() -> producer.runUntilBroken(broker.host(), broker.port(), 500, acked),
                    "roll-producer");
            writer.setDaemon(true);
            writer.start();
            Deadline deadline = Deadline.in(60_000);
            while (!deadline.passed()) {
                EventSet events = vm.eventQueue().remove(Math.max(1, Math.min(200, deadline.remainingMs())));
                if (events == null) {
                    if (!writer.isAlive()) {
                        problems.add(point + ": the producer finished without a roll reaching the breakpoint");
                        return false;
                    }
                    continue;
                }
                for (Event event : events) {
                    if (event instanceof VMDisconnectEvent) {
                        problems.add(point + ": the broker went away before the breakpoint");
                        return false;
                    }
                    if (event instanceof BreakpointEvent hit && inRoll(hit.thread())) {
                        filesAtKill.addAll(listing(partitionDir));
                        broker.kill();
                        return true;
                    }
                }
                events.resume();
            }
            problems.add(point + ": no roll reached the breakpoint in time");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            try {
                vm.dispose();
            } catch (VMDisconnectedException gone) {
                // the broker was killed: nothing to detach from
            }
            broker.kill();
            if (writer != null) {
                try {
                    writer.join(LedgerProducer.READ_TIMEOUT_MS + 10_000L);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static VirtualMachine attach(int port) throws IOException {
        if (port < 0) {
            throw new IOException("the broker was not started with a debugger agent");
        }
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.transport().name().equals("dt_socket")).findFirst()
                .orElseThrow(() -> new IOException("this JDK has no socket attaching connector"));
        Map<String, Connector.Argument> args = connector.defaultArguments();
        args.get("hostname").setValue("127.0.0.1");
        args.get("port").setValue(Integer.toString(port));
        args.get("timeout").setValue("20000");
        try {
            return connector.attach(args);
        } catch (IllegalConnectorArgumentsException e) {
            throw new IOException("cannot attach to the broker's debugger agent: " + e.getMessage(), e);
        }
    }

    private static void breakpointAt(VirtualMachine vm, Point point) throws IOException {
        List<ReferenceType> types = vm.classesByName(point.className);
        if (types.isEmpty()) {
            throw new IOException(point.className + " is not loaded in the broker yet");
        }
        List<Method> methods = types.get(0).methodsByName(point.methodName);
        if (methods.size() != 1) {
            throw new IOException(point.className + "." + point.methodName + " has " + methods.size() + " overloads");
        }
        Location location = methods.get(0).location();
        if (point.atReturn) {
            try {
                // The closing brace: javac puts the method's final return instruction on its line.
                location = methods.get(0).allLineLocations().stream()
                        .max(Comparator.comparingInt(Location::lineNumber)).orElseThrow();
            } catch (AbsentInformationException e) {
                throw new IOException("the broker's classes were compiled without line numbers", e);
            }
        }
        BreakpointRequest request = vm.eventRequestManager().createBreakpointRequest(location);
        request.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        request.enable();
    }

    /** True when the stopped thread is inside {@code LocalLog.roll} (not, say, creating a new partition's first segment). */
    private static boolean inRoll(ThreadReference thread) {
        try {
            for (StackFrame frame : thread.frames()) {
                Method m = frame.location().method();
                if (m.declaringType().name().equals("kaenlog.log.LocalLog") && m.name().equals("roll")) {
                    return true;
                }
            }
        } catch (IncompatibleThreadStateException e) {
            return false;
        }
        return false;
    }

    /** "name size" of every file of the partition, sorted. */
    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<String> lines = new ArrayList<>();
            for (Path f : files.sorted().toList()) {
                lines.add(f.getFileName() + " " + Files.size(f) + " B");
            }
            return lines;
        }
    }
}
