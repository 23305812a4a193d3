package kaenlog.client;

import kaenlog.cli.Flags;
import kaenlog.cli.UsageException;
import kaenlog.wire.PartitionNames;

/**
 * The flags every client subcommand shares (klog produce, klog consume, chapter 7's klog
 * idem-produce): where the broker is (port 9092 unless {@code --port} says otherwise) and which partition.
 */
public record ClientFlags(String host, int port, String partition) {
    /** Where klog serve listens unless told otherwise: this machine. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** The port klog serve listens on unless told otherwise, Kafka's own default. */
    public static final int DEFAULT_PORT = 9092;

    public static ClientFlags of(Flags flags) throws UsageException {
        if (!flags.has("partition")) {
            throw new UsageException("--partition is required, e.g. --partition orders-0");
        }
        String partition = flags.string("partition", "");
        String problem = PartitionNames.problem(partition);
        if (problem != null) {
            throw new UsageException(problem);
        }
        return new ClientFlags(host(flags), port(flags), partition);
    }

    public static String host(Flags flags) {
        return flags.string("host", DEFAULT_HOST);
    }

    /** The port klog serve printed; 9092 by default, as for klog serve and Kafka's own tools. */
    public static int port(Flags flags) throws UsageException {
        return flags.intValue("port", DEFAULT_PORT, 1, 65535);
    }

    public String address() {
        return host + ":" + port;
    }
}
