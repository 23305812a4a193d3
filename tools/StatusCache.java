import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Where a learner stands in each chapter, measured once and kept: in this JVM, and in
 * build/workbook/chNN.properties with a fingerprint of everything the result depends on (the
 * learner's chapter and the earlier chapters of theirs it ran on, the reference, the testkit, the
 * poms). A chapter is measured again ({@link LearnerTests}) only when its fingerprint changed.
 *
 * The earlier chapters a run stands on are the learner's when every task of theirs passes on the
 * learner's code, else the reference's (-Dreference.chNN): so a chapter's progress asks for the
 * progress of each chapter before it.
 */
final class StatusCache {
    static final Path DIR = Workbook.ROOT.resolve("build/workbook");
    private static final Map<String, Progress.ChapterProgress> KNOWN = new LinkedHashMap<>();

    private StatusCache() {
    }

    /** The chapter's progress, from the cache when nothing it depends on changed since it was measured. */
    static Progress.ChapterProgress progressOf(String chapter) throws Exception {
        Progress.ChapterProgress known = KNOWN.get(chapter);
        if (known == null) {
            known = cachedOrMeasured(chapter, referenceEarlier(chapter));
            KNOWN.put(chapter, known);
        }
        return known;
    }

    /**
     * The earlier chapters to take from the reference for a run of this chapter: those whose tasks
     * are not all done on the learner's code. The others are the learner's own (mvn -PchNN test's
     * default).
     */
    static List<String> referenceEarlier(String chapter) throws Exception {
        List<String> reference = new ArrayList<>();
        for (String earlier : earlier(chapter)) {
            Progress.ChapterProgress p = progressOf(earlier);
            if (!p.compiled() || p.next() != null) {
                reference.add(earlier);
            }
        }
        return reference;
    }

    /** "ch01 yours, ch03 reference" for a run of this chapter with those earlier chapters on the reference. */
    static String describeEarlier(String chapter, List<String> reference) throws IOException {
        List<String> parts = new ArrayList<>();
        for (String earlier : earlier(chapter)) {
            parts.add(earlier.substring(0, 4) + (reference.contains(earlier) ? " reference" : " yours"));
        }
        return parts.isEmpty() ? "-" : String.join(", ", parts);
    }

    /** The chapters before this one, in order. */
    private static List<String> earlier(String chapter) throws IOException {
        return Workbook.chapters().stream().filter(c -> c.compareTo(chapter) < 0).toList();
    }

    private static Progress.ChapterProgress cachedOrMeasured(String chapter, List<String> reference) throws Exception {
        String fingerprint = fingerprint(chapter, reference);
        Path cached = DIR.resolve(chapter + ".properties");
        Properties stored = read(cached);
        // A cache written before the per-task results were kept has no "tasks": measure again.
        if (fingerprint.equals(stored.getProperty("fingerprint")) && stored.getProperty("tasks") != null) {
            return Progress.fromProperties(chapter, stored, Progress.editedTests(Workbook.ROOT, chapter));
        }
        Progress.ChapterProgress progress = LearnerTests.measure(chapter, reference);
        Properties p = Progress.toProperties(progress);
        p.setProperty("fingerprint", fingerprint);
        write(cached, p);
        return progress;
    }

    private static Properties read(Path file) throws IOException {
        Properties p = new Properties();
        if (Files.exists(file)) {
            try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(in);
            }
        }
        return p;
    }

    private static void write(Path file, Properties p) throws IOException {
        Files.createDirectories(DIR);
        try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, "./workbook status cache");
        }
    }

    /**
     * What the chapter's result depends on: the learner's chapter and the earlier chapters of theirs
     * it runs on, the reference, the poms.
     */
    static String fingerprint(String chapter, List<String> referenceEarlier) throws IOException, NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(describeEarlier(chapter, referenceEarlier).getBytes(StandardCharsets.UTF_8));
        for (Path p : inputs(chapter, referenceEarlier)) {
            sha.update(Workbook.ROOT.relativize(p).toString().getBytes(StandardCharsets.UTF_8));
            sha.update(Files.readAllBytes(p));
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** Every file the fingerprint reads, in a fixed order. */
    private static List<Path> inputs(String chapter, List<String> referenceEarlier) throws IOException {
        Path root = Workbook.ROOT;
        List<Path> dirs = new ArrayList<>(List.of(root.resolve(chapter).resolve("src"), root.resolve("solutions"),
                root.resolve("testkit/src"), root.resolve("expected")));
        for (String earlier : earlier(chapter)) {
            if (!referenceEarlier.contains(earlier)) {
                dirs.add(root.resolve(earlier).resolve("src/main"));
                dirs.add(root.resolve(earlier).resolve("pom.xml"));
            }
        }
        List<Path> inputs = new ArrayList<>();
        for (Path dir : dirs) {
            if (Files.isRegularFile(dir)) {
                inputs.add(dir);
            }
            if (Files.isDirectory(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    walk.filter(Files::isRegularFile).sorted().forEach(inputs::add);
                }
            }
        }
        inputs.add(root.resolve("pom.xml"));
        inputs.add(root.resolve(chapter).resolve("pom.xml"));
        return inputs;
    }
}
