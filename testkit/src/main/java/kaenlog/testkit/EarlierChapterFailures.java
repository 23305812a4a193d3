package kaenlog.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.TestAbortedException;

/**
 * Says in one line when a test of chapter N fails inside the learner's code of an earlier chapter
 * (a chapter 3 test that dies in your chapter 1 RecordBatch), instead of a trimmed stack that
 * points only at the test.
 *
 * <p>Registered for every test by {@code META-INF/services} (autodetection is on in testkit's
 * {@code junit-platform.properties}). Every chapter's classes carry
 * {@code META-INF/kaenlog/chapter.properties} ({@code module}, {@code kind}: learner or reference,
 * written by the parent pom), so the origin of a frame is read from where its class was loaded,
 * never guessed from a package name. Before the first test it also says, in one line, whose code
 * each chapter on the classpath is (yours or the reference), unless all of it is the reference.
 */
public final class EarlierChapterFailures
        implements BeforeAllCallback, FailureExplainer {
    static final String MARKER = "META-INF/kaenlog/chapter.properties";
    private static final Pattern CHAPTER = Pattern.compile("ch(\\d\\d)-.+");

    /** Where a frame's class came from: a chapter module and the kind of sources it was compiled from. */
    record Origin(String module, String kind) {
        static final Origin OTHER = new Origin("", "");

        boolean isChapter() {
            return CHAPTER.matcher(module).matches();
        }

        int chapter() {
            Matcher m = CHAPTER.matcher(module);
            return m.matches() ? Integer.parseInt(m.group(1)) : -1;
        }
    }

    private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();
    private final Map<String, Origin> origins = new ConcurrentHashMap<>();

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        Class<?> testClass = context.getRequiredTestClass();
        String current = moduleOfTestClass(testClass);
        if (new Origin(current, "").isChapter() && ANNOUNCED.compareAndSet(false, true)) {
            List<String> used = new ArrayList<>();
            for (URL marker : Collections.list(testClass.getClassLoader().getResources(MARKER))) {
                Origin origin = read(marker);
                if (origin.isChapter()) {
                    used.add(origin.module() + " (" + ("learner".equals(origin.kind()) ? "your code" : "the reference") + ")");
                }
            }
            Collections.sort(used);
            if (used.stream().noneMatch(u -> u.endsWith("(your code)"))) {
                return; // all on the reference (-Psolutions): nothing to tell
            }
            System.out.println("[kaen-log] " + current + "'s tests run on: " + String.join(", ", used));
        }
    }

    @Override
    public Throwable explain(ExtensionContext context, Throwable failure) {
        if (failure instanceof TestAbortedException || failure instanceof EarlierChapterFailure) {
            return failure;
        }
        Class<?> testClass = context.getRequiredTestClass();
        String current = moduleOfTestClass(testClass);
        ClassLoader loader = testClass.getClassLoader();
        return blame(failure, current, name -> originOf(name, loader))
                .<Throwable>map(line -> new EarlierChapterFailure(line, failure))
                .orElse(failure);
    }

    /**
     * The one line for a failure of a test of {@code currentModule}, or empty when the failure does
     * not start in an earlier chapter's learner code. The innermost cause decides (that is where it
     * was thrown); within it, the topmost frame that belongs to a chapter or to the test itself.
     */
    static Optional<String> blame(Throwable failure, String currentModule, Function<String, Origin> originOf) {
        int current = new Origin(currentModule, "").chapter();
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(0, t);
        }
        for (Throwable t : chain) {
            for (StackTraceElement frame : t.getStackTrace()) {
                Origin origin = originOf.apply(frame.getClassName());
                if (origin.module().isEmpty()) {
                    continue; // the JDK, JUnit, AssertJ, kafka-clients: look further down
                }
                boolean earlierLearner = origin.isChapter() && "learner".equals(origin.kind())
                        && current > 0 && origin.chapter() < current;
                return earlierLearner ? Optional.of(line(origin, frame, current)) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    static String line(Origin origin, StackTraceElement frame, int current) {
        int n = origin.chapter();
        return "this fails in your chapter " + n + " code, " + frame.getClassName() + "." + frame.getMethodName()
                + " (" + origin.module() + "): mvn -Pch" + String.format("%02d", n) + " test shows chapter " + n
                + "'s own tests; add -Dearlier=reference to run chapter " + current + " on the reference chapters before it";
    }

    /** The module of a class: its classes folder's marker; the test classes are the test's own module. */
    private Origin originOf(String className, ClassLoader loader) {
        return origins.computeIfAbsent(className, name -> {
            try {
                return originOf(Class.forName(name, false, loader));
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                return Origin.OTHER;
            }
        });
    }

    /** The module of a loaded class, as {@link #originOf(String, ClassLoader)} reads it ({@link EarlierRule} too). */
    static Origin originOf(Class<?> c) {
        Path location = location(c);
        if (location == null) {
            return Origin.OTHER;
        }
        try {
            Path marker = location.resolve(MARKER);
            if (Files.isRegularFile(marker)) {
                return read(marker.toUri().toURL());
            }
        } catch (IOException | RuntimeException e) {
            return Origin.OTHER;
        }
        String testModule = moduleOfTestClass(c);
        return testModule.isEmpty() ? Origin.OTHER : new Origin(testModule, "test");
    }

    private static Origin read(URL marker) throws IOException {
        Properties p = new Properties();
        try (InputStream in = marker.openStream()) {
            p.load(in);
        }
        return new Origin(p.getProperty("module", ""), p.getProperty("kind", ""));
    }

    /** ".../ch03-produce/target/test-classes" gives "ch03-produce"; anything else gives "". */
    static String moduleOfTestClass(Class<?> c) {
        Path location = location(c);
        if (location == null || !location.endsWith(Path.of("target", "test-classes"))) {
            return "";
        }
        return location.getParent().getParent().getFileName().toString();
    }

    private static Path location(Class<?> c) {
        try {
            CodeSource source = c.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null || !"file".equals(source.getLocation().getProtocol())) {
                return null;
            }
            Path path = Path.of(source.getLocation().toURI());
            return Files.isDirectory(path) ? path : null;
        } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
            return null;
        }
    }

    /** The original failure, with the one line in front; its stack is the original's. */
    public static final class EarlierChapterFailure extends AssertionError {
        private static final long serialVersionUID = 1L;

        EarlierChapterFailure(String line, Throwable original) {
            super(line + "\n" + original, original);
            setStackTrace(original.getStackTrace());
        }
    }
}
