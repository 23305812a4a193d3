package kaenlog.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;

/**
 * {@code klog cluster --brokers 3 --dir D}: a whole cluster on one machine, for a learner: one
 * ZooKeeper server in this process and one {@code klog serve --broker-id N --zookeeper ...} process
 * per broker (real processes: {@code kill -9} one and the others notice when its session times
 * out). It prints each broker's ports and process id, and stops every process on Ctrl-C.
 */
public final class ClusterCommand implements Subcommand {
    @Override
    public String name() {
        return "cluster";
    }

    @Override
    public String usage() {
        return "--dir D [--brokers N (3)] [--zookeeper-port P (2181)] [--base-port P (9092: broker N listens on"
                + " P+2(N-1), its Kafka port on the next)]";
    }

    @Override
    public String summary() {
        return "chapter 10: ZooKeeper and N klog serve processes on this machine, until Ctrl-C";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("dir", "brokers", "zookeeper-port", "base-port"), Set.of()).noPositional();
        if (!flags.has("dir")) {
            throw new UsageException("--dir is required");
        }
        Path dir = Path.of(flags.string("dir", ""));
        int brokers = flags.intValue("brokers", 3, 1, 99);
        int basePort = flags.intValue("base-port", 9092, 1, 65_000);
        EmbeddedZooKeeper zookeeper;
        try {
            zookeeper = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), flags.intValue("zookeeper-port", 2181, 0, 65_535),
                    2_000);
        } catch (IOException e) {
            err.println("klog cluster: " + e.getMessage());
            return Klog.FAILED;
        }
        out.println("zookeeper on " + zookeeper.connectString());
        List<Process> processes = new ArrayList<>();
        Runnable stopAll = () -> {
            processes.forEach(Process::destroy);
            zookeeper.close();
        };
        try {
            for (int id = 1; id <= brokers; id++) {
                int port = basePort + 2 * (id - 1);
                List<String> command = new ArrayList<>(List.of(
                        ProcessHandle.current().info().command().orElse("java"),
                        "-cp", System.getProperty("java.class.path"), Klog.class.getName(), "serve",
                        "--broker-id", Integer.toString(id), "--zookeeper", zookeeper.connectString(),
                        "--dir", dir.resolve("broker-" + id).toString(),
                        "--port", Integer.toString(port), "--kafka-port", Integer.toString(port + 1)));
                Process process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("broker-" + id + ".log").toFile()).start();
                processes.add(process);
                out.println("broker " + id + ": kaen-log port " + port + ", kafka port " + (port + 1) + ", pid "
                        + process.pid() + ", log " + dir.resolve("broker-" + id + ".log"));
            }
        } catch (IOException e) {
            err.println("klog cluster: cannot start a broker: " + e.getMessage());
            stopAll.run();
            return Klog.FAILED;
        }
        out.println("klog cluster-topics --zookeeper " + zookeeper.connectString() + " --describe   # from another shell;"
                + " Ctrl-C stops them all");
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopAll.run();
            stopped.countDown();
        }, "klog-cluster-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            stopAll.run();
        }
        return Klog.OK;
    }
}
