package kaenlog.reliability;

import java.util.ArrayList;
import java.util.List;
import kaenlog.reliability.BoundedBroker.Probe;

/**
 * The figures of a scenario made of probes, a report row each (the bounded broker's limits, the
 * response path's attacks): a row holds when its probe held, the scenario when all of them did.
 */
interface ProbeFigures extends Figures {
    List<Probe> probes();

    /** The probe whose name starts with {@code prefix} ("7a"). */
    default Probe probe(String prefix) {
        return probes().stream().filter(p -> p.name().startsWith(prefix)).findFirst().orElseThrow();
    }

    @Override
    default Row row() {
        return rows().get(0);
    }

    @Override
    default List<Row> rows() {
        return probes().stream().map(p -> new Row(p.name(), p.runs(), p.records(), p.faults(), p.lost(), -1, -1))
                .toList();
    }

    @Override
    default List<String> details() {
        List<String> lines = new ArrayList<>();
        for (Probe p : probes()) {
            lines.add(p.name() + (p.ok() ? "" : "  <- FAILED") + ":");
            p.details().forEach(d -> lines.add("  " + d));
        }
        return lines;
    }

    @Override
    default boolean ok() {
        return probes().stream().allMatch(Probe::ok);
    }

    @Override
    default boolean ok(Row row) {
        return probes().stream().filter(p -> p.name().equals(row.scenario())).allMatch(Probe::ok);
    }
}
