package kaenlog.cluster;

/**
 * A value read from a znode with the znode's version at that read: the version a conditional write
 * must name ({@code setData(path, data, zkVersion)}) so that it lands only if nobody wrote in
 * between. For a partition's state znode it is Kafka's partition epoch.
 */
public record Versioned<T>(T value, int zkVersion) {
}
