package kaenlog.testkit.loop;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * How the earlier chapters a chapter's tests run on fare on their own tests: the first lines of the
 * task table. A CRC computed over one byte too few in chapter 1 shows in chapter 3 only as a golden
 * file or a Kafka oracle that disagrees, with no stack through chapter 1's code; so the table says
 * first that chapter 1, on the learner's code, fails its own tests.
 *
 * <p>{@code ./workbook watch} runs the earlier chapters' task tests itself (warm) and chooses them
 * as {@code ./workbook status} does: the learner's when all their tasks pass, else the reference's.
 * {@code mvn -PchNN test} compiles the earlier chapters but does not test them: it reads their last
 * test run's surefire reports when they are newer than their sources, else counts the TODOs left.
 */
public final class EarlierChapters {
    static final String MARKER = "META-INF/kaenlog/chapter.properties";
    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneId.systemDefault());

    /**
     * One earlier chapter: whether the tests ran on the learner's code of it ({@code yours}), and, for
     * the learner's code, how many of its tasks pass ({@code passed} of {@code total}, -1 when not
     * known), {@code todo} tasks that still throw their TODO, and where that comes from ({@code evidence}).
     */
    public record Earlier(String module, boolean yours, int passed, int total, int todo, String evidence) {
        int number() {
            return TaskTable.number(module);
        }

        boolean failsItsTests() {
            return passed >= 0 && passed < total;
        }
    }

    /** What to type: run chapter {@code current} on the reference's chapter N, and test chapter N itself. */
    public record Advice(IntFunction<String> useReference, IntFunction<String> ownTests) {
        static Advice maven(int current) {
            return new Advice(n -> String.format("add -Dreference.ch%02d (or -Dearlier=reference) to take the reference's chapter %d",
                    n, n), n -> String.format("mvn -Pch%02d test", n));
        }
    }

    private EarlierChapters() {
    }

    /**
     * The table's first lines: one per earlier chapter of the learner's that fails its own tests,
     * still has TODOs, or was not tested since it changed; and one per chapter that {@code watch}
     * took from the reference because the learner's fails (its {@code yours} is false, its counts set).
     */
    public static List<String> lines(int current, List<Earlier> earlier, Advice advice) {
        List<String> lines = new ArrayList<>();
        for (Earlier e : earlier) {
            int n = e.number();
            if (!e.yours()) {
                if (e.failsItsTests() || e.passed() < 0 && e.total() > 0) {
                    lines.add(String.format("your chapter %d %s, so chapter %d runs on the reference's chapter %d (%s finishes it)",
                            n, e.passed() < 0 ? "does not compile" : "fails its own tests: " + e.passed() + " of " + e.total()
                                    + " tasks pass", current, n, advice.ownTests().apply(n)));
                }
                continue;
            }
            String state;
            if (e.failsItsTests()) {
                state = String.format("fails its own tests: %d of %d tasks pass (%s)", e.passed(), e.total(), e.evidence());
            } else if (e.passed() < 0 && e.todo() > 0) {
                state = String.format("still throws the TODO of %d of its %d tasks", e.todo(), e.total());
            } else if (e.passed() < 0) {
                state = "has not been tested since it last changed (" + advice.ownTests().apply(n) + " tests it)";
                lines.add(String.format("your chapter %d %s; chapter %d runs on it", n, state, current));
                continue;
            } else {
                continue;
            }
            lines.add(String.format("your chapter %d %s; chapter %d runs on it, so a red task may be chapter %d's: %s",
                    n, state, current, n, advice.useReference().apply(n)));
        }
        return lines;
    }

    // ---------------------------------------------------------------- under Maven

    /**
     * The earlier chapters on {@code loader}'s classpath (their chapter markers), each with what is
     * known of it without running its tests: its last surefire reports when newer than every source
     * it was built from, else the TODOs still in its sources.
     */
    static List<Earlier> fromClasspath(Path root, String chapter, ClassLoader loader) {
        List<Earlier> earlier = new ArrayList<>();
        try {
            Map<String, String> kinds = new TreeMap<>();
            for (URL marker : Collections.list(loader.getResources(MARKER))) {
                Properties p = new Properties();
                try (InputStream in = marker.openStream()) {
                    p.load(in);
                }
                kinds.put(p.getProperty("module", ""), p.getProperty("kind", ""));
            }
            kinds.forEach((module, kind) -> {
                if (module.matches("ch\\d\\d-.*") && module.compareTo(chapter) < 0) {
                    earlier.add("learner".equals(kind) ? known(root, module) : new Earlier(module, false, -1, 0, 0, ""));
                }
            });
        } catch (IOException | RuntimeException e) {
            return earlier; // the table goes without its first lines rather than not at all
        }
        return earlier;
    }

    /** The learner's chapter: its last test run's reports if they are newer than its sources, else its TODOs. */
    static Earlier known(Path root, String module) {
        List<Tasks.Task> tasks = Tasks.of(root, module);
        Path reports = root.resolve(module).resolve("target/surefire-reports");
        Instant changed = newest(root, module);
        Map<String, Boolean> passes = new TreeMap<>();
        Instant ran = Instant.EPOCH;
        boolean fresh = Files.isDirectory(reports);
        if (fresh) {
            try (Stream<Path> files = Files.list(reports)) {
                for (Path xml : files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).toList()) {
                    Instant at = Files.getLastModifiedTime(xml).toInstant();
                    Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile()).getDocumentElement();
                    if (at.isBefore(changed) || !"learner".equals(property(suite, "chapter.kind"))) {
                        fresh = false; // an older run, or one on the reference (-Psolutions)
                        break;
                    }
                    ran = at.isAfter(ran) ? at : ran;
                    String name = suite.getAttribute("name");
                    int bad = Integer.parseInt(suite.getAttribute("failures")) + Integer.parseInt(suite.getAttribute("errors"))
                            + Integer.parseInt(suite.getAttribute("skipped"));
                    passes.put(name.substring(name.lastIndexOf('.') + 1), bad == 0 && Integer.parseInt(suite.getAttribute("tests")) > 0);
                }
            } catch (Exception e) {
                fresh = false;
            }
        }
        int todo = todos(root, module, tasks);
        if (fresh && !passes.isEmpty()) {
            int passed = (int) tasks.stream().filter(t -> passes.getOrDefault(t.testClass(), false)).count();
            return new Earlier(module, true, passed, tasks.size(), todo,
                    String.format("its last mvn -Pch%s test, %s", module.substring(2, 4), HOUR.format(ran)));
        }
        return new Earlier(module, true, -1, tasks.size(), todo, "");
    }

    private static String property(Element suite, String name) {
        NodeList props = suite.getElementsByTagName("property");
        for (int i = 0; i < props.getLength(); i++) {
            Element p = (Element) props.item(i);
            if (name.equals(p.getAttribute("name"))) {
                return p.getAttribute("value");
            }
        }
        return "";
    }

    /** The newest source of this chapter and of the learner's chapters before it: a report older than it is stale. */
    private static Instant newest(Path root, String module) {
        Instant newest = Instant.EPOCH;
        for (String m : TaskTableListener.chaptersUpTo(root, module)) {
            for (Path dir : List.of(root.resolve(m).resolve("src"), root.resolve(m).resolve("pom.xml"))) {
                if (!Files.exists(dir)) {
                    continue;
                }
                try (Stream<Path> walk = Files.walk(dir)) {
                    for (Path p : walk.filter(Files::isRegularFile).toList()) {
                        Instant at = Files.getLastModifiedTime(p).toInstant();
                        newest = at.isAfter(newest) ? at : newest;
                    }
                } catch (IOException e) {
                    return Instant.MAX;
                }
            }
        }
        return newest;
    }

    /** A skeleton's exercise body: throw new Todo("ch03 task 1: ..."). */
    private static final Pattern TODO = Pattern.compile("new Todo\\(\\s*\"ch(\\d\\d) task (\\d+):");

    /** How many of the chapter's tasks still have their TODO in the learner's sources. */
    static int todos(Path root, String module, List<Tasks.Task> tasks) {
        Path sources = root.resolve(module).resolve("src/main/java");
        TreeSet<Integer> left = new TreeSet<>();
        if (!Files.isDirectory(sources)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(sources)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = TODO.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (m.find()) {
                    if (m.group(1).equals(module.substring(2, 4))) {
                        left.add(Integer.parseInt(m.group(2)));
                    }
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return (int) tasks.stream().filter(t -> left.contains(t.number())).count();
    }
}
