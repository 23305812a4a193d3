import java.io.PrintStream;

/** Plain text for the terminal, shared by the hints and the quiz. */
final class Text {
    private Text() {
    }

    /**
     * Prints the text's words wrapped at {@code width} columns: the first line after {@code prefix}
     * ("  a) "), the next ones under it, indented by as many spaces.
     */
    static void wrap(String text, String prefix, int width, PrintStream out) {
        String indent = " ".repeat(prefix.length());
        StringBuilder line = new StringBuilder(prefix);
        for (String word : text.split(" ")) {
            if (line.length() > prefix.length() && line.length() + 1 + word.length() > width) {
                out.println(line);
                line = new StringBuilder(indent);
            }
            line.append(line.length() > prefix.length() ? " " : "").append(word);
        }
        out.println(line);
    }
}
