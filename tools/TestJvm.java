import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * What the gate and the mistakes share to run a chapter's tests outside Maven, fast: the compiler
 * in this JVM (a state of the chapter, a mistake's one class, the runners of tools/gate/), and the
 * command line of a fresh test JVM as surefire started the reference's (its pom's system
 * properties, from its reports), but on a learner's code.
 */
final class TestJvm {
    /** The pom's systemPropertyVariables that the tests read; chapter.kind is a learner's here. */
    static final List<String> PROPERTIES = List.of("demo.args", "golden.file", "golden.write", "workbook.root");

    private TestJvm() {
    }

    /** Compiles these sources into {@code out}: javac's errors, or null when they compiled. */
    static String compile(List<File> sources, List<String> classpath, Path out) throws IOException {
        Files.createDirectories(out);
        StringWriter errors = new StringWriter();
        var files = compiler().getStandardFileManager(null, null, StandardCharsets.UTF_8);
        boolean ok = compiler().getTask(errors, files, null, List.of("--release", "17", "-encoding", "UTF-8", "-nowarn",
                "-proc:none", "-implicit:none", "-cp", String.join(File.pathSeparator, classpath), "-d", out.toString()),
                null, files.getJavaFileObjectsFromFiles(sources)).call();
        return ok ? null : errors.toString();
    }

    /** The first {@code lines} lines of javac's errors, indented under the problem that quotes them. */
    static String firstLines(String errors, int lines) {
        return errors.lines().limit(lines).reduce("", (a, b) -> a + "      " + b + "\n");
    }

    /** Compiles one runner source of tools/gate/ into {@code out}, again only when the source is newer. */
    static synchronized Path compileOnce(Path source, Path out, List<String> classpath) throws IOException {
        Path compiled = out.resolve(source.getFileName().toString().replace(".java", ".class"));
        if (Files.exists(compiled) && Files.getLastModifiedTime(compiled).compareTo(Files.getLastModifiedTime(source)) > 0) {
            return out;
        }
        String errors = compile(List.of(source.toFile()), classpath, out);
        if (errors != null) {
            throw new IllegalStateException("cannot compile " + source + ":\n" + errors);
        }
        return out;
    }

    /**
     * {@code java ... main args}: the fast start of a short-lived JVM (C1, the serial collector),
     * the reference run's test properties, and chapter.kind=learner (the tests then say "your code").
     */
    static List<String> command(Map<String, String> properties, List<String> classpath, String main, List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dfile.encoding=UTF-8", "-Dchapter.kind=learner"));
        for (String key : PROPERTIES) {
            if (properties.containsKey(key)) {
                command.add("-D" + key + "=" + properties.get(key));
            }
        }
        command.addAll(List.of("-cp", String.join(File.pathSeparator, classpath), main));
        command.addAll(args);
        return command;
    }

    private static JavaCompiler compiler() {
        return ToolProvider.getSystemJavaCompiler();
    }
}
