import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import kaenlog.testkit.loop.Tasks;

/**
 * {@code ./workbook solution chNN N}: every reference block of the task, printed as it can be pasted
 * (in place of the TODO line), each followed by the learner's current body of the same method, for
 * comparison. A block is the rest of a body (a method's, a lambda's, a try's): its marker sits one
 * level inside the body's header, which is how the learner's copy of that body is found.
 */
final class Solution {
    private Solution() {
    }

    static int command(String chapter, int number) throws IOException {
        Tasks.Task task = Workbook.task(chapter, number);
        System.out.println("task " + number + ": " + task.what() + " (" + task.testClass() + ")");
        Path reference = Workbook.ROOT.resolve("solutions").resolve(chapter).resolve("src/main/java");
        try (Stream<Path> walk = Files.walk(reference)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = Markers.BEGIN.matcher(lines.get(i));
                    if (m.matches() && Integer.parseInt(m.group(4)) == number) {
                        Block.at(file, lines, i).print(yours(chapter, reference, file));
                    }
                }
            }
        }
        return 0;
    }

    /** The learner's file that holds the same class as this reference file. */
    private static Path yours(String chapter, Path reference, Path file) {
        return Workbook.ROOT.resolve(chapter).resolve("src/main/java").resolve(reference.relativize(file));
    }

    /**
     * One block of a reference file: the marker's line, the body's header above it ({@code start}
     * to {@code end}, a header may wrap), and the member (method or constructor) it is in.
     */
    private record Block(Path file, List<String> lines, int marker, String outer, int start, int end, int member) {
        static Block at(Path file, List<String> lines, int marker) {
            String outer = outer(lines.get(marker));
            int start = above(lines, marker, outer);
            return new Block(file, lines, marker, outer, start, headerEnd(lines, marker, start), above(lines, marker, "    "));
        }

        /** The indentation of the body the block completes: one level above the marker's. */
        private static String outer(String markerLine) {
            String body = markerLine.substring(0, markerLine.indexOf('/'));
            return body.substring(Math.min(4, body.length()));
        }

        private static int headerEnd(List<String> lines, int marker, int start) {
            int end = start;
            while (end >= 0 && end < marker && !lines.get(end).strip().endsWith("{")) {
                end++; // a header wrapped over several lines
            }
            return end;
        }

        String method() {
            return member < 0 ? "" : lines.get(member).strip() + (lines.get(member).strip().endsWith("{") ? "" : " ...");
        }

        void print(Path yours) throws IOException {
            Path root = Workbook.ROOT;
            System.out.println();
            System.out.println("== " + root.relativize(yours) + (method().isEmpty() ? "" : ", in " + method()));
            System.out.println("-- the reference (" + root.relativize(file) + ":" + (marker + 2)
                    + "), to paste in place of the TODO line:");
            for (int j = marker + 1; j < lines.size() && !lines.get(j).strip().equals("// END-SOLUTION"); j++) {
                System.out.println(lines.get(j));
            }
            System.out.println("-- yours now:");
            printYours(yours);
        }

        /** The learner's body under the same member and header, up to its closing brace. */
        private void printYours(Path yours) throws IOException {
            List<String> mine = Files.exists(yours) ? Files.readAllLines(yours, StandardCharsets.UTF_8) : List.of();
            int from = member < 0 ? -1 : mine.indexOf(lines.get(member));
            int at = from < 0 || start < 0 || end >= marker ? -1 : indexOf(mine, lines.subList(start, end + 1), from);
            if (at < 0) {
                System.out.println("   (" + Workbook.ROOT.relativize(yours) + " has no " + method() + ")");
                return;
            }
            for (int j = at + end - start + 1; j < mine.size() && !mine.get(j).startsWith(outer + "}"); j++) {
                System.out.println(mine.get(j));
            }
        }
    }

    /** The nearest line above this one that starts exactly at this indentation, or -1. */
    static int above(List<String> lines, int at, String indent) {
        for (int j = at - 1; j >= 0; j--) {
            String line = lines.get(j);
            if (line.length() > indent.length() && line.startsWith(indent) && !Character.isWhitespace(line.charAt(indent.length()))) {
                return j;
            }
        }
        return -1;
    }

    /** Where these consecutive lines start in a file, from line "from" on, or -1. */
    static int indexOf(List<String> file, List<String> wanted, int from) {
        for (int i = from; i + wanted.size() <= file.size(); i++) {
            if (file.subList(i, i + wanted.size()).equals(wanted)) {
                return i;
            }
        }
        return -1;
    }
}
