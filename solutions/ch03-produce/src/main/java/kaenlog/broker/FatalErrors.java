package kaenlog.broker;

import java.io.PrintStream;
import java.util.function.IntConsumer;

/**
 * {@code klog serve}'s rule for a thread that dies of the JVM's own failure (an
 * {@link OutOfMemoryError} the broker's bounds missed, a {@link StackOverflowError}): the whole
 * process stops, with one last line in its log saying which thread died of what, and exit status 3,
 * as the JVM's {@code -XX:+ExitOnOutOfMemoryError} does ("Terminating due to
 * java.lang.OutOfMemoryError"). A broker whose acceptor, ticker or cleaner died would otherwise live
 * on, accepting connections and answering no one; a process that stops is one its supervisor
 * (systemd, Kubernetes) restarts. Unlike the JVM flag, an error caught on purpose stays an answer:
 * the pids limit's "unable to create native thread" costs one connection (SocketServer), not the
 * broker. Any other exception that ends a thread is one line, never a stack trace.
 */
final class FatalErrors implements Thread.UncaughtExceptionHandler {
    /** The JVM's status for -XX:+ExitOnOutOfMemoryError. */
    static final int EXIT_STATUS = 3;

    private final PrintStream log;
    private final IntConsumer halt;

    FatalErrors(PrintStream log, IntConsumer halt) {
        this.log = log;
        this.halt = halt;
    }

    /** The handler of a real process: {@code Runtime.halt}, no shutdown hook (they could need the memory that ran out). */
    static FatalErrors halting(PrintStream log) {
        return new FatalErrors(log, status -> Runtime.getRuntime().halt(status));
    }

    @Override
    public void uncaughtException(Thread thread, Throwable e) {
        if (e instanceof VirtualMachineError) {
            try {
                log.println("klog serve: thread " + thread.getName() + " died of " + e + ": stopping the broker"
                        + " (exit status " + EXIT_STATUS + ", as -XX:+ExitOnOutOfMemoryError does) so that its"
                        + " supervisor restarts it; a broker without that thread would serve no one");
                log.flush();
            } finally {
                halt.accept(EXIT_STATUS);
            }
            return;
        }
        log.println("klog serve: thread " + thread.getName() + " died of " + LogText.clean(e.toString()));
    }
}
