package kaenlog.reliability;

import java.util.List;

/**
 * A line under the report's "findings" (what this suite once caught the reference failing, each
 * measured again on every run), and the lines that detail it, printed indented under it. A finding
 * never changes the report's exit status.
 */
record Finding(String line, List<String> details) {
    Finding {
        details = List.copyOf(details);
    }

    /** A finding said in one line. */
    static Finding of(String line) {
        return new Finding(line, List.of());
    }
}
