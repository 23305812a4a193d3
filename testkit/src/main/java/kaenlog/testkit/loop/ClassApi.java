package kaenlog.testkit.loop;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What other classes can see of a compiled class: its flags, supertypes, and every field and
 * method with its descriptor (and a constant's value, which javac copies into its users). Method
 * bodies are left out, so a learner's edit inside a body leaves the API equal and nothing that
 * depends on the class needs recompiling; any other edit recompiles its dependents, as Maven would.
 */
final class ClassApi {
    private ClassApi() {
    }

    /** Class file path (relative to {@code classes}) -> its API, for every class under {@code classes}. */
    static Map<String, String> of(Path classes) throws IOException {
        Map<String, String> api = new TreeMap<>();
        if (!Files.isDirectory(classes)) {
            return api;
        }
        try (Stream<Path> walk = Files.walk(classes)) {
            for (Path p : walk.filter(f -> f.toString().endsWith(".class")).toList()) {
                api.put(classes.relativize(p).toString(), read(Files.readAllBytes(p)));
            }
        }
        return api;
    }

    static String read(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        in.readInt();
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] classIndex = new int[count];
        int[] stringIndex = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7 -> classIndex[i] = in.readUnsignedShort();
                case 8 -> stringIndex[i] = in.readUnsignedShort();
                case 16, 19, 20 -> in.readUnsignedShort();
                case 3, 4 -> utf8[i] = String.valueOf(in.readInt());
                case 5, 6 -> {
                    utf8[i] = String.valueOf(in.readLong());
                    i++;
                }
                case 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                default -> throw new IOException("constant pool tag " + tag);
            }
        }
        StringBuilder api = new StringBuilder();
        api.append(in.readUnsignedShort()).append(' ');
        api.append(utf8[classIndex[in.readUnsignedShort()]]).append(" extends ");
        int superIndex = in.readUnsignedShort();
        api.append(superIndex == 0 ? "-" : utf8[classIndex[superIndex]]).append(" implements");
        int interfaces = in.readUnsignedShort();
        for (int i = 0; i < interfaces; i++) {
            api.append(' ').append(utf8[classIndex[in.readUnsignedShort()]]);
        }
        List<String> members = new ArrayList<>();
        for (int kind = 0; kind < 2; kind++) {
            int n = in.readUnsignedShort();
            for (int i = 0; i < n; i++) {
                int flags = in.readUnsignedShort();
                StringBuilder member = new StringBuilder().append(flags).append(' ')
                        .append(utf8[in.readUnsignedShort()]).append(utf8[in.readUnsignedShort()]);
                int attributes = in.readUnsignedShort();
                for (int a = 0; a < attributes; a++) {
                    String name = utf8[in.readUnsignedShort()];
                    byte[] body = new byte[in.readInt()];
                    in.readFully(body);
                    if (name.equals("ConstantValue")) {
                        int index = ((body[0] & 0xff) << 8) | (body[1] & 0xff);
                        member.append(" = ").append(stringIndex[index] != 0 ? utf8[stringIndex[index]] : utf8[index]);
                    }
                }
                // Private members (helpers, lambdas) are invisible to other classes.
                if ((flags & 0x0002) == 0) {
                    members.add(member.toString());
                }
            }
        }
        members.sort(null);
        return api.append('\n').append(String.join("\n", members)).toString();
    }
}
