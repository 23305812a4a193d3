import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The maintainer's one command: regenerate everything that is derived from solutions/.
 *
 *   ./workbook regen
 *
 *   1. the chapter list: the poms' modules, profiles and dependencies, the README's "choose a
 *      chapter" line, from the chapter folders (Chapters); task numbers: guides' task tables and
 *      hints, test classes' @Order and "Task N:", prose references (TaskTables, Prose);
 *   2. skeletons: every chapter's src/main/java (Skeletons --write);
 *   3. golden files: expected/ from the reference demos (the *DemoGoldenTest tests with
 *      -Dgolden.write=true); when a demo's self-check fails or it is not deterministic, nothing in
 *      expected/ changes and regen exits 1;
 *   4. guide excerpts: every guide block quoting a file that changed in 1-3 is cut again from the
 *      same place of the new file (the place is found in the old file, and followed through a
 *      line diff).
 * Then ./workbook check and the drift check must hold: .ci/run is green on the result.
 */
public final class Regen {
    /** The Maven command that rewrites the golden files from the reference (the golden tests only). */
    static final List<String> GOLDEN_WRITE = Gate.concat(Gate.MAVEN_REFERENCE, "test", "-Dgolden.write=true",
            "-Dtest=*DemoGoldenTest", "-Dsurefire.failIfNoSpecifiedTests=false", "-Dmaven.test.failure.ignore=true",
            "-Dsurefire.printSummary=false");
    static final Pattern EXCERPT = Pattern.compile("^<!-- excerpt: (\\S+) -->$");

    private Regen() {
    }

    static int main(Path root, String[] args) throws Exception {
        Map<Path, List<String>> before = snapshot(root);
        boolean regenerated = numbers(root) && skeletons(root) && goldens(root) && excerpts(root, before);
        if (!regenerated) {
            return 1;
        }
        System.out.println("== checks");
        return TaskTables.main(root, new String[0]) == 0 && Skeletons.main(root, new String[0]) == 0 ? 0 : 1;
    }

    /** Step 1: the chapter list from the chapter folders, and every task number from the markers. */
    static boolean numbers(Path root) throws IOException {
        System.out.println("== 1. the chapter list (the chapter folders) and task numbers from the markers");
        List<String> unfit = new ArrayList<>();
        for (Path changed : Chapters.write(root, unfit)) {
            System.out.println("listed the chapters in " + root.relativize(changed));
        }
        if (!unfit.isEmpty()) {
            unfit.forEach(p -> System.out.println("CHAPTERS " + p));
            return false;
        }
        for (String chapter : Markers.chapters(root)) {
            for (Path changed : TaskTables.write(root, chapter)) {
                System.out.println("renumbered " + root.relativize(changed));
            }
        }
        return true;
    }

    /** Step 2: every chapter's skeleton. */
    static boolean skeletons(Path root) throws IOException {
        System.out.println("== 2. skeletons");
        return Skeletons.main(root, new String[] {"--write"}) == 0;
    }

