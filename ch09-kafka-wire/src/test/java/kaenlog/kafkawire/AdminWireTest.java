package kaenlog.kafkawire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import kaenlog.broker.Broker;
import kaenlog.broker.BrokerConfig;
import kaenlog.broker.LogConfigKeys;
import kaenlog.broker.PartitionConfigs;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every version of every admin request this listener advertises (ApiKey's ranges), written by
 * kafka-clients 4.1.1's own message classes and its answer read back by them, including the versions
 * no tool of 4.1.1 sends any more (AlterConfigs, which AdminClient 4 dropped); the bounds a client
 * cannot pass; and the tables of {@link TopicConfigs} against Kafka's own ({@code LogConfig},
 * {@code ServerTopicConfigSynonyms}). Runs after the tasks.
 */
@Order(15)
class AdminWireTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream brokerLog = new ByteArrayOutputStream();
    private Broker broker;
    private KafkaApis apis;
    private int correlationId;

    @BeforeEach
    void start() throws Exception {
        broker = Broker.start(BrokerConfig.of(dir.resolve("data")).withTickMs(0)
                        .withConfigs(PartitionConfigs.load().with(LogConfigKeys.MAX_PARTITIONS + "=20")),
                new PrintStream(brokerLog, true, StandardCharsets.UTF_8));
        apis = new KafkaApis(new Backend(broker), "127.0.0.1", 9999, new PrintStream(brokerLog, true,
                StandardCharsets.UTF_8));
        createTopic("t", 2);
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private <T extends ApiMessage> T send(ApiKeys key, short version, ApiMessage data) throws Exception {
        return KafkaFrames.exchange(apis, key, version, data, ++correlationId);
    }

    private static List<Short> versions(ApiKey key) {
        return KafkaFrames.versions(key);
    }

    private void createTopic(String name, int partitions) throws Exception {
        CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(1000);
        create.topics().add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(partitions)
                .setReplicationFactor((short) 1));
        CreateTopicsResponseData created = send(ApiKeys.CREATE_TOPICS, (short) 7, create);
        assertThat(created.topics().find(name).errorCode()).as("creating %s", name).isZero();
    }

    private Map<String, String> topicConfigs(String topic) {
        return new TreeMap<>(broker.configs().topicConfigs(topic));
    }

    @Test
    void describeConfigsAtEveryVersion() throws Exception {
        broker.alterTopicConfigs(Map.of("t", Map.of("cleanup.policy", "compact")));
        for (short v : versions(ApiKey.DESCRIBE_CONFIGS)) {
            DescribeConfigsRequestData describe = new DescribeConfigsRequestData().setIncludeSynonyms(true)
                    .setIncludeDocumentation(v >= 3);
            describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                    .setResourceType((byte) 2).setResourceName("t").setConfigurationKeys(null));
            describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                    .setResourceType((byte) 4).setResourceName("1").setConfigurationKeys(List.of("max.partitions")));
            describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                    .setResourceType((byte) 4).setResourceName("2").setConfigurationKeys(null));
            describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                    .setResourceType((byte) 8).setResourceName("1").setConfigurationKeys(null));
            DescribeConfigsResponseData answer = send(ApiKeys.DESCRIBE_CONFIGS, v, describe);
            var topic = answer.results().get(0);
            assertThat(topic.errorCode()).as("DescribeConfigs v%d, topic t", v).isZero();
            var policy = topic.configs().stream().filter(c -> c.name().equals("cleanup.policy")).findFirst().orElseThrow();
            assertThat(policy.value()).as("v%d", v).isEqualTo("compact");
            assertThat(DescribeConfigsResponse.ConfigSource.forId(policy.configSource())).as("v%d: the topic's own", v)
                    .isEqualTo(DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG);
            assertThat(policy.synonyms()).as("v%d: synonyms, asked for", v).hasSize(2);
            if (v >= 3) {
                assertThat(DescribeConfigsResponse.ConfigType.forId(policy.configType())).as("v%d: Kafka's type", v)
                        .isEqualTo(DescribeConfigsResponse.ConfigType.LIST);
                assertThat(policy.documentation()).as("v%d: documentation, asked for", v).isNotBlank();
            }
            var brokerOne = answer.results().get(1);
            assertThat(brokerOne.configs()).as("v%d: broker 1, the one key asked for", v).hasSize(1);
            assertThat(brokerOne.configs().get(0).readOnly()).as("v%d: set when the broker starts", v).isTrue();
            assertThat(Errors.forCode(answer.results().get(2).errorCode())).as("v%d: broker 2 is not this one", v)
                    .isEqualTo(Errors.INVALID_REQUEST);
            assertThat(answer.results().get(2).errorMessage())
                    .isEqualTo("Unexpected broker id, expected 1 or empty string, but received 2");
            assertThat(Errors.forCode(answer.results().get(3).errorCode())).as("v%d: broker loggers are not kept", v)
                    .isEqualTo(Errors.INVALID_REQUEST);
        }
    }

    @Test
    void alterConfigsReplacesATopicsWholeSetAtEveryVersion() throws Exception {
        for (short v : versions(ApiKey.ALTER_CONFIGS)) {
            broker.alterTopicConfigs(Map.of("t", Map.of("cleanup.policy", "compact")));
            AlterConfigsRequestData alter = new AlterConfigsRequestData();
            AlterConfigsRequestData.AlterConfigsResource resource = new AlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType((byte) 2).setResourceName("t");
            resource.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms").setValue("60000"));
            alter.resources().add(resource);
            AlterConfigsResponseData answer = send(ApiKeys.ALTER_CONFIGS, v, alter);
            assertThat(answer.responses().get(0).errorCode()).as("AlterConfigs v%d", v).isZero();
            assertThat(topicConfigs("t")).as("v%d: the request's set replaces the topic's (cleanup.policy goes)", v)
                    .isEqualTo(Map.of("retention.ms", "60000"));
        }
    }

    @Test
    void incrementalAlterConfigsAtEveryVersionInKafkasOrderOfChecks() throws Exception {
        for (short v : versions(ApiKey.INCREMENTAL_ALTER_CONFIGS)) {
            broker.alterTopicConfigs(Map.of("t", Map.of()));
            IncrementalAlterConfigsRequestData alter = new IncrementalAlterConfigsRequestData();
            alter.resources().add(resource("t", config("retention.ms", 0, "1000"), config("cleanup.policy", 2, "compact")));
            alter.resources().add(resource("t2", config("retention.ms", 0, "1"), config("retention.ms", 1, null)));
            alter.resources().add(resource("nobody", config("retention.ms", 0, null)));
            IncrementalAlterConfigsResponseData answer = send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, v, alter);
            assertThat(answer.responses().get(0).errorCode()).as("IncrementalAlterConfigs v%d", v).isZero();
            assertThat(topicConfigs("t")).as("v%d: SET, and APPEND to the default list", v)
                    .isEqualTo(Map.of("retention.ms", "1000", "cleanup.policy", "delete,compact"));
            assertThat(answer.responses().get(1).errorMessage()).as("v%d: a config named twice", v)
                    .isEqualTo("Error due to duplicate config keys");
            assertThat(answer.responses().get(2).errorMessage()).as("v%d: a null value but for DELETE, checked"
                    + " before the topic is looked up", v).isEqualTo("Null value not supported for : retention.ms");

            IncrementalAlterConfigsRequestData twice = new IncrementalAlterConfigsRequestData();
            twice.resources().add(resource("t", config("retention.ms", 0, "5")));
            twice.resources().add(resource("t", config("retention.ms", 0, "6")));
            IncrementalAlterConfigsResponseData refused = send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, v, twice);
            assertThat(refused.responses()).as("v%d: a resource named twice is refused both times", v)
                    .allSatisfy(r -> assertThat(r.errorMessage()).isEqualTo("Each resource must appear at most once."));
            assertThat(topicConfigs("t").get("retention.ms")).isEqualTo("1000");

            IncrementalAlterConfigsRequestData appendToNumber = new IncrementalAlterConfigsRequestData();
            appendToNumber.resources().add(resource("t", config("retention.ms", 2, "5")));
            assertThat(((IncrementalAlterConfigsResponseData) send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, v, appendToNumber))
                    .responses().get(0).errorMessage()).as("v%d: APPEND is for lists", v)
                    .isEqualTo("Config value append is not allowed for config key: retention.ms");
        }
    }

    private static IncrementalAlterConfigsRequestData.AlterConfigsResource resource(
            String topic, IncrementalAlterConfigsRequestData.AlterableConfig... configs) {
        IncrementalAlterConfigsRequestData.AlterConfigsResource resource =
                new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2).setResourceName(topic);
        for (IncrementalAlterConfigsRequestData.AlterableConfig c : configs) {
            resource.configs().mustAdd(c);
        }
        return resource;
    }

    private static IncrementalAlterConfigsRequestData.AlterableConfig config(String name, int operation, String value) {
        return new IncrementalAlterConfigsRequestData.AlterableConfig().setName(name)
                .setConfigOperation((byte) operation).setValue(value);
    }

    @Test
    void createPartitionsAtEveryVersion() throws Exception {
        int count = 2;
        for (short v : versions(ApiKey.CREATE_PARTITIONS)) {
            count++;
            CreatePartitionsRequestData grow = new CreatePartitionsRequestData().setTimeoutMs(1000);
            grow.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("t").setCount(count)
                    .setAssignments(null));
            CreatePartitionsResponseData answer = send(ApiKeys.CREATE_PARTITIONS, v, grow);
            assertThat(answer.results().get(0).errorCode()).as("CreatePartitions v%d to %d", v, count).isZero();
            assertThat(new Backend(broker).topics().get("t")).as("v%d", v).hasSize(count);
        }
        CreatePartitionsRequestData assigned = new CreatePartitionsRequestData().setTimeoutMs(1000);
        CreatePartitionsRequestData.CreatePartitionsTopic topic = new CreatePartitionsRequestData.CreatePartitionsTopic()
                .setName("t").setCount(count + 1);
        topic.setAssignments(new ArrayList<>(List.of(new CreatePartitionsRequestData.CreatePartitionsAssignment()
                .setBrokerIds(List.of(2)))));
        assigned.topics().add(topic);
        CreatePartitionsResponseData answer = send(ApiKeys.CREATE_PARTITIONS, (short) 3, assigned);
        assertThat(Errors.forCode(answer.results().get(0).errorCode())).as("a new partition on broker 2")
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    }

    @Test
    void deleteRecordsAtEveryVersion() throws Exception {
        broker.partition("t-0");
        for (short v : versions(ApiKey.DELETE_RECORDS)) {
            DeleteRecordsRequestData delete = new DeleteRecordsRequestData().setTimeoutMs(1000);
            DeleteRecordsRequestData.DeleteRecordsTopic topic = new DeleteRecordsRequestData.DeleteRecordsTopic().setName("t");
            topic.partitions().add(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(0));
            topic.partitions().add(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(1));
            topic.partitions().add(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(9).setOffset(0));
            delete.topics().add(topic);
            DeleteRecordsRequestData.DeleteRecordsTopic internal =
                    new DeleteRecordsRequestData.DeleteRecordsTopic().setName("__consumer_offsets");
            internal.partitions().add(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(0));
            delete.topics().add(internal);
            DeleteRecordsResponseData answer = send(ApiKeys.DELETE_RECORDS, v, delete);
            var partitions = new ArrayList<>(answer.topics().find("t").partitions());
            assertThat(partitions.get(0)).as("DeleteRecords v%d: offset 0 of an empty partition", v)
                    .extracting(p -> p.errorCode(), p -> p.lowWatermark()).containsExactly((short) 0, 0L);
            assertThat(Errors.forCode(partitions.get(1).errorCode())).as("v%d: past the high watermark 0", v)
                    .isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
            assertThat(partitions.get(1).lowWatermark()).isEqualTo(-1);
            assertThat(Errors.forCode(partitions.get(2).errorCode())).as("v%d: a partition that does not exist", v)
                    .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
            assertThat(Errors.forCode(answer.topics().find("__consumer_offsets").partitions().iterator().next()
                    .errorCode())).as("v%d: the broker's own topic", v).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
        }
    }

    @Test
    void describeLogDirsAtEveryVersion() throws Exception {
        for (short v : versions(ApiKey.DESCRIBE_LOG_DIRS)) {
            DescribeLogDirsRequestData all = new DescribeLogDirsRequestData().setTopics(null);
            DescribeLogDirsResponseData answer = send(ApiKeys.DESCRIBE_LOG_DIRS, v, all);
            assertThat(answer.results()).as("DescribeLogDirs v%d: one directory", v).hasSize(1);
            var logDir = answer.results().get(0);
            assertThat(logDir.logDir()).isEqualTo(dir.resolve("data").toAbsolutePath().toString());
            assertThat(logDir.topics()).as("v%d: topic t, partitions 0 and 1", v).hasSize(1);
            assertThat(logDir.topics().get(0).partitions()).hasSize(2);
            if (v >= 4) {
                assertThat(logDir.totalBytes()).as("v%d: the volume's size", v).isPositive();
            }
            DescribeLogDirsRequestData some = new DescribeLogDirsRequestData();
            some.topics().add(new DescribeLogDirsRequestData.DescribableLogDirTopic().setTopic("t")
                    .setPartitions(List.of(1, 1, 7)));
            some.topics().add(new DescribeLogDirsRequestData.DescribableLogDirTopic().setTopic("nobody")
                    .setPartitions(List.of(0)));
            var named = ((DescribeLogDirsResponseData) send(ApiKeys.DESCRIBE_LOG_DIRS, v, some)).results().get(0);
            assertThat(named.topics()).as("v%d: only what exists, each once", v).hasSize(1);
            assertThat(named.topics().get(0).partitions()).extracting(p -> p.partitionIndex()).containsExactly(1);
        }
    }

    @Test
    void aRequestDescribesAtMostMaxPartitionsResources() throws Exception {
        DescribeConfigsRequestData describe = new DescribeConfigsRequestData();
        for (int i = 0; i < 25; i++) {
            describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource()
                    .setResourceType((byte) 2).setResourceName("t").setConfigurationKeys(null));
        }
        DescribeConfigsResponseData answer = send(ApiKeys.DESCRIBE_CONFIGS, (short) 4, describe);
        assertThat(answer.results()).hasSize(25);
        assertThat(answer.results().subList(0, 20)).as("the first max.partitions (20) are described")
                .allSatisfy(r -> assertThat(r.configs()).isNotEmpty());
        assertThat(answer.results().subList(20, 25)).as("the rest are refused, without configs")
                .allSatisfy(r -> {
                    assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.INVALID_REQUEST);
                    assertThat(r.configs()).isEmpty();
                });
    }

    @Test
    void theHonouredTopicConfigsAreKafkasWithKafkasBrokerSynonyms() {
        assertThat(TopicConfigs.KAFKA_NAMES).as("every topic config name Kafka 4.1.1 knows")
                .isEqualTo(Set.copyOf(LogConfig.configNames()));
        TopicConfigs.HONOURED.forEach((name, honoured) -> {
            assertThat(ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS.get(name)).as("Kafka's broker name of %s", name)
                    .isEqualTo(honoured.brokerName());
            assertThat(DescribeConfigsResponse.ConfigType.forId(honoured.type()).name()).as("Kafka's type of %s", name)
                    .isEqualTo(LogConfig.configType(name).orElseThrow().name());
            assertThat(PartitionConfigs.load().brokerWideEntry(name).value()).as("Kafka's default of %s", name)
                    .isEqualTo(name.equals("cleanup.policy") ? "delete" : String.valueOf(
                            LogConfig.configDefCopy().configKeys().get(name).defaultValue));
        });
    }
}
