package kaenlog.kafkawire;

import java.util.ArrayList;
import java.util.List;

/**
 * IncrementalAlterConfigs (key 44), v0..v1 (flexible from v1; kafka-clients 4.1.1's
 * {@code incrementalAlterConfigs}, and {@code kafka-configs --alter --add-config / --delete-config}).
 * Request: resources [resource_type int8 · resource_name · configs [name · config_operation int8 · value
 * nullable]] · validate_only. Response: AlterConfigs' layout. Each config is one operation on the topic's
 * own configs: SET (0), DELETE (1: the broker's value applies again), APPEND (2) and SUBTRACT (3) on a
 * list ({@code cleanup.policy}); answered by {@link AlterConfigs#answer}, the same checks in the same order.
 */
public final class IncrementalAlterConfigs {
    private IncrementalAlterConfigs() {
    }

    public static AlterConfigs.Request parse(KafkaReader in, short version) {
        boolean flexible = ApiKey.INCREMENTAL_ALTER_CONFIGS.isFlexible(version);
        int count = CreateTopics.length(in, flexible, "resources");
        List<AlterConfigs.Resource> resources = new ArrayList<>();
        for (int r = 0; r < count; r++) {
            byte type = in.int8("resource_type");
            String name = CreateTopics.string(in, flexible, "resource_name");
            int configCount = CreateTopics.length(in, flexible, "configs");
            List<AlterConfigs.Config> configs = new ArrayList<>();
            for (int c = 0; c < configCount; c++) {
                String configName = CreateTopics.string(in, flexible, "configs.name");
                byte operation = in.int8("configs.config_operation");
                String value = flexible ? in.compactNullableString("configs.value") : in.nullableString("configs.value");
                CreateTopics.tags(in, flexible, "config");
                configs.add(new AlterConfigs.Config(configName, operation, value));
            }
            CreateTopics.tags(in, flexible, "resource");
            resources.add(new AlterConfigs.Resource(type, name, configs));
        }
        boolean validateOnly = in.bool("validate_only");
        CreateTopics.tags(in, flexible, "IncrementalAlterConfigs request");
        in.end("IncrementalAlterConfigs v" + version + " request");
        return new AlterConfigs.Request(resources, validateOnly);
    }
}
