package kaenlog.groups;

/** A group's committed offset as read back from the log, and the log offset of the record that holds it. */
public record CommittedOffset(long logOffset, OffsetCommitValue value) {
}
