import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code ./workbook restart chNN [--force]}: the chapter's skeleton written again from the
 * reference. It refuses while the chapter has uncommitted work (git keeps what was committed, so
 * nothing is lost), and names each file of the learner's that regenerating deletes, before it does.
 */
final class Restart {
    private Restart() {
    }

    static int command(String chapter, boolean force) throws Exception {
        Path sources = Workbook.ROOT.resolve(chapter).resolve("src/main/java");
        if (!force) {
            refuseUncommittedWork(chapter, sources);
        }
        for (Path file : added(chapter, sources)) {
            System.out.println("workbook: deleting " + Workbook.ROOT.relativize(file)
                    + ", a file you added (git keeps what you committed)");
        }
        return Skeletons.main(Workbook.ROOT, new String[] {"--write", chapter});
    }

    /** Stops (status 1) when git shows changes under the chapter's sources, or cannot say. */
    private static void refuseUncommittedWork(String chapter, Path sources) throws Exception {
        Process git = new ProcessBuilder("git", "status", "--porcelain", "--", Workbook.ROOT.relativize(sources).toString())
                .directory(Workbook.ROOT.toFile()).redirectErrorStream(true).start();
        String changes = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (git.waitFor() != 0) {
            throw new Workbook.Stop(1, "workbook: cannot ask git about uncommitted work (" + changes
                    + "); run with --force to regenerate anyway");
        }
        if (!changes.isEmpty()) {
            throw new Workbook.Stop(1, "workbook: " + chapter + " has uncommitted work:\n" + changes
                    + "\ncommit it first (git commit -am ...), or run: ./workbook restart " + chapter + " --force");
        }
    }

    /** The learner's .java files that the reference does not have: regenerating deletes them. */
    private static List<Path> added(String chapter, Path sources) throws java.io.IOException {
        Path reference = Workbook.ROOT.resolve("solutions").resolve(chapter).resolve("src/main/java");
        List<Path> added = new ArrayList<>();
        if (Files.isDirectory(sources)) {
            try (Stream<Path> walk = Files.walk(sources)) {
                for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    if (!Files.exists(reference.resolve(sources.relativize(file)))) {
                        added.add(file);
                    }
                }
            }
        }
        return added;
    }
}
