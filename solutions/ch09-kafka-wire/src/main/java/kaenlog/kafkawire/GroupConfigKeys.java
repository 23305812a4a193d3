package kaenlog.kafkawire;

import java.util.List;
import kaenlog.broker.BrokerExtension;
import kaenlog.broker.ConfigKey;

/**
 * The group coordinator's broker configs, with Kafka's names and defaults where Kafka has them
 * ({@code GroupCoordinatorConfig}): the session timeouts a member may ask for, how long the first
 * rebalance of an empty group waits for more members, and how many members a group may have
 * ({@code group.max.size}: Kafka's default is Integer.MAX_VALUE, kaen-log's 1000, since every
 * member's metadata is held in memory). {@value #MAX_GROUPS} is kaen-log's own: Kafka does not bound
 * the number of groups, and a client that joins a new group name per request would fill the heap;
 * {@value #MAX_HELD_BYTES} (16 MiB) too: every group id, member id, subscription and assignment is held
 * in memory, and a DescribeGroups answer holds what the groups it names hold. The committed offsets
 * and their retention are chapter 6's coordinator's ({@code offsets.retention.minutes}).
 */
public final class GroupConfigKeys implements BrokerExtension {
    public static final String MIN_SESSION_TIMEOUT_MS = "group.min.session.timeout.ms";
    public static final String MAX_SESSION_TIMEOUT_MS = "group.max.session.timeout.ms";
    public static final String INITIAL_REBALANCE_DELAY_MS = "group.initial.rebalance.delay.ms";
    public static final String MAX_SIZE = "group.max.size";
    public static final String MAX_GROUPS = "max.groups";
    public static final String MAX_HELD_BYTES = "max.group.bytes";

    @Override
    public List<ConfigKey> configKeys() {
        return List.of(
                ConfigKey.whole(MIN_SESSION_TIMEOUT_MS, 6_000, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 9,
                        "the shortest session timeout a group member may ask for (Kafka's default 6000)"),
                ConfigKey.whole(MAX_SESSION_TIMEOUT_MS, 1_800_000, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 9,
                        "the longest session timeout a group member may ask for (Kafka's default 1800000)"),
                ConfigKey.whole(INITIAL_REBALANCE_DELAY_MS, 3_000, 0, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 9,
                        "how long the first rebalance of an empty group waits for more members (Kafka's default 3000)"),
                ConfigKey.whole(MAX_SIZE, 1_000, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 9,
                        "members per group (Kafka's default is Integer.MAX_VALUE; kaen-log holds them in memory)"),
                ConfigKey.whole(MAX_GROUPS, 10_000, 1, Integer.MAX_VALUE, ConfigKey.Scope.BROKER, 9,
                        "groups the coordinator keeps (kaen-log's own bound: Kafka has none)"),
                ConfigKey.whole(MAX_HELD_BYTES, 16L * 1024 * 1024, 1024, Long.MAX_VALUE, ConfigKey.Scope.BROKER, 9,
                        "bytes of group ids, member ids, metadata and assignments all groups hold together"
                                + " (kaen-log's own bound)"));
    }
}
