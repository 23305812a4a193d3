import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./workbook quiz chNN [ANSWER...]}: the questions of a guide's "## Check your understanding"
 * section, asked one at a time, each answer explained. With answers as arguments it runs without
 * asking ({@code ./workbook quiz ch08 b a c}) and exits 0 when all are right, 1 when one is not.
 *
 * <p>The guide is the one store of the questions; this class only reads its form:
 * <pre>
 * **1. The question, on one line?**
 *
 * - a) an option, one line each
 * - b) ...
 *
 * &lt;details&gt;&lt;summary&gt;Answer&lt;/summary&gt;
 *
 * **b)** Why b, and why the others are traps (any number of lines and paragraphs).
 *
 * &lt;/details&gt;
 * </pre>
 */
final class Quiz {
    static final String SECTION = "## Check your understanding";
    private static final Pattern QUESTION = Pattern.compile("^\\*\\*(\\d+)\\. (.+)\\*\\*$");
    private static final Pattern OPTION = Pattern.compile("^- ([a-e])\\) (.+)$");
    private static final Pattern ANSWER = Pattern.compile("^\\*\\*([a-e])\\)\\*\\* ?(.*)$");
    private static final int WIDTH = 96;

    record Question(int number, String text, List<String> options, char answer, String explanation) {
        char lastLetter() {
            return (char) ('a' + options.size() - 1);
        }

        boolean fits(String answer) {
            return answer.length() == 1 && answer.charAt(0) >= 'a' && answer.charAt(0) <= lastLetter();
        }
    }

    private Quiz() {
    }

    /** The command: exits with {@link #run}'s status. */
    static int command(String chapter, String[] answers) throws IOException {
        Path guide = Workbook.ROOT.resolve(chapter).resolve("README.md");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        return run(chapter, Files.readAllLines(guide, StandardCharsets.UTF_8), List.of(answers), in, System.out,
                System.err);
    }

    /**
     * Asks every question of {@code guide}, taking the answers from {@code given} when there are any
     * (one per question) and from {@code in} otherwise. Returns 0 when every answer was right, 1 when
     * one was not, 2 for a guide without questions or answers that do not fit them.
     */
    static int run(String chapter, List<String> guide, List<String> given, BufferedReader in, PrintStream out,
            PrintStream err) throws IOException {
        List<Question> questions;
        try {
            questions = parse(guide);
        } catch (IllegalArgumentException e) {
            err.println("workbook: " + chapter + "/README.md: " + e.getMessage());
            return 2;
        }
        String refused = refusal(chapter, questions, given);
        if (refused != null) {
            err.println(refused);
            return 2;
        }
        out.println(chapter + " · check your understanding · " + questions.size() + " questions");
        int right = 0;
        int asked = 0;
        for (int i = 0; i < questions.size(); i++) {
            Question q = questions.get(i);
            show(q, i + 1, questions.size(), out);
            String answer = given.isEmpty() ? ask(q, in, out) : echo(given.get(i), out);
            if (answer == null) {
                break;
            }
            asked++;
            right += explain(q, answer, out) ? 1 : 0;
        }
        out.println();
        out.println(right + " of " + asked + " right" + (asked < questions.size() ? " (stopped early)" : "") + ".");
        return right == questions.size() ? 0 : 1;
    }

    /** Why the quiz cannot start (no questions, answers that do not fit them), or null when it can. */
    private static String refusal(String chapter, List<Question> questions, List<String> given) {
        if (questions.isEmpty()) {
            return "workbook: " + chapter + "/README.md has no '" + SECTION + "' section with questions";
        }
        if (!given.isEmpty() && given.size() != questions.size()) {
            return "workbook: " + chapter + " has " + questions.size() + " questions; give one answer each"
                    + " (e.g. ./workbook quiz " + chapter.substring(0, 4) + " " + "a ".repeat(questions.size()).strip()
                    + ") or none to be asked";
        }
        for (int i = 0; i < given.size(); i++) {
            if (!questions.get(i).fits(given.get(i))) {
                return "workbook: answer " + (i + 1) + " is '" + given.get(i) + "': question " + (i + 1)
                        + " takes a letter from a to " + questions.get(i).lastLetter();
            }
        }
        return null;
    }

    private static void show(Question q, int number, int of, PrintStream out) {
        out.println();
        out.println("Question " + number + " of " + of);
        wrap(q.text(), "", out);
        for (int k = 0; k < q.options().size(); k++) {
            wrap(q.options().get(k), "  " + (char) ('a' + k) + ") ", out);
        }
    }

    /** An answer given on the command line, shown as if typed. */
    private static String echo(String answer, PrintStream out) {
        out.println("your answer: " + answer);
        return answer;
    }

