package kaenlog.cli;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import kaenlog.workbook.Todo;

/**
 * {@code klog <subcommand> [flags]}: the one entry point of the workbook. Exit status 0 on
 * success, 1 when a command fails (a corrupt file, a self-check that did not hold), 2 on misuse,
 * 3 when it reaches an exercise that is not written yet. The user never sees a stack trace.
 */
public final class Klog {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int TODO = 3;

    private Klog() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
        int status = run(args, out, err);
        out.flush();
        err.flush();
        System.exit(status);
    }

    /** Everything {@link #main} does but exiting: tests call this. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        List<Subcommand> commands = subcommands();
        if (args.length == 0) {
            err.println("klog: which subcommand?");
            printUsage(commands, err);
            return USAGE;
        }
        if (args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
            printUsage(commands, out);
            return OK;
        }
        Optional<Subcommand> found = commands.stream().filter(c -> c.name().equals(args[0])).findFirst();
        if (found.isEmpty()) {
            err.println("klog: unknown subcommand '" + args[0] + "'");
            printUsage(commands, err);
            return USAGE;
        }
        Subcommand command = found.get();
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        List<SubcommandVariant> variants = variants(command.name());
        Optional<SubcommandVariant> variant = variants.stream().filter(v -> rest.contains("--" + v.flag())).findFirst();
        try {
            if (rest.contains("--help")) {
                out.println("usage: klog " + command.name() + " " + command.usage());
                variants.forEach(v -> out.println("   or: klog " + command.name() + " " + v.usage()));
                return OK;
            }
            return variant.isPresent() ? variant.get().run(rest, out, err) : command.run(rest, out, err);
        } catch (UsageException e) {
            err.println("klog " + command.name() + ": " + e.getMessage());
            err.println("usage: klog " + command.name() + " " + variant.map(SubcommandVariant::usage).orElse(command.usage()));
            return USAGE;
        } catch (Todo e) {
            err.println("klog " + command.name() + ": " + e.getMessage()
                    + " (an exercise not written yet: run its test, then write it)");
            return TODO;
        } catch (ClaimFailedException e) {
            err.println("klog " + command.name() + ": " + e.getMessage());
            return FAILED;
        } catch (RuntimeException e) {
            err.println("klog " + command.name() + ": " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return FAILED;
        }
    }

    /** Every subcommand on the classpath, by name: the list does not depend on discovery order. */
    public static List<Subcommand> subcommands() {
        return Services.load(Subcommand.class).stream()
                .sorted(Comparator.comparing(Subcommand::name))
                .toList();
    }

    /** The variants of subcommand {@code name} on the classpath, by class name. */
    static List<SubcommandVariant> variants(String name) {
        return Services.load(SubcommandVariant.class).stream().filter(v -> v.subcommand().equals(name)).toList();
    }

    private static void printUsage(List<Subcommand> commands, PrintStream to) {
        to.println("usage: klog <subcommand> [flags]   (klog <subcommand> --help for its flags)");
        for (Subcommand c : commands) {
            to.printf("  %-16s %s%n", c.name(), c.summary());
        }
    }
}
