package kaenlog.log;

/** Where an append landed: the offsets the leader assigned to the batch. */
public record AppendInfo(long firstOffset, long lastOffset, int recordCount) {
}
