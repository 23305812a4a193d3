package kaenlog.reliability;

import java.util.ArrayList;
import java.util.List;

/**
 * The figures of a scenario run once per variant, one row each, its details under each variant's
 * label: txn-kill9's endings of the transaction, streams-eos's restarts of the application. A row
 * holds when its variant's run found no problem.
 */
interface VariantFigures extends Figures {
    /** One variant's run: its row, its lines of detail, and what did not hold. */
    interface Variant {
        String label();

        Row row();

        List<String> lines();

        List<String> problems();

        default boolean ok() {
            return problems().isEmpty();
        }
    }

    List<? extends Variant> variants();

    @Override
    default Row row() {
        return rows().get(0);
    }

    @Override
    default List<Row> rows() {
        return variants().stream().map(Variant::row).toList();
    }

    @Override
    default List<String> details() {
        List<String> details = new ArrayList<>();
        for (Variant v : variants()) {
            details.add(v.label() + ":");
            v.lines().forEach(l -> details.add("  " + l));
            v.problems().forEach(p -> details.add("  FAILED: " + p));
        }
        return details;
    }

    @Override
    default boolean ok() {
        return variants().stream().allMatch(Variant::ok);
    }

    @Override
    default boolean ok(Row row) {
        return variants().stream().filter(v -> v.row().scenario().equals(row.scenario())).allMatch(Variant::ok);
    }
}
