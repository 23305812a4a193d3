import java.nio.file.Path;

public final class TaskTables {
    static int main(Path root, String[] args) throws Exception {
        return 1;
    }
}
