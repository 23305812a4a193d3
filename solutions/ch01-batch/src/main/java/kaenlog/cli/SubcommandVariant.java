package kaenlog.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * Another way to run an earlier chapter's subcommand, chosen by one flag: chapter 10's
 * {@code klog topics --zookeeper H:P} runs chapter 9's {@code klog topics} on a cluster's znodes
 * instead of a broker's port, as Kafka's {@code kafka-topics.sh} took {@code --zookeeper} or
 * {@code --bootstrap-server}. Each chapter registers its own in
 * {@code META-INF/services/kaenlog.cli.SubcommandVariant}; {@link Klog} runs the variant whose flag
 * the arguments name, and the subcommand itself otherwise, so the earlier chapter never names the
 * later one's classes (and its package could not: the layers forbid it).
 */
public interface SubcommandVariant {
    /** The subcommand it is a variant of, e.g. {@code topics}. */
    String subcommand();

    /** The flag that chooses it, without the dashes, e.g. {@code zookeeper}. */
    String flag();

    /** Its arguments, the flag included, e.g. {@code --zookeeper H:P --describe}. */
    String usage();

    /** Runs with every argument after the subcommand's name; as {@link Subcommand#run}. */
    int run(List<String> args, PrintStream out, PrintStream err) throws UsageException;
}
