package kaenlog.testkit.loop;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The system properties surefire gives a chapter's tests, read from the same poms: the parent's
 * surefire {@code systemPropertyVariables}, interpolated with the parent's and the chapter's
 * properties and their active profiles, in Maven's order (parent, then child; profiles after plain
 * properties; profiles in declaration order). So {@code ./workbook watch} passes golden.file,
 * demo.args, chapter.kind ... exactly as {@code mvn -PchNN test} does.
 */
final class PomProperties {
    private static final Pattern EXPRESSION = Pattern.compile("\\$\\{([^}]+)}");

    private PomProperties() {
    }

    static Map<String, String> surefireSystemProperties(Path root, String chapter, List<String> profiles) throws Exception {
        Document parent = parse(root.resolve("pom.xml"));
        Document child = parse(root.resolve(chapter).resolve("pom.xml"));
        Map<String, String> props = new LinkedHashMap<>();
        for (Document pom : List.of(parent, child)) {
            props.putAll(children(first(pom.getDocumentElement(), "properties")));
            Element profilesElement = first(pom.getDocumentElement(), "profiles");
            for (Element profile : elements(profilesElement, "profile")) {
                if (profiles.contains(text(first(profile, "id")))) {
                    props.putAll(children(first(profile, "properties")));
                }
            }
        }
        props.put("project.basedir", root.resolve(chapter).toString());
        props.put("basedir", root.resolve(chapter).toString());
        props.put("project.artifactId", chapter);
        Map<String, String> system = new LinkedHashMap<>();
        for (Element plugin : elementsOf(parent.getDocumentElement().getElementsByTagName("plugin"))) {
            if ("maven-surefire-plugin".equals(text(first(plugin, "artifactId")))) {
                Element config = first(plugin, "configuration");
                Element variables = config == null ? null : first(config, "systemPropertyVariables");
                children(variables).forEach((k, v) -> system.put(k, resolve(v, props, 0)));
            }
        }
        return system;
    }

    private static String resolve(String value, Map<String, String> props, int depth) {
        if (depth > 10) {
            return value;
        }
        Matcher m = EXPRESSION.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String replacement = System.getProperty(name, props.get(name));
            m.appendReplacement(out, Matcher.quoteReplacement(replacement == null ? m.group() : resolve(replacement, props, depth + 1)));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static Map<String, String> children(Element parent) {
        Map<String, String> map = new LinkedHashMap<>();
        if (parent != null) {
            for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e) {
                    map.put(e.getTagName(), e.getTextContent().strip());
                }
            }
        }
        return map;
    }

    private static Element first(Element parent, String tag) {
        return parent == null ? null : elements(parent, tag).stream().findFirst().orElse(null);
    }

    /** Direct children named {@code tag}. */
    private static List<Element> elements(Element parent, String tag) {
        if (parent == null) {
            return List.of();
        }
        List<Element> list = new java.util.ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                list.add(e);
            }
        }
        return list;
    }

    private static List<Element> elementsOf(NodeList nodes) {
        List<Element> list = new java.util.ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            list.add((Element) nodes.item(i));
        }
        return list;
    }

    private static String text(Element e) {
        return e == null ? null : e.getTextContent().strip();
    }
}