    /** Asks until the answer fits the question; null when the learner stops (q, or the end of input). */
    private static String ask(Question q, BufferedReader in, PrintStream out) throws IOException {
        while (true) {
            out.print("your answer (a-" + q.lastLetter() + ", q to stop): ");
            out.flush();
            String line = in.readLine();
            if (line == null || line.strip().equalsIgnoreCase("q")) {
                out.println();
                return null;
            }
            String answer = line.strip().toLowerCase(Locale.ROOT);
            if (q.fits(answer)) {
                return answer;
            }
            out.println("one letter from a to " + q.lastLetter() + ", please");
        }
    }

    /** Says whether the answer is right, then why, paragraph by paragraph; true when it was right. */
    private static boolean explain(Question q, String answer, PrintStream out) {
        boolean correct = answer.charAt(0) == q.answer();
        out.println(correct ? "Right: " + q.answer() + "." : "Not quite: the answer is " + q.answer() + ".");
        String[] paragraphs = q.explanation().split("\n\n");
        for (int p = 0; p < paragraphs.length; p++) {
            if (p > 0) {
                out.println();
            }
            wrap(paragraphs[p], "", out);
        }
        return correct;
    }

    /** The questions of the guide's section, in order; a malformed question is an error naming its line. */
    static List<Question> parse(List<String> guide) {
        int start = guide.indexOf(SECTION);
        if (start < 0) {
            return new ArrayList<>();
        }
        Parser parser = new Parser();
        for (int i = start + 1; i < guide.size() && !guide.get(i).startsWith("## "); i++) {
            parser.read(i + 1, guide.get(i));
        }
        return parser.questions();
    }

    /**
     * Reads the section a line at a time: a question's heading, its options, then its answer
     * between {@code <details>} and {@code </details>}, whose first {@code **x)**} names the letter.
     */
    private static final class Parser {
        private final List<Question> questions = new ArrayList<>();
        private final List<String> options = new ArrayList<>();
        private Integer number;
        private String text;
        private int opened;
        private Character answer;
        /** Not null inside a question's {@code <details>}. */
        private StringBuilder explanation;

        void read(int line, String text) {
            if (explanation != null) {
                answerLine(line, text);
            } else {
                questionLine(line, text);
            }
        }

        private void questionLine(int line, String s) {
            Matcher m;
            if ((m = QUESTION.matcher(s)).matches()) {
                number = Integer.parseInt(m.group(1));
                text = m.group(2);
                opened = line;
            } else if (number != null && (m = OPTION.matcher(s)).matches()) {
                if (m.group(1).charAt(0) != 'a' + options.size()) {
                    throw new IllegalArgumentException("line " + line + ": option " + m.group(1) + ") of question "
                            + number + " is out of order");
                }
                options.add(m.group(2));
            } else if (number != null && s.startsWith("<details>")) {
                if (options.size() < 2) {
                    throw new IllegalArgumentException("line " + opened + ": question " + number + " needs two options or more");
                }
                explanation = new StringBuilder();
            }
        }

        private void answerLine(int line, String s) {
            Matcher m;
            if (s.strip().equals("</details>")) {
                if (answer == null) {
                    throw new IllegalArgumentException("line " + line + ": the answer of question " + number
                            + " must start with **x)**");
                }
                questions.add(new Question(number, text, List.copyOf(options), answer,
                        explanation.toString().strip().replaceAll("\n{3,}", "\n\n")));
                number = null;
                options.clear();
                answer = null;
                explanation = null;
            } else if (answer == null && (m = ANSWER.matcher(s)).matches()) {
                answer = m.group(1).charAt(0);
                explanation.append(m.group(2)).append('\n');
            } else if (answer != null) {
                explanation.append(s.isBlank() ? "\n" : s + "\n");
            }
        }

        /** The questions read, once the section has ended. */
        List<Question> questions() {
            if (number != null) {
                throw new IllegalArgumentException("line " + opened + ": question " + number + " has no <details> answer");
            }
            for (Question q : questions) {
                if (q.answer() > q.lastLetter()) {
                    throw new IllegalArgumentException("question " + q.number() + " answers " + q.answer()
                            + ", which is not one of its options");
                }
            }
            return questions;
        }
    }

    /** Prints a paragraph without its markdown (emphasis, code quotes), wrapped at {@value #WIDTH} columns under {@code prefix}. */
    private static void wrap(String markdown, String prefix, PrintStream out) {
        Text.wrap(markdown.replace("*", "").replace("`", "").replaceAll("\\s+", " ").strip(), prefix, WIDTH, out);
    }
}
