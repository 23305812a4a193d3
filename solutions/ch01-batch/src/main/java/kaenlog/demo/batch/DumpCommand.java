package kaenlog.demo.batch;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.Compression;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.FileBatches;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.cli.Flags;
import kaenlog.cli.Klog;
import kaenlog.cli.Subcommand;
import kaenlog.cli.UsageException;

/**
 * {@code klog dump FILE...}: every batch and record of segment files, in the shape of Kafka's
 * {@code kafka-dump-log.sh --print-data-log}. A corrupt or truncated file gets one error line
 * naming the file, the byte position and the problem; the remaining files are still dumped and
 * the exit status is 1.
 */
public final class DumpCommand implements Subcommand {
    @Override
    public String name() {
        return "dump";
    }

    @Override
    public String usage() {
        return "FILE...";
    }

    @Override
    public String summary() {
        return "print every batch and record of segment files (like kafka-dump-log)";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        List<String> files = Flags.parse(args, Set.of(), Set.of()).positional();
        if (files.isEmpty()) {
            throw new UsageException("name at least one segment file");
        }
        int status = Klog.OK;
        for (String file : files) {
            if (!dump(Path.of(file), out, err)) {
                status = Klog.FAILED;
            }
        }
        return status;
    }

    /** Dumps one file; false (after one error line) when it is unreadable or corrupt. */
    static boolean dump(Path file, PrintStream out, PrintStream err) {
        out.println("Dumping " + file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            long position = 0;
            while (position < size) {
                ByteBuffer bytes;
                RecordBatch batch;
                try {
                    bytes = FileBatches.readAt(channel, position, size);
                    batch = RecordBatch.decode(bytes.duplicate());
                } catch (CorruptBatchException e) {
                    err.println("klog dump: " + file + ": byte " + (position + e.position()) + " (batch at byte "
                            + position + "): " + e.getMessage());
                    return false;
                }
                printBatch(batch, position, out);
                position += bytes.remaining();
            }
            return true;
        } catch (NoSuchFileException e) {
            err.println("klog dump: " + file + ": no such file");
        } catch (IOException e) {
            err.println("klog dump: " + file + ": " + e.getMessage());
        }
        return false;
    }

    static void printBatch(RecordBatch batch, long position, PrintStream out) {
        BatchHeader h = batch.header();
        out.println("baseOffset: " + h.baseOffset() + " lastOffset: " + h.lastOffset() + " count: " + h.recordCount()
                + " baseSequence: " + h.baseSequence() + " lastSequence: " + h.lastSequence()
                + " producerId: " + h.producerId() + " producerEpoch: " + h.producerEpoch()
                + " partitionLeaderEpoch: " + h.partitionLeaderEpoch() + " isTransactional: " + h.isTransactional()
                + " isControl: " + h.isControl() + " position: " + position + " CreateTime: " + h.maxTimestamp()
                + " size: " + h.sizeInBytes() + " magic: " + h.magic() + " compresscodec: "
                + Compression.of(h).displayName() + " crc: "
                + h.crcUnsigned() + " isvalid: true");
        for (Record r : batch.records()) {
            int sequence = h.baseSequence() == BatchHeader.NO_SEQUENCE ? BatchHeader.NO_SEQUENCE
                    : BatchHeader.incrementSequence(h.baseSequence(), (int) (r.offset() - h.baseOffset()));
            String headerKeys = r.headers().stream().map(x -> x.key()).collect(Collectors.joining(",", "[", "]"));
            out.println("| offset: " + r.offset() + " CreateTime: " + r.timestamp()
                    + " keySize: " + (r.key() == null ? -1 : r.key().length)
                    + " valueSize: " + (r.value() == null ? -1 : r.value().length)
                    + " sequence: " + sequence + " headerKeys: " + headerKeys
                    + " key: " + Record.show(r.key()) + " payload: " + Record.show(r.value()));
        }
    }
}
