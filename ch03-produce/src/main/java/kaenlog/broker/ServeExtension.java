package kaenlog.broker;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Optional;
import java.util.Set;
import kaenlog.cli.Flags;
import kaenlog.cli.UsageException;

/**
 * Something a later chapter runs beside the broker that {@code klog serve} starts, found with
 * {@code ServiceLoader} ({@code META-INF/services/kaenlog.broker.ServeExtension}) so that chapter 3's
 * command never names a later chapter's classes: chapter 9 adds a second listener that speaks
 * Kafka's own protocol ({@code --kafka-port}). What a chapter adds to the broker itself (configs,
 * internal partitions, scheduled work) is a {@link BrokerExtension}; this is for the command's
 * flags and what starts beside the broker.
 */
public interface ServeExtension {
    /**
     * Where it starts among the extensions, lowest first (then by class name): an extension that
     * needs what another starts (chapter 10 registers the Kafka port chapter 9 opens) starts later.
     */
    default int startOrder() {
        return 0;
    }

    /** The valued flags this extension adds to {@code klog serve}, e.g. {@code kafka-port}. */
    Set<String> flags();

    /** Its part of {@code klog serve}'s usage line, e.g. {@code [--kafka-port P]}. */
    String usage();

    /**
     * Before the broker starts: what this extension changes in its config (chapter 10: a cluster
     * member's {@link Leadership}, so that the broker never serves a request before it knows what it
     * may serve). By default nothing. A bad flag value is a {@link UsageException}.
     */
    default BrokerConfig configure(BrokerConfig config, Flags flags) throws UsageException {
        return config;
    }

    /**
     * Starts beside {@code broker}, or returns empty when none of its flags was given. What it
     * returns is closed before the broker is. A bad flag value is a {@link UsageException}.
     */
    Optional<Closeable> start(Broker broker, Flags flags, PrintStream out, PrintStream err)
            throws IOException, UsageException;
}
