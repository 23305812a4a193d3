package kaenlog.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * One {@code klog} subcommand. Each chapter registers its own in
 * {@code META-INF/services/kaenlog.cli.Subcommand}, so chapter 1's dispatcher never names a later
 * chapter's classes: the classpath decides which subcommands exist.
 */
public interface Subcommand {
    /** The word after {@code klog}, e.g. {@code batch-demo}. */
    String name();

    /** The arguments it takes, e.g. {@code [--now-ms MS]}. */
    String usage();

    /** One line for the list {@code klog --help} prints. */
    String summary();

    /**
     * Runs with the arguments after the name; returns the exit status. Throws
     * {@link UsageException} for a misuse (klog prints usage and exits 2).
     */
    int run(List<String> args, PrintStream out, PrintStream err) throws UsageException;
}
