package kaenlog.kafkawire;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A group member in a JVM of its own, for {@code ConsumerGroupsTest}: it reads, commits what it
 * read, says so on stdout, and after {@code stopAfter} records dies on the spot
 * ({@code Runtime.halt}: no LeaveGroup, no close, its heartbeats just stop), as a crashed consumer
 * does. Lines: {@code assigned [orders-0, ...]}, {@code committed P OFFSET VALUE}.
 *
 * <p>Arguments: bootstrap group topic sessionTimeoutMs heartbeatIntervalMs stopAfter.
 */
public final class GroupMemberProcess {
    private GroupMemberProcess() {
    }

    public static void main(String[] args) {
        Properties config = ConsumerGroupsTest.consumerConfig(args[0], args[1], Integer.parseInt(args[3]),
                Integer.parseInt(args[4]), "crashing-member");
        int stopAfter = Integer.parseInt(args[5]);
        int read = 0;
        String lastAssignment = "";
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
        consumer.subscribe(List.of(args[2]));
        while (true) {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
            String assignment = new TreeSet<>(consumer.assignment().stream().map(TopicPartition::toString).toList())
                    .toString();
            if (!assignment.equals(lastAssignment)) {
                System.out.println("assigned " + assignment);
                System.out.flush();
                lastAssignment = assignment;
            }
            if (records.isEmpty()) {
                continue;
            }
            consumer.commitSync();
            StringBuilder lines = new StringBuilder();
            for (ConsumerRecord<String, String> r : records) {
                lines.append("committed ").append(r.partition()).append(' ').append(r.offset()).append(' ')
                        .append(r.value()).append('\n');
            }
            System.out.print(lines);
            System.out.flush();
            read += records.count();
            if (read >= stopAfter) {
                Runtime.getRuntime().halt(0);
            }
        }
    }
}
