package kaenlog.cli;

/** A command-line misuse: klog prints the message and the subcommand's usage, and exits 2. */
public final class UsageException extends Exception {
    public UsageException(String message) {
        super(message);
    }
}
