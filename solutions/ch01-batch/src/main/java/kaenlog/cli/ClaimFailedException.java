package kaenlog.cli;

/**
 * A demo's self-check did not hold. A demo that prints numbers without checking them can print
 * wrong numbers forever; every demo states its claims with {@link Claims} and klog exits 1 when
 * one fails, so a broken solution cannot regenerate its golden file.
 */
public final class ClaimFailedException extends RuntimeException {
    public ClaimFailedException(String claim) {
        super("self-check failed: " + claim);
    }
}
