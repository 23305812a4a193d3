package kaenlog.groups;

import kaenlog.workbook.Todo;

/**
 * When a committed offset expires: {@code offsets.retention.minutes} (Kafka's default 10080, seven
 * days) after its clock started, and what starts the clock depends on the group
 * ({@link GroupActivity}; Kafka 4.1's {@code ClassicGroup.offsetExpirationCondition}, and 3.9's
 * {@code GroupMetadata.removeExpiredOffsets} before it):
 * <ul>
 * <li>a standalone group: the offset's own commit ({@code commitTimestamp});</li>
 * <li>a group that became Empty: the moment it did, for every offset it has, whenever it committed;</li>
 * <li>a group with members: never.</li>
 * </ul>
 * Expired means {@code now - start >= retention} ({@code OffsetExpirationConditionImpl.isOffsetExpired}):
 * at exactly the retention, the offset is gone.
 */
public final class OffsetExpiry {
    /** Kafka's offsets.retention.minutes: 7 days (KIP-186; 1 day before Kafka 2.0). */
    public static final long DEFAULT_RETENTION_MINUTES = 10_080;

    private OffsetExpiry() {
    }

    public static boolean isExpired(OffsetCommitValue offset, GroupActivity group, long nowMs, long retentionMs) {
        throw new Todo("ch06 task 6: an offset expires retention after its clock started (GroupOffsetsLogTest)");
    }
}
