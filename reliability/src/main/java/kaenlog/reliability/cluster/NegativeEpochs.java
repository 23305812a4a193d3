package kaenlog.reliability.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kaenlog.batch.BatchHeader;
import kaenlog.replication.LeaderEpochCache;

/**
 * Every negative epoch a run left anywhere (#36: an epoch that wrapped past 2^31-1 is negative, and
 * KIP-380's fencing, which compares epochs, then takes the newest state for the oldest): in
 * ZooKeeper's history of the partition's state and of {@code /controller_epoch}, in the brokers'
 * logs ("... epoch N"), in their leader-epoch checkpoints and in the batches of their logs (where
 * -1 is a batch without an epoch, invariant 3's, and only below that counts here).
 */
final class NegativeEpochs {
    private static final Pattern EPOCH_IN_A_LINE = Pattern.compile("epoch (-\\d+)");

    private NegativeEpochs() {
    }

    /** A line per negative epoch found (where, and the value); empty when there is none. */
    static List<String> find(ZkHistory history, Map<Integer, ClusterChecker.ReplicaFiles> replicas,
                             Map<Integer, List<List<String>>> logs) {
        List<String> found = new ArrayList<>();
        for (ZkHistory.StateVersion v : history.states()) {
            if (v.state().leaderEpoch() < 0 || v.state().controllerEpoch() < 0) {
                found.add("ZooKeeper state " + v.state() + " (zxid 0x" + Long.toHexString(v.zxid()) + ")");
            }
        }
        for (ZkHistory.ControllerEvent e : history.controllerEpochs()) {
            if (e.epoch() < 0) {
                found.add("/controller_epoch " + e.epoch());
            }
        }
        replicas.forEach((broker, files) -> {
            for (LeaderEpochCache.EpochEntry entry : files.epochs()) {
                if (entry.epoch() < 0) {
                    found.add("broker " + broker + "'s epoch checkpoint " + entry);
                }
            }
            for (BatchHeader batch : files.batches()) {
                if (batch.partitionLeaderEpoch() < -1) {
                    found.add("broker " + broker + "'s batch at offset " + batch.baseOffset() + ", epoch "
                            + batch.partitionLeaderEpoch());
                }
            }
        });
        logs.forEach((broker, lives) -> lives.forEach(life -> life.forEach(line -> {
            Matcher m = EPOCH_IN_A_LINE.matcher(line);
            if (m.find()) {
                found.add("broker " + broker + "'s log: " + line);
            }
        })));
        return found;
    }
}
