package kaenlog.reliability;

import java.util.List;

/**
 * What a scenario measured that needs a table of its own (a line per fault or per cluster scenario,
 * with columns of its own): the report prints the table after its summary table, and the details
 * under the title. The report's other kinds are {@link Figures} (rows of the summary table) and
 * {@link Finding} (lines under "findings").
 */
public interface TableFigures {
    /** The table: its header, a rule, a line per row, and a line saying what its columns mean. */
    List<String> table();

    /** The heading of the details in the report. */
    String title();

    /** A few lines per row saying what happened. */
    List<String> details();

    /** True when every row held. */
    boolean ok();
}
