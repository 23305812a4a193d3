package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.log.FetchIsolation;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Task 6: a follower is a consumer that carries a replica id; the read ceiling is the only difference. */
@Order(6)
class IsolationTest {

    @Test
    void aFollowerReadsToTheLogEndAndAConsumerStopsAtTheHighWatermark() {
        assertThat(Cluster.isolationOf(2))
                .as("replica id 2 is a broker: a follower must copy everything the leader has, so it reads to the "
                        + "log end (Kafka: FetchIsolation.of returns LOG_END when !isConsumer(replicaId))")
                .isEqualTo(FetchIsolation.LOG_END);
        assertThat(Cluster.isolationOf(-1))
                .as("replica id -1 is FetchRequest.json's default, a consumer: it reads only committed records, up to "
                        + "the high watermark")
                .isEqualTo(FetchIsolation.HIGH_WATERMARK);
    }

    @Test
    void brokerZeroIsAFollowerToo() {
        assertThat(Cluster.isolationOf(0))
                .as("0 is a valid broker id: a non-negative replica id is a follower, not a consumer")
                .isEqualTo(FetchIsolation.LOG_END);
    }

    @Test
    void anyNegativeReplicaIdIsAConsumer() {
        assertThat(Cluster.isolationOf(-2))
                .as("-2 is Kafka's DEBUGGING_CONSUMER_ID: any negative replica id is a consumer and reads to the high "
                        + "watermark, not only -1 (kaen-log: replicaId >= 0 is a follower, anything negative a consumer)")
                .isEqualTo(FetchIsolation.HIGH_WATERMARK);
    }

    // ---- Kafka judges: kafka-server-common's FetchIsolation.of, on every replica id ----

    static final String ISOLATION_RULE = "a follower is a consumer that carries a broker id: any replica id >= 0, broker 0"
            + " included, reads to the log end; -1, a consumer, reads to the high watermark";
    /** {@code FetchRequest.FUTURE_LOCAL_REPLICA_ID}: Kafka's one negative id that is no consumer. */
    static final int FUTURE_LOCAL_REPLICA_ID = -3;

    @Test
    void everyReplicaIdReadsWithKafkasFetchIsolation() {
        Property.forAll(Gens.ints()).check(replicaId -> {
            org.apache.kafka.server.storage.log.FetchIsolation kafka =
                    org.apache.kafka.server.storage.log.FetchIsolation.of(replicaId, IsolationLevel.READ_UNCOMMITTED);
            String oracle = "FetchIsolation.of(replicaId, READ_UNCOMMITTED) answers";
            String expected = kafka.name();
            if (replicaId == FUTURE_LOCAL_REPLICA_ID) {
                oracle = "FetchIsolation.of answers " + kafka.name() + " for -3 (a replica moving between log"
                        + " directories); kaen-log's documented difference (the guide's 'A consumer is replicaId < 0,"
                        + " except -3') answers";
                expected = FetchIsolation.HIGH_WATERMARK.name();
            }
            Judge.agree("the fetch of replica id " + replicaId, "ceiling", Cluster.isolationOf(replicaId).name(), oracle,
                    expected, ISOLATION_RULE);
        });
    }
}
