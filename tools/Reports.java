import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The one reader of surefire's reports (target/surefire-reports/TEST-*.xml) the tools share. */
public final class Reports {
    private Reports() {
    }

    enum Status { PASSED, FAILED, SKIPPED }

    /** One test case as surefire reported it. {@code failure} is the message (or the trace's first line). */
    record Outcome(String className, String name, Status status, String failure) {
        String simpleClass() {
            return className.substring(className.lastIndexOf('.') + 1);
        }
    }

    static Path dir(Path root, String chapter) {
        return root.resolve(chapter).resolve("target/surefire-reports");
    }

    static List<Path> files(Path reports) throws IOException {
        if (!Files.isDirectory(reports)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(reports)) {
            return list.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
        }
    }

    /** Every test case of every report in the folder, in file order. */
    static List<Outcome> outcomes(Path reports) throws Exception {
        List<Outcome> outcomes = new ArrayList<>();
        for (Path report : files(reports)) {
            NodeList cases = parse(report).getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element c = (Element) cases.item(i);
                String failure = failure(c);
                Status status = failure != null ? Status.FAILED
                        : c.getElementsByTagName("skipped").getLength() > 0 ? Status.SKIPPED : Status.PASSED;
                outcomes.add(new Outcome(c.getAttribute("classname"), c.getAttribute("name"), status, failure));
            }
        }
        return outcomes;
    }

    /**
     * Seconds surefire took for each test class (the suite's time, its class-level setup included),
     * by class name: what the gate and the mistakes estimate their longest work from.
     */
    static Map<String, Double> secondsPerClass(Path reports) throws Exception {
        Map<String, Double> seconds = new LinkedHashMap<>();
        for (Path report : files(reports)) {
            Element suite = parse(report).getDocumentElement();
            try {
                seconds.merge(suite.getAttribute("name"), Double.parseDouble(suite.getAttribute("time")), Double::sum);
            } catch (NumberFormatException noTime) {
                // a report without a time: no estimate from it
            }
        }
        return seconds;
    }

    /** Seconds surefire took for each test, as "class \t method \t seconds" lines: the mistakes run the quickest first. */
    static List<String> secondsPerTest(Path reports) throws Exception {
        List<String> lines = new ArrayList<>();
        for (Path report : files(reports)) {
            NodeList cases = parse(report).getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element c = (Element) cases.item(i);
                try {
                    double seconds = Double.parseDouble(c.getAttribute("time").replace(",", ""));
                    lines.add(c.getAttribute("classname") + "\t" + c.getAttribute("name").replaceFirst("\\(.*", "")
                            + "\t" + seconds);
                } catch (NumberFormatException noTime) {
                    // a test without a time runs last
                }
            }
        }
        return lines;
    }

    /** The system properties surefire recorded in one report (the test JVM's, classpath included). */
    static Map<String, String> properties(Path report) throws Exception {
        Map<String, String> properties = new LinkedHashMap<>();
        NodeList nodes = parse(report).getElementsByTagName("property");
        for (int i = 0; i < nodes.getLength(); i++) {
            Element p = (Element) nodes.item(i);
            properties.put(p.getAttribute("name"), p.getAttribute("value"));
        }
        return properties;
    }

    static Document parse(Path report) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile());
    }

    static String failure(Element testcase) {
        for (String tag : List.of("failure", "error")) {
            NodeList nodes = testcase.getElementsByTagName(tag);
            if (nodes.getLength() > 0) {
                Element e = (Element) nodes.item(0);
                String message = e.getAttribute("message");
                String text = message.isBlank() ? e.getTextContent().strip() : message;
                return text.isEmpty() ? e.getAttribute("type") : text;
            }
        }
        return null;
    }
}
