package kaenlog.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kaenlog.testkit.ClockBan;
import kaenlog.testkit.Guide;
import kaenlog.testkit.Layers;
import kaenlog.testkit.PassesOnSkeleton;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

@Order(30)
@PassesOnSkeleton("checks the workbook's own rules, not an exercise")
class Ch08WorkbookRulesTest {
    @Test
    void replicationCodeReadsNoClockAndNoUnseededRandomness() {
        ClockBan.assertNoClockIn("kaenlog.demo.replication", "kaenlog.replication");
    }

    @Test
    void everyBlockOfTheGuideIsAVerbatimExcerptOfItsNamedFile() throws Exception {
        Guide.assertExcerptsMatch("ch08-replication/README.md");
    }

    /**
     * Chapter 3's guide keeps the one table of kaen-log's api keys, every chapter's; this chapter
     * sees every earlier chapter's classes, so it checks each row against the constant it names.
     */
    @Test
    void theApiKeyTableInChapter3sGuideMatchesTheConstants() throws Exception {
        String guide = "ch03-produce/README.md";
        Pattern row = Pattern.compile("^\\| (\\d+) \\| ([A-Z_]+) \\| (\\d+) \\| `([\\w.]+)\\.([A-Z_]+)` \\|$");
        List<String> lines = Files.readAllLines(Guide.root().resolve(guide), StandardCharsets.UTF_8);
        int table = lines.indexOf("| apiKey | name | chapter | constant |");
        assertThat(table).as("%s has the table of kaen-log's api keys", guide).isNotNegative();
        Map<Integer, String> seen = new HashMap<>();
        for (int i = table + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            Matcher m = row.matcher(lines.get(i));
            assertThat(m.matches()).as("%s:%d: a row is | key | NAME | chapter | `package.Class.CONSTANT` |", guide, i + 1)
                    .isTrue();
            int key = Integer.parseInt(m.group(1));
            Number constant = (Number) Class.forName(m.group(4)).getField(m.group(5)).get(null);
            assertThat(constant.intValue()).as("%s:%d: %s is %s.%s", guide, i + 1, m.group(2), m.group(4), m.group(5))
                    .isEqualTo(key);
            assertThat(seen.put(key, m.group(2))).as("%s:%d: api key %d is listed twice", guide, i + 1, key).isNull();
        }
        assertThat(seen).as("%s lists at least PRODUCE, FETCH and INIT_PRODUCER_ID", guide)
                .containsEntry(0, "PRODUCE").containsEntry(1, "FETCH").containsEntry(2, "INIT_PRODUCER_ID");
    }

    @Test
    void packagesImportOneWayAndNeverEachOther() {
        // demo -> client | server -> wire -> storage -> batch (cli and workbook below all): see Layers.
        Layers.assertImportsRunOneWay();
    }
}
