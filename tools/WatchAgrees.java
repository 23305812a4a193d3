import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;

/**
 * ./workbook watch and Maven agree: for one chapter, on the learner's tree (a skeleton: red) and on
 * the reference (green), the test classes, and per class the number of tests, failures and skips,
 * are the same under `mvn -PchNN test` (surefire's reports) and under the watch loop (--once --list).
 *
 *   java tools/WatchAgrees.java [ch01] [--reference-reports]
 *       exit 0 when they agree on both trees; ~1 minute for ch01. --reference-reports compares the
 *       reference with the reports mvn -Psolutions verify left instead of running Maven for it.
 */
public class WatchAgrees {
    static final Path ROOT = Path.of(".").toAbsolutePath().normalize();

    public static void main(String[] args) throws Exception {
        String chapter = args.length > 0 && !args[0].startsWith("-") ? args[0] : "ch01";
        boolean reuse = List.of(args).contains("--reference-reports");
        String module;
        try (Stream<Path> dirs = Files.list(ROOT)) {
            module = dirs.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(chapter + "-")).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no chapter " + chapter));
        }
        // The reference first: with --reference-reports it reads what mvn -Psolutions verify left
        // (CI ran it just before); the learner's tree then rebuilds the module as a skeleton.
        boolean agree = compare(module, chapter + ",solutions", "reference", "--solutions", reuse)
                & compare(module, chapter, "learner's tree", "", false);
        System.out.println(agree ? "watch and Maven agree on " + module : "watch and Maven DISAGREE on " + module);
        System.exit(agree ? 0 : 1);
    }

    static boolean compare(String module, String profiles, String label, String watchFlag, boolean reuse)
            throws Exception {
        Path reports = ROOT.resolve(module).resolve("target/surefire-reports");
        if (reuse && !referenceReports(reports)) {
            System.out.println(module + ": --reference-reports, but " + ROOT.relativize(reports)
                    + " holds no reports of a run on the reference: run mvn -Psolutions verify first");
            return false;
        }
        if (!reuse) {
            deleteTree(reports);
            run(List.of("mvn", "-q", "-B", "-P" + profiles, "test", "-Dmaven.test.failure.ignore=true"));
        }
        Map<String, String> maven = mavenCounts(reports);
        Map<String, String> watch = watchCounts(module, watchFlag);
        boolean same = maven.equals(watch) && !maven.isEmpty();
        System.out.printf("%s (%s): %d test classes under Maven, %d under watch: %s%n", module, label, maven.size(), watch.size(),
                same ? "same counts" : "DIFFERENT");
        if (!same) {
            for (String cls : new java.util.TreeSet<>(concat(maven.keySet(), watch.keySet()))) {
                System.out.printf("  %-32s maven %-36s watch %s%n", cls, maven.get(cls), watch.get(cls));
            }
        }
        return same;
    }

    /** Per test class, "tests=N failures=N skipped=N" as surefire's reports count them (errors are failures). */
    static Map<String, String> mavenCounts(Path reports) throws Exception {
        Map<String, String> maven = new TreeMap<>();
        try (Stream<Path> files = Files.list(reports)) {
            for (Path xml : files.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).toList()) {
                Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile()).getDocumentElement();
                String name = suite.getAttribute("name");
                int failures = Integer.parseInt(suite.getAttribute("failures")) + Integer.parseInt(suite.getAttribute("errors"));
                maven.put(name.substring(name.lastIndexOf('.') + 1), "tests=" + suite.getAttribute("tests") + " failures=" + failures
                        + " skipped=" + suite.getAttribute("skipped"));
            }
        }
        return maven;
    }

    /** The same counts from one run of the watch loop (--once --list). */
    static Map<String, String> watchCounts(String module, String watchFlag) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dworkbook.root=" + ROOT, "-Dfile.encoding=UTF-8", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", // as ./workbook watch
                ROOT.resolve("tools/Watch.java").toString(),
                module, "--once", "--list", "--earlier=yours")); // mvn -PchNN test's earlier chapters: the learner's
        if (!watchFlag.isEmpty()) {
            command.add(watchFlag);
        }
        Map<String, String> watch = new TreeMap<>();
        for (String line : run(command).lines().toList()) {
            if (line.matches("\\w+ tests=\\d+ failures=\\d+ skipped=\\d+")) {
                watch.put(line.substring(0, line.indexOf(' ')), line.substring(line.indexOf(' ') + 1));
            }
        }
        return watch;
    }

    static void deleteTree(Path dir) throws Exception {
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted((a, b) -> b.compareTo(a)).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** Whether the reports are surefire's of a run on the reference (the pom's chapter.kind property). */
    static boolean referenceReports(Path reports) throws Exception {
        if (!Files.isDirectory(reports)) {
            return false;
        }
        try (Stream<Path> files = Files.list(reports)) {
            List<Path> xml = files.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).toList();
            for (Path p : xml) {
                if (!Files.readString(p, StandardCharsets.UTF_8).contains("name=\"chapter.kind\" value=\"reference\"")) {
                    return false;
                }
            }
            return !xml.isEmpty();
        }
    }

    static List<String> concat(java.util.Set<String> a, java.util.Set<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    static String run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return output;
    }
}
