import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Makes the learner's skeletons from the reference solution: the one source of truth.
 *
 *   ./workbook skeletons                   check every chapter; exit 1 on drift (CI)
 *   ./workbook skeletons --write           regenerate every chapter's skeleton (part of ./workbook regen)
 *   ./workbook skeletons --write ch07-idem regenerate one chapter (what ./workbook restart does)
 *
 * Each solution file becomes {@link Markers#skeleton}: every exercise body a
 * {@code throw new Todo("chNN task N: what (TestClass)")}, solution-only helpers dropped, files
 * without markers copied unchanged.
 */
public final class Skeletons {
    private Skeletons() {
    }

    static int main(Path root, String[] args) throws IOException {
        boolean write = args.length > 0 && args[0].equals("--write");
        List<String> chapters = new ArrayList<>();
        for (int i = write ? 1 : 0; i < args.length; i++) {
            chapters.add(args[i]);
        }
        if (chapters.isEmpty()) {
            chapters.addAll(Markers.chapters(root));
        }
        List<String> problems = new ArrayList<>();
        int files = 0;
        for (String chapter : chapters) {
            Path from = Markers.reference(root, chapter);
            Path to = root.resolve(chapter).resolve("src/main/java");
            if (!Files.isDirectory(from)) {
                problems.add("no reference sources at " + from);
                continue;
            }
            files += sync(from, to, write, problems);
        }
        if (!problems.isEmpty()) {
            problems.forEach(p -> System.out.println((write ? "" : "DRIFT ") + p));
            if (!write) {
                System.out.println("skeletons drifted from solutions/: a skeleton is generated, never edited by hand."
                        + " Edit the solution, then run: ./workbook regen");
            }
            return 1;
        }
        System.out.println((write ? "wrote " : "skeletons match the solutions: ") + files + " file(s) in "
                + String.join(", ", chapters));
        return 0;
    }

    static int sync(Path from, Path to, boolean write, List<String> problems) throws IOException {
        TreeSet<Path> expected = new TreeSet<>();
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path source : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                Path relative = from.relativize(source);
                expected.add(relative);
                Path target = to.resolve(relative);
                String skeleton;
                try {
                    skeleton = Markers.skeleton(Files.readString(source, StandardCharsets.UTF_8));
                } catch (IllegalStateException e) {
                    problems.add(source + ": " + e.getMessage());
                    continue;
                }
                if (write) {
                    Files.createDirectories(target.getParent());
                    Files.writeString(target, skeleton, StandardCharsets.UTF_8);
                } else if (!Files.exists(target)) {
                    problems.add(target + ": missing (generated from " + source + ")");
                } else {
                    String actual = Files.readString(target, StandardCharsets.UTF_8);
                    if (!actual.equals(skeleton)) {
                        problems.add(firstDifference(target, actual, skeleton));
                    }
                }
            }
        }
        if (Files.isDirectory(to)) {
            try (Stream<Path> walk = Files.walk(to)) {
                for (Path extra : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    if (!expected.contains(to.relativize(extra))) {
                        if (write) {
                            Files.delete(extra);
                        } else {
                            problems.add(extra + ": not generated from any solution file");
                        }
                    }
                }
            }
        }
        return expected.size();
    }

    static String firstDifference(Path target, String actual, String expected) {
        String[] a = actual.split("\n", -1);
        String[] e = expected.split("\n", -1);
        for (int i = 0; i < Math.max(a.length, e.length); i++) {
            String got = i < a.length ? a[i] : "<end of file>";
            String want = i < e.length ? e[i] : "<end of file>";
            if (!got.equals(want)) {
                return target + ":" + (i + 1) + ": expected \"" + want.strip() + "\" but found \"" + got.strip() + "\"";
            }
        }
        return target + ": differs";
    }
}
