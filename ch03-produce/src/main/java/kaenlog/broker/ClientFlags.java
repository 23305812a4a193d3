package kaenlog.broker;

import kaenlog.cli.Flags;
import kaenlog.cli.UsageException;

/**
 * The flags every client subcommand shares (klog produce, klog consume, chapter 7's klog
 * idem-produce): where the broker is and which partition.
 */
public record ClientFlags(String host, int port, String partition) {
    public static ClientFlags of(Flags flags) throws UsageException {
        if (!flags.has("port")) {
            throw new UsageException("--port is required: the port klog serve printed");
        }
        if (!flags.has("partition")) {
            throw new UsageException("--partition is required, e.g. --partition orders-0");
        }
        String partition = flags.string("partition", "");
        String problem = PartitionNames.problem(partition);
        if (problem != null) {
            throw new UsageException(problem);
        }
        return new ClientFlags(flags.string("host", BrokerConfig.DEFAULT_HOST),
                flags.intValue("port", 0, 1, 65535), partition);
    }

    public String address() {
        return host + ":" + port;
    }
}
