package kaenlog.txn;

import java.io.IOException;

/**
 * Where the coordinator's producer ids come from: on one broker chapter 7's log of the ids it handed
 * out ({@code ProducerIds}), in a cluster chapter 10's blocks from ZooKeeper. An id is never handed
 * out twice, restarts included.
 */
@FunctionalInterface
public interface ProducerIdSource {
    long next() throws IOException;
}
