import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Starts the warm learner loop (kaenlog.testkit.loop.Watch) in this JVM:
 *
 *   java tools/Watch.java ch03 [--earlier=reference|yours] [--all]      (./workbook watch ch03 runs this)
 *
 * 1. the test classpath (JUnit, AssertJ, kafka-clients...) from one Maven call, cached in
 *    build/watch/ until a pom changes;
 * 2. the testkit compiled in-process into build/watch/testkit/ (the loop's own code lives there,
 *    beside the JUnit listener that prints the same table under Maven);
 * 3. the loop, loaded from those, keeps this JVM warm and answers every save.
 * Plain JDK only: it compiles and runs without the test libraries on its own classpath.
 */
public class Watch {
    static final Path ROOT = Path.of(System.getProperty("workbook.root", ".")).toAbsolutePath().normalize();
    static final Path BUILD = ROOT.resolve("build/watch");

    /** Ends the start-up with an exit status and a message: only main calls System.exit. */
    static final class Stop extends RuntimeException {
        final int status;

        Stop(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    public static void main(String[] args) throws Exception {
        try {
            start(args);
        } catch (Stop stop) {
            System.err.println(stop.getMessage());
            System.exit(stop.status);
        }
    }

    static void start(String[] args) throws Exception {
        String chapter = null;
        for (String a : args) {
            if (!a.startsWith("-")) {
                chapter = a;
            }
        }
        if (chapter == null) {
            throw new Stop(2, "usage: ./workbook watch chNN [--earlier=reference|yours] [--all]");
        }
        String module = module(chapter);
        List<Path> jars = jars(module);
        Path testkit = compileTestkit(jars);
        List<Path> classpath = new ArrayList<>(jars);
        classpath.add(testkit);
        classpath.add(ROOT.resolve("testkit/src/main/resources"));
        List<URL> urls = new ArrayList<>();
        for (Path p : classpath) {
            urls.add(p.toUri().toURL());
        }
        System.setProperty("watch.classpath", String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()));
        System.setProperty("workbook.root", ROOT.toString());
        URLClassLoader loader = new URLClassLoader("watch", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        try {
            loader.loadClass("kaenlog.testkit.loop.Watch").getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
    }

    static String module(String wanted) throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT)) {
            for (String c : dirs.map(p -> p.getFileName().toString()).filter(n -> n.matches("ch\\d\\d-.*")).sorted().toList()) {
                if (c.equals(wanted) || c.startsWith(wanted + "-")) {
                    return c;
                }
            }
        }
        throw new Stop(2, "watch: no chapter '" + wanted + "'");
    }

    /** The chapter's test classpath without the workbook's own modules (the loop compiles those itself). */
    static List<Path> jars(String module) throws Exception {
        String poms = hashOf(pomFiles());
        Path cached = BUILD.resolve(module + ".classpath");
        Path stamp = BUILD.resolve(module + ".classpath.poms");
        if (!(Files.exists(cached) && Files.exists(stamp) && Files.readString(stamp).equals(poms))) {
            Files.createDirectories(BUILD);
            System.out.println("watch: asking Maven for the test classpath of " + module + " (once; cached until a pom changes) ...");
            Path log = BUILD.resolve(module + ".classpath.log");
            // No compiling here: the loop compiles the chapters from the learner's sources itself.
            Process mvn = new ProcessBuilder("mvn", "-q", "-B", "-P" + module.substring(0, 4), "test-compile",
                    "dependency:build-classpath", "-Dmaven.main.skip=true", "-Dmaven.test.skip=true",
                    "-Dmdep.outputFile=" + cached, "-pl", module, "-am")
                    .directory(ROOT.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (mvn.waitFor() != 0 || !Files.exists(cached)) {
                throw new Stop(1, "watch: Maven could not resolve the classpath; its output is in " + ROOT.relativize(log));
            }
            Files.writeString(stamp, poms);
        }
        List<Path> jars = new ArrayList<>();
        for (String entry : Files.readString(cached, StandardCharsets.UTF_8).strip().split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (!entry.isBlank() && !p.toAbsolutePath().normalize().startsWith(ROOT)) {
                jars.add(p);
            }
        }
        return jars;
    }

    static List<Path> pomFiles() throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT)) {
            List<Path> poms = new ArrayList<>(dirs.map(d -> d.resolve("pom.xml")).filter(Files::exists).sorted().toList());
            poms.add(0, ROOT.resolve("pom.xml"));
            return poms;
        }
    }

    /** testkit/src/main/java compiled into build/watch/testkit/classes, again only when a source changed. */
    static Path compileTestkit(List<Path> jars) throws Exception {
        Path sources = ROOT.resolve("testkit/src/main/java");
        Path out = BUILD.resolve("testkit/classes");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        String hash = hashOf(files);
        Path stamp = BUILD.resolve("testkit/sources.sha256");
        if (Files.exists(stamp) && Files.readString(stamp).equals(hash)) {
            return out;
        }
        if (Files.exists(out)) {
            try (Stream<Path> walk = Files.walk(out)) {
                for (Path p : walk.sorted((a, b) -> b.compareTo(a)).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(out);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> command = new ArrayList<>(List.of("--release", "17", "-encoding", "UTF-8", "-proc:none", "-nowarn",
                "-d", out.toString(), "-cp", String.join(File.pathSeparator, jars.stream().map(Path::toString).toList())));
        files.forEach(f -> command.add(f.toString()));
        if (javac.run(null, null, null, command.toArray(String[]::new)) != 0) {
            throw new Stop(1, "watch: the testkit does not compile (see above)");
        }
        Files.writeString(stamp, hash);
        return out;
    }

    static String hashOf(List<Path> files) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (Path p : files) {
            sha.update(p.toString().getBytes(StandardCharsets.UTF_8));
            sha.update(Files.readAllBytes(p));
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