    /**
     * Step 3: expected/ written by the reference demos' golden tests; put back as it was when a demo
     * failed its own checks, the build failed, or no golden test ran.
     */
    static boolean goldens(Path root) throws Exception {
        Map<Path, String> goldens = new LinkedHashMap<>();
        for (Path golden : files(root.resolve("expected"))) {
            goldens.put(golden, Files.readString(golden, StandardCharsets.UTF_8));
        }
        System.out.println("== 3. golden files: " + String.join(" ", GOLDEN_WRITE));
        for (String chapter : Markers.chapters(root)) {
            Workbook.deleteTree(Reports.dir(root, chapter));
        }
        Path log = Files.createDirectories(root.resolve("build")).resolve("regen-golden.log");
        int status = new ProcessBuilder(GOLDEN_WRITE).directory(root.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start().waitFor();
        List<String> refused = new ArrayList<>();
        int ran = 0;
        for (String chapter : Markers.chapters(root)) {
            for (Reports.Outcome o : Reports.outcomes(Reports.dir(root, chapter))) {
                ran++;
                if (o.status() != Reports.Status.PASSED) {
                    refused.add(chapter + ": " + o.simpleClass() + "." + o.name() + ": " + o.failure());
                }
            }
        }
        if (status != 0 || !refused.isEmpty() || ran == 0) {
            for (Map.Entry<Path, String> g : goldens.entrySet()) {
                Files.writeString(g.getKey(), g.getValue(), StandardCharsets.UTF_8);
            }
            System.out.println("REFUSED: a demo failed its own checks (or the build failed), so expected/ is unchanged:");
            refused.forEach(r -> System.out.println("  " + r));
            if (refused.isEmpty()) {
                System.out.println("  mvn exited " + status + ", " + ran + " golden test(s) ran: see " + root.relativize(log));
            }
            return false;
        }
        for (Path golden : files(root.resolve("expected"))) {
            if (!Files.readString(golden, StandardCharsets.UTF_8).equals(goldens.get(golden))) {
                System.out.println("wrote " + root.relativize(golden));
            }
        }
        return true;
    }

    /** Step 4: every guide block quoting a file that changed, cut again from the new file. */
    static boolean excerpts(Path root, Map<Path, List<String>> before) throws IOException {
        System.out.println("== 4. guide excerpts");
        List<String> problems = new ArrayList<>();
        for (Path guide : guides(root)) {
            if (refreshExcerpts(root, guide, before, problems)) {
                System.out.println("refreshed " + root.relativize(guide));
            }
        }
        problems.forEach(p -> System.out.println("CANNOT REFRESH " + p));
        return problems.isEmpty();
    }

    static List<Path> guides(Path root) throws IOException {
        List<Path> guides = new ArrayList<>();
        guides.add(root.resolve("README.md"));
        try (Stream<Path> dirs = Files.list(root)) {
            dirs.map(d -> d.resolve("README.md")).filter(Files::exists).sorted().forEach(guides::add);
        }
        guides.remove(root.resolve("README.md"));
        guides.add(0, root.resolve("README.md"));
        return guides;
    }

    /** Every file a guide quotes, as it is before regen changes anything. */
    static Map<Path, List<String>> snapshot(Path root) throws IOException {
        Map<Path, List<String>> files = new LinkedHashMap<>();
        for (Path guide : guides(root)) {
            for (String line : Files.readAllLines(guide, StandardCharsets.UTF_8)) {
                Matcher m = EXCERPT.matcher(line.strip());
                Path source = m.matches() ? root.resolve(m.group(1)) : null;
                if (source != null && Files.exists(source) && !files.containsKey(source)) {
                    files.put(source, Files.readAllLines(source, StandardCharsets.UTF_8));
                }
            }
        }
        return files;
    }

    /**
     * Cuts again every block of the guide that is no longer a verbatim excerpt of its file: the
     * block is found in the file's old text (before regen, or else as committed), and its first and
     * last lines are followed to the new text through a line diff. Returns whether the guide changed.
     */
    static boolean refreshExcerpts(Path root, Path guide, Map<Path, List<String>> before, List<String> problems)
            throws IOException {
        List<String> lines = Files.readAllLines(guide, StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        boolean changed = false;
        String source = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            out.add(line);
            Matcher excerpt = EXCERPT.matcher(line.strip());
            if (excerpt.matches()) {
                source = excerpt.group(1);
                continue;
            }
            if (!line.startsWith("```")) {
                if (!line.isBlank()) {
                    source = null;
                }
                continue;
            }
            int j = i + 1;
            while (j < lines.size() && !lines.get(j).startsWith("```")) {
                j++;
            }
            List<String> body = lines.subList(i + 1, j);
            List<String> replacement = excerpt(root, source, line, body, before);
            if (replacement == null) {
                problems.add(root.relativize(guide) + ":" + (i + 1) + ": the block is in neither the old nor the"
                        + " committed " + source + ": copy it again by hand");
                replacement = body;
            }
            changed |= !replacement.equals(body);
            out.addAll(replacement);
            if (j < lines.size()) {
                out.add(lines.get(j));
            }
            i = j;
            source = null;
        }
        if (changed) {
            Files.write(guide, (String.join("\n", out) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return changed;
    }

    /**
     * The fenced block as it must read: itself when it quotes no file (or a shell session) or is still
     * a verbatim excerpt of it, else cut again from the file's new text; null when the file's old
     * text does not have it either.
     */
    static List<String> excerpt(Path root, String source, String fence, List<String> body, Map<Path, List<String>> before)
            throws IOException {
        Path file = source == null ? null : root.resolve(source);
        if (file == null || !Files.exists(file) || fence.strip().equals("```sh")) {
            return body;
        }
        List<String> now = Files.readAllLines(file, StandardCharsets.UTF_8);
        return indexOf(now, body) >= 0 ? body : recut(root, file, body, now, before.get(file));
    }

    static List<String> recut(Path root, Path file, List<String> block, List<String> now, List<String> old)
            throws IOException {
        List<List<String>> olds = new ArrayList<>();
        if (old != null) {
            olds.add(old);
        }
        List<String> committed = committed(root, file);
        if (committed != null) {
            olds.add(committed);
        }
        for (List<String> was : olds) {
            int at = indexOf(was, block);
            if (at < 0) {
                continue;
            }
            int[] map = follow(was, now);
            int from = mapStart(map, at);
            int to = Math.min(mapEnd(map, at + block.size() - 1), now.size() - 1);
            if (from >= 0 && to >= from) {
                return new ArrayList<>(now.subList(from, to + 1));
            }
        }
        return null;
    }

    /** For each old line, its index in the new text, or -1 when the diff removed or changed it. */
    static int[] follow(List<String> old, List<String> now) {
        int n = old.size();
        int m = now.size();
        int[][] lcs = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                lcs[i][j] = old.get(i).equals(now.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        int[] map = new int[n];
        java.util.Arrays.fill(map, -1);
        int i = 0;
        int j = 0;
        while (i < n && j < m) {
            if (old.get(i).equals(now.get(j))) {
                map[i++] = j++;
            } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
                i++;
            } else {
                j++;
            }
        }
        return map;
    }

    /** The new index of an excerpt's first line: itself, or just after the nearest kept line above it. */
    static int mapStart(int[] map, int at) {
        if (map[at] >= 0) {
            return map[at];
        }
        for (int k = at - 1; k >= 0; k--) {
            if (map[k] >= 0) {
                return map[k] + 1;
            }
        }
        return 0;
    }

    /** The new index of an excerpt's last line: itself, or just before the nearest kept line below it. */
    static int mapEnd(int[] map, int at) {
        if (map[at] >= 0) {
            return map[at];
        }
        for (int k = at + 1; k < map.length; k++) {
            if (map[k] >= 0) {
                return map[k] - 1;
            }
        }
        return map.length == 0 ? -1 : Integer.MAX_VALUE;
    }

    static List<String> committed(Path root, Path file) throws IOException {
        try {
            Process git = new ProcessBuilder("git", "show", "HEAD:" + root.relativize(file).toString().replace('\\', '/'))
                    .directory(root.toFile()).redirectErrorStream(false).start();
            String text = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return git.waitFor() == 0 ? List.of(text.split("\n", -1)) : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static int indexOf(List<String> haystack, List<String> needle) {
        for (int start = 0; start + needle.size() <= haystack.size(); start++) {
            if (haystack.subList(start, start + needle.size()).equals(needle)) {
                return start;
            }
        }
        return -1;
    }

    static List<Path> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
