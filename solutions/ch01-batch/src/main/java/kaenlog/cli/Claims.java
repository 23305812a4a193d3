package kaenlog.cli;

/** The self-checks of one demo run: each claim must hold, and the count is printed at the end. */
public final class Claims {
    private int held;

    /** Throws {@link ClaimFailedException} naming the claim when it does not hold. */
    public void check(boolean holds, String claim) {
        if (!holds) {
            throw new ClaimFailedException(claim);
        }
        held++;
    }

    public int held() {
        return held;
    }
}
