package kaenlog.reliability;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import kaenlog.compaction.Cleaner;
import kaenlog.compaction.SegmentSwap;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;

/**
 * The process {@link CompactionCrash} kills: it opens a log, compacts it with chapter 6's
 * {@link Cleaner}, and when the swap of segment number {@code ordinal} reaches {@code step} it says
 * so on stdout and waits to be killed (at most a minute, then it exits 3 on its own).
 *
 * <p>Arguments: {@code dir segmentBytes indexIntervalBytes step ordinal nowMs deleteRetentionMs}.
 */
public final class CompactionCrashChild {
    static final String REACHED = "crash point reached: ";
    static final String FINISHED = "compaction finished without reaching the crash point";

    private CompactionCrashChild() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        LogConfig config = new LogConfig(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        SegmentSwap.Step step = SegmentSwap.Step.valueOf(args[3]);
        int ordinal = Integer.parseInt(args[4]);
        long nowMs = Long.parseLong(args[5]);
        long deleteRetentionMs = Long.parseLong(args[6]);
        AtomicInteger seen = new AtomicInteger();
        SegmentSwap.Hook hook = reached -> {
            if (reached == step && seen.getAndIncrement() == ordinal) {
                System.out.println(REACHED + reached + " of swap " + ordinal);
                System.out.flush();
                waitToBeKilled();
            }
        };
        try (Log log = Log.open(dir, config)) {
            new Cleaner(deleteRetentionMs, hook).clean(log, nowMs);
        }
        System.out.println(FINISHED);
    }

    private static void waitToBeKilled() {
        try {
            Thread.sleep(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.exit(3);
    }
}
