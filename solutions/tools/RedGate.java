import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The red-on-skeleton gate: on the generated skeleton, every exercise test of a chapter must
 * fail, and fail because of a TODO of that chapter (not a compile error, not another exception).
 * Tests tagged passes-on-skeleton (@PassesOnSkeleton) are excluded and counted.
 *
 *   java solutions/tools/RedGate.java            every chapter
 *   java solutions/tools/RedGate.java ch07-idem  one chapter
 *
 * For each chapter it runs `mvn -B -PchNN test -Dearlier=reference` (the earlier chapters on the
 * reference, so that only this chapter's TODOs can fail; failures ignored, so the reports are written),
 * reads target/surefire-reports, and prints the counts. Exit 1 when any test is green or red for
 * another reason. It leaves the chapter compiled from the skeleton: rebuild before running demos.
 */
public class RedGate {
    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("workbook.root", "."));
        List<String> chapters = new ArrayList<>(List.of(args));
        if (chapters.isEmpty()) {
            try (Stream<Path> dirs = Files.list(root.resolve("solutions"))) {
                dirs.map(p -> p.getFileName().toString()).filter(n -> n.matches("ch\\d\\d-.*")).sorted()
                        .forEach(chapters::add);
            }
        }
        List<String> problems = new ArrayList<>();
        for (String chapter : chapters) {
            problems.addAll(check(root, chapter));
        }
        if (!problems.isEmpty()) {
            System.out.println("RED GATE FAILED:");
            problems.forEach(p -> System.out.println("  " + p));
            System.exit(1);
        }
        System.out.println("red gate: every exercise test of " + String.join(", ", chapters)
                + " fails on its skeleton because of a TODO");
    }

    static List<String> check(Path root, String chapter) throws Exception {
        String id = chapter.substring(0, 4);
        Path module = root.resolve(chapter);
        Path reports = module.resolve("target/surefire-reports");
        deleteTree(reports);
        Path log = Files.createDirectories(module.resolve("target")).resolve("red-gate.log");
        Process mvn = new ProcessBuilder("mvn", "-B", "-P" + id, "test", "-Dearlier=reference", "-Dmaven.test.failure.ignore=true",
                "-DexcludedGroups=passes-on-skeleton", "-Dsurefire.printSummary=false")
                .directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        int status = mvn.waitFor();
        List<String> problems = new ArrayList<>();
        if (status != 0 || !Files.isDirectory(reports)) {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            problems.add(chapter + ": `mvn -P" + id + " test` did not run the tests (exit " + status
                    + "; a compile error?). Last lines of " + log + ":");
            lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> problems.add("    " + l));
            return problems;
        }
        int red = 0;
        int total = 0;
        List<Path> files;
        try (Stream<Path> list = Files.list(reports)) {
            files = list.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
        }
        for (Path report : files) {
            Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile());
            NodeList cases = doc.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testcase = (Element) cases.item(i);
                String name = testcase.getAttribute("classname") + "." + testcase.getAttribute("name");
                total++;
                String why = failureText(testcase);
                if (testcase.getElementsByTagName("skipped").getLength() > 0) {
                    problems.add(chapter + ": " + name + " is skipped (@Disabled?): a test that never runs teaches nothing");
                } else if (why == null) {
                    problems.add(chapter + ": " + name + " passes on the skeleton (a test that cannot fail?"
                            + " if it must, declare it @PassesOnSkeleton)");
                } else if (!why.contains("TODO " + id)) {
                    problems.add(chapter + ": " + name + " fails on the skeleton, but not because of a TODO " + id
                            + ": " + firstLine(why));
                } else {
                    red++;
                }
            }
        }
        if (total == 0) {
            problems.add(chapter + ": no exercise tests ran on the skeleton");
        }
        System.out.printf("%s: %d exercise tests, %d red on a TODO %s, %d declared @PassesOnSkeleton%n",
                chapter, total, red, id, declaredPassing(module.resolve("src/test/java")));
        return problems;
    }

    static String failureText(Element testcase) {
        StringBuilder text = new StringBuilder();
        for (String tag : List.of("failure", "error")) {
            NodeList nodes = testcase.getElementsByTagName(tag);
            for (int i = 0; i < nodes.getLength(); i++) {
                Element e = (Element) nodes.item(i);
                text.append(e.getAttribute("message")).append('\n').append(e.getTextContent()).append('\n');
            }
        }
        return text.length() == 0 ? null : text.toString();
    }

    static long declaredPassing(Path tests) throws IOException {
        if (!Files.isDirectory(tests)) {
            return 0;
        }
        Pattern annotation = Pattern.compile("@PassesOnSkeleton\\(");
        long count = 0;
        try (Stream<Path> walk = Files.walk(tests)) {
            for (Path p : walk.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = annotation.matcher(Files.readString(p));
                while (m.find()) {
                    count++;
                }
            }
        }
        return count;
    }

    static String firstLine(String text) {
        String t = text.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted((a, b) -> b.compareTo(a)).toList()) {
                Files.delete(p);
            }
        }
    }
}
