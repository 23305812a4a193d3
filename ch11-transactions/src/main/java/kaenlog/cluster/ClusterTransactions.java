package kaenlog.cluster;

import java.io.Closeable;
import java.io.PrintStream;
import kaenlog.broker.Broker;

/**
 * Chapter 11's part of a cluster member (given code, a {@link ClusterExtension}): the transaction
 * coordinator of the {@code __transaction_state} partitions the member leads
 * ({@link ClusterTransactionCoordination}).
 */
public final class ClusterTransactions implements ClusterExtension {
    @Override
    public Closeable install(Broker broker, ClusterLeadership leadership, PrintStream log) {
        return ClusterTransactionCoordination.install(broker, leadership, log);
    }
}
