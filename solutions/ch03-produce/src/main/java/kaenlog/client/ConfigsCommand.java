package kaenlog.client;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.DescribeConfigs;
import kaenlog.wire.PartitionNames;

/**
 * {@code klog configs}: asks a running broker which configs a partition runs with (or, without
 * {@code --partition}, the broker's own), like Kafka's {@code kafka-configs --describe --all}. One
 * line per config: {@code name=value} and, after a tab, where the value comes from: PARTITION
 * ({@code --partition-config}), INTERNAL (an internal partition's own), BROKER ({@code --config}) or
 * DEFAULT (Kafka's default).
 */
public final class ConfigsCommand implements Subcommand {
    @Override
    public String name() {
        return "configs";
    }

    @Override
    public String usage() {
        return "[--partition NAME (default: the broker's own configs)] [--port P (default 9092)] [--host 127.0.0.1]";
    }

    @Override
    public String summary() {
        return "chapter 3: show the configs a running broker gives a partition";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Flags flags = Flags.parse(args, Set.of("host", "port", "partition"), Set.of()).noPositional();
        String host = ClientFlags.host(flags);
        int port = ClientFlags.port(flags);
        String partition = flags.string("partition", "");
        if (!partition.isEmpty() && PartitionNames.problem(partition) != null) {
            throw new UsageException(PartitionNames.problem(partition));
        }
        try (BrokerClient client = BrokerClient.connect(host, port)) {
            DescribeConfigs.Response response = DescribeConfigs.Response.decode(
                    client.call(ApiKeys.DESCRIBE_CONFIGS, new DescribeConfigs.Request(partition).encode()));
            out.println(partition.isEmpty() ? "broker configs:" : "configs of " + partition + ":");
            for (DescribeConfigs.Entry entry : response.entries()) {
                out.println(entry.name() + "=" + entry.value() + "\t" + entry.source());
            }
            return Klog.OK;
        } catch (IOException e) {
            err.println("klog configs: " + host + ":" + port + ": " + e.getMessage());
            return Klog.FAILED;
        }
    }
}
