package kaenlog.testkit;

/**
 * A later chapter's test that builds on an earlier chapter's rule asks that rule first, on the
 * input its own task gives it: chapter 10's leader shrinks its ISR with chapter 8's
 * {@code IsrState.shrinkIsr}, so when chapter 8's answer is wrong, chapter 10's task cannot be
 * judged. A wrong value throws nowhere, so no stack goes through the earlier chapter's code
 * ({@link EarlierChapterFailures} blames by the stack); this check makes the failure say
 * "this fails in your chapter 8 code, kaenlog.replication.IsrState.shrinkIsr", and the task table
 * "blocked by chapter 8", as for a stack through it.
 *
 * <p>On the reference's earlier chapter (the gate, {@code -Psolutions}, {@code -Dearlier=reference})
 * the rule holds, and a rule that does not is a plain failure: the reference is nobody's chapter.
 */
public final class EarlierRule {
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private EarlierRule() {
    }

    /**
     * Fails unless {@code holds}: the answer of {@code owner.method} (an earlier chapter's class) on
     * the caller's input agrees with {@code rule}. The caller is the later chapter's test class.
     */
    public static void holds(boolean holds, Class<?> owner, String method, String rule) {
        if (holds) {
            return;
        }
        Class<?> test = WALKER.getCallerClass();
        throw failure(owner.getName(), method, rule, EarlierChapterFailures.originOf(owner),
                EarlierChapterFailures.moduleOfTestClass(test));
    }

    /**
     * The failure for a rule of {@code owner} (loaded from {@code origin}) that answered wrong in a
     * test of {@code testModule}: it names the earlier chapter when that is the learner's code.
     */
    static AssertionError failure(String owner, String method, String rule, EarlierChapterFailures.Origin origin,
                                  String testModule) {
        AssertionError wrong = new AssertionError(owner.substring(owner.lastIndexOf('.') + 1) + "." + method
                + " answers against its rule: " + rule);
        int current = new EarlierChapterFailures.Origin(testModule, "").chapter();
        if (!origin.isChapter() || !"learner".equals(origin.kind()) || current <= 0 || origin.chapter() >= current) {
            return wrong;
        }
        StackTraceElement rulesFrame = new StackTraceElement(owner, method, null, -1);
        return new EarlierChapterFailures.EarlierChapterFailure(EarlierChapterFailures.line(origin, rulesFrame, current),
                wrong);
    }
}
