package kaenlog.cluster;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One log line for each znode a broker refused to act on, naming it and saying why (given code):
 * a registration, an assignment or a state that does not parse, a state it cannot trust. The same
 * znode is read again at later changes (the registrations at every broker change, everything when
 * the broker joins again), and the controller and the broker's metadata follower may both refuse
 * it: it is logged when it is new (a znode refused for the first time, or for another reason), not
 * each time. The memory of what was logged is bounded.
 */
final class ZNodeRefusals {
    private static final int REMEMBERED = 1_000;

    private final PrintStream log;
    private final String who;
    private final Map<String, String> logged = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    ZNodeRefusals(PrintStream log, String who) {
        this.log = log;
        this.who = who;
    }

    /** {@code znode} was refused because {@code why}: a line, unless this very refusal was logged already. */
    synchronized void refused(String znode, String why) {
        if (why.equals(logged.put(znode, why))) {
            return;
        }
        log.println("cluster: " + who + " refuses " + Json.quote(znode) + ": " + why);
        log.flush();
    }

    /** {@code znode} reads well again: a later refusal of it is news. */
    synchronized void accepted(String znode) {
        logged.remove(znode);
    }
}
