package kaenlog.testkit.property;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScratchTest {
    @TempDir
    Path tempDir;

    @Test
    void aNewTryRemovesThePreviousTrysDirectoriesAndAnotherDirKeepsTheSameTrys() throws Exception {
        Path first;
        Path second;
        try (Scratch scratch = Scratch.in(tempDir)) {
            first = scratch.newDir();
            second = scratch.anotherDir();
            Files.writeString(first.resolve("f"), "x");
            assertThat(first).as("anotherDir leaves this try's first directory").isDirectory();
            assertThat(second).as("and is a directory of its own").isDirectory().isNotEqualTo(first);
            Path third = scratch.newDir();
            assertThat(first).as("a new try removes the previous try's directories (tmpfs is memory)").doesNotExist();
            assertThat(second).as("all of them").doesNotExist();
            assertThat(third).as("and starts empty").isEmptyDirectory();
        }
    }
}
