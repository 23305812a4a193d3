package kaenlog.cluster;

import java.io.Closeable;
import java.io.PrintStream;
import java.util.List;
import kaenlog.broker.Broker;
import kaenlog.cli.Services;

/**
 * A later chapter's part of a cluster member (given code; chapter 11: the transaction coordinator on
 * {@code __transaction_state}'s leaders), found with {@code ServiceLoader}
 * ({@code META-INF/services/kaenlog.cluster.ClusterExtension}) so that this chapter never names a
 * later chapter's classes. Each member installs one of each before it follows the metadata, so that a
 * {@link LeadershipListener} it adds hears every partition the member comes to lead, from the first;
 * what it returns is closed when the member leaves.
 */
public interface ClusterExtension {
    /** Installs this extension on the member of {@code broker} whose leadership is {@code leadership}. */
    Closeable install(Broker broker, ClusterLeadership leadership, PrintStream log);

    /** New instances of every extension on the classpath, by class name. */
    static List<ClusterExtension> load() {
        return Services.load(ClusterExtension.class);
    }
}
