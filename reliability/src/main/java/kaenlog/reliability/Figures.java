package kaenlog.reliability;

import java.util.List;

/**
 * What a scenario measured: one row of the report's summary table (or several), a few lines of
 * detail, and whether it held. The report's other kinds are {@link TableFigures} (a table of its
 * own) and {@link Finding} (lines under "findings").
 */
public interface Figures {
    /** The report's row: runs, records, faults injected, records lost, duplicates, crashes survived. */
    Row row();

    /** The report's rows, when a scenario has more than one. */
    default List<Row> rows() {
        return List.of(row());
    }

    /** The heading of the scenario's details in the report: its first row's name unless it says otherwise. */
    default String title() {
        return rows().get(0).scenario();
    }

    /** A few lines saying what the numbers mean. */
    List<String> details();

    /** True when every property the scenario checks held. */
    boolean ok();

    /** True when what one row stands for held: the whole scenario's verdict unless it says otherwise. */
    default boolean ok(Row row) {
        return ok();
    }

    /** The last column of the row: "ok" or "FAILED" by {@link #ok(Row)}, unless it says otherwise. */
    default String verdict(Row row) {
        return ok(row) ? "ok" : "FAILED";
    }

    /**
     * One line of the report. A count that does not apply to a scenario is -1 (printed "-").
     *
     * @param scenario        what was done, e.g. "SIGKILL while producing"
     * @param runs            independent runs (crash cycles, connections, inputs)
     * @param records         records whose fate was checked
     * @param faultsInjected  kills, dropped frames, delays, hostile inputs, mutations
     * @param recordsLost     acknowledged records missing afterwards
     * @param duplicates      records in the log more than once
     * @param crashesSurvived crashes after which everything checked held
     */
    record Row(String scenario, long runs, long records, long faultsInjected, long recordsLost, long duplicates,
               long crashesSurvived) {
    }
}
