package kaenlog.replication;

import static org.assertj.core.api.Assertions.assertThat;

import kaenlog.log.FetchIsolation;
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
}
