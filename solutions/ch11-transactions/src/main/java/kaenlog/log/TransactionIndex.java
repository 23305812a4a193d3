package kaenlog.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A segment's aborted transactions index, {@code <baseOffset>.txnindex} (Kafka's
 * {@code TransactionIndex}): one {@link AbortedTxn} per ABORT marker the segment holds, in the order
 * the markers were written. A transaction may begin in an earlier segment; its entry is where its
 * marker is. The file is made at the first entry (a segment without an aborted transaction has none,
 * as in Kafka); the entries are also kept in memory, where a read_committed fetch reads them.
 */
public final class TransactionIndex {
    private final Path file;
    private final List<AbortedTxn> entries = new ArrayList<>();

    private TransactionIndex(Path file) {
        this.file = file;
    }

    /** An index with no entry, its file removed if one was there: the entries are appended again (a rebuild). */
    public static TransactionIndex empty(Path file) throws IOException {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new StorageException(file, e);
        }
        return new TransactionIndex(file);
    }

    /** What an index can answer a fetch: the entries found, and whether later segments need not be asked. */
    public record Search(List<AbortedTxn> found, boolean complete) {
    }

    /**
     * Adds an entry, written to the file before it is kept: each entry's last offset (its marker's)
     * must be above the one before, as markers are written in offset order (Kafka: "The last offset
     * of appended transactions must increase sequentially"); anything else is refused with an
     * {@link IllegalArgumentException} and nothing is written.
     */
    public void append(AbortedTxn txn) throws IOException {
        // BEGIN-SOLUTION ch11 task 9: entries in marker order, written before kept (TransactionIndexTest)
        if (!entries.isEmpty() && entries.get(entries.size() - 1).lastOffset() >= txn.lastOffset()) {
            throw new IllegalArgumentException("the last offset of appended transactions must increase: "
                    + txn.lastOffset() + " is not above " + entries.get(entries.size() - 1).lastOffset() + " in "
                    + file.getFileName());
        }
        ByteBuffer bytes = ByteBuffer.allocate(AbortedTxn.SIZE);
        txn.writeTo(bytes);
        write(bytes.flip());
        entries.add(txn);
        // END-SOLUTION
    }

    /**
     * The entries a fetch of {@code [fetchOffset, upperBoundOffset)} must be told of: those that
     * overlap it (their marker at or after the fetch offset, their first offset below the bound), in
     * order. The search is complete, and no later segment is asked, at the first entry whose last
     * stable offset reached the bound: every transaction aborted after it began at or after that
     * offset (Kafka's {@code TransactionIndex.collectAbortedTxns}).
     */
    public Search collect(long fetchOffset, long upperBoundOffset) {
        // BEGIN-SOLUTION ch11 task 10: the aborted transactions that overlap a fetch (ReadCommittedTest)
        List<AbortedTxn> found = new ArrayList<>();
        for (AbortedTxn txn : entries) {
            if (txn.lastOffset() >= fetchOffset && txn.firstOffset() < upperBoundOffset) {
                found.add(txn);
            }
            if (txn.lastStableOffset() >= upperBoundOffset) {
                return new Search(found, true);
            }
        }
        return new Search(found, false);
        // END-SOLUTION
    }

    /** Every entry, in the order written. */
    public List<AbortedTxn> entries() {
        return List.copyOf(entries);
    }

    public Path file() {
        return file;
    }

    /**
     * Every entry a {@code .txnindex} file holds, in order (none when there is no file); bytes after
     * the last whole entry are left out, as Kafka's reader leaves them.
     */
    public static List<AbortedTxn> read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        List<AbortedTxn> entries = new ArrayList<>();
        while (bytes.remaining() >= AbortedTxn.SIZE) {
            entries.add(AbortedTxn.readFrom(bytes));
        }
        return entries;
    }

    /** Appends the bytes at the file's end, creating it at the first entry; a failure is a storage error. */
    private void write(ByteBuffer bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        } catch (IOException e) {
            throw new StorageException(file, e);
        }
    }
}
