package kaenlog.cli;

import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The one place kaen-log asks {@code ServiceLoader} what a chapter registered
 * ({@code META-INF/services/...}): subcommands, request handlers, broker and serve extensions.
 * ServiceLoader's own order is the classpath's, which changes with the build; this one is by class
 * name, so what a broker logs and chooses at start never depends on how it was launched.
 */
public final class Services {
    private Services() {
    }

    /** Every provider of {@code type} on the classpath, by class name. */
    public static <T> List<T> load(Class<T> type) {
        return ServiceLoader.load(type).stream().map(ServiceLoader.Provider::get)
                .sorted(Comparator.comparing(provider -> provider.getClass().getName())).toList();
    }
}
