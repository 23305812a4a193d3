package kaenlog.batch;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import com.github.luben.zstd.ZstdDirectBufferDecompressingStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyOutputStream;

/**
 * A compressed record set: what attribute bits 0-2 of a batch say about the bytes after its
 * 61-byte header. Kafka compresses all the records of a batch as ONE stream (DefaultRecordBatch);
 * the header stays plain, batchLength counts the compressed bytes and the CRC covers them, so a
 * broker checks a batch's CRC without inflating it, and assigning offsets (baseOffset, outside the
 * CRC) still touches no compressed byte.
 *
 * <p>Each codec is framed as kafka-clients frames it ({@code org.apache.kafka.common.compress}):
 * gzip is a gzip member (java.util.zip); snappy is xerial snappy-java's stream framing
 * ({@code SnappyOutputStream}, 32 KiB blocks); lz4 is the LZ4 frame format with independent 64 KiB
 * blocks and no checksums (Kafka's own {@code Lz4BlockOutputStream}); zstd is a zstd frame
 * (zstd-jni). The libraries are the ones, at the versions, kafka-clients 4.1.1 depends on. Snappy
 * is read in both framings Kafka reads (snappy-java's {@code SnappyInputStream}): xerial's, and one
 * raw snappy block, which is how librdkafka (kcat) and the other C clients compress.
 *
 * <p>Inflating is bounded: the records of one batch may inflate to at most {@link #MAX_INFLATED_BYTES}
 * (Kafka's {@code message.max.bytes} default, the largest batch a broker takes uncompressed). A
 * batch that inflates further, a zip bomb included, is a {@link CorruptBatchException} naming the
 * codec, and no more than the limit is ever held in memory.
 */
public enum Compression {
    NONE(0, "none"),
    GZIP(1, "gzip"),
    SNAPPY(2, "snappy"),
    LZ4(3, "lz4"),
    ZSTD(4, "zstd");

    /** Kafka's message.max.bytes default (1 MiB + 12): the most the records of one batch may inflate to. */
    public static final int MAX_INFLATED_BYTES = 1_048_588;

    /** xerial's stream header: magic, then version 1 and compatible version 1 (SnappyCodec). */
    private static final byte[] SNAPPY_MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    private static final int SNAPPY_HEADER = SNAPPY_MAGIC.length + 8;
    /** The magic's first four bytes read as a chunk length: another xerial stream starts there. */
    private static final int SNAPPY_MAGIC_HEAD = ByteBuffer.wrap(SNAPPY_MAGIC).getInt();
    /** kafka-clients' snappy block size (CompressionType.SNAPPY.defaultBlockSize()). */
    private static final int SNAPPY_BLOCK = 32 * 1024;

    private final int id;
    private final String displayName;

    Compression(int id, String displayName) {
        this.id = id;
        this.displayName = displayName;
    }

    /** The value of attribute bits 0-2. */
    public int id() {
        return id;
    }

    /** Kafka's name for it, as {@code compression.type} and DumpLogSegments' {@code compresscodec} spell it. */
    public String displayName() {
        return displayName;
    }

    /** The codec of attribute bits 0-2; 5, 6 and 7 are no codec of Kafka's: a corrupt batch. */
    public static Compression of(BatchHeader header) {
        return of(header.compressionCodec());
    }

    private static Compression of(int codec) {
        for (Compression c : values()) {
            if (c.id == codec) {
                return c;
            }
        }
        throw new CorruptBatchException("attributes", BatchHeader.ATTRIBUTES_OFFSET,
                "compression codec " + codec + " is none of Kafka's (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)");
    }

    /** The codec called {@code name} (none, gzip, snappy, lz4, zstd), as {@code compression.type} names it. */
    public static Compression named(String name) {
        for (Compression c : values()) {
            if (c.displayName.equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("no compression codec '" + name + "' (none, gzip, snappy, lz4, zstd)");
    }

    /**
     * The records of a batch, ready to be read from the buffer's position: the batch itself,
     * positioned after its header, when it is not compressed; otherwise a new buffer of the header
     * followed by the inflated records, positioned at 61, so that a record's position reads as if
     * the batch had been written plain. The batch must start at position 0 and its header must
     * already have been read (its CRC checked): this inflates only bytes the CRC vouched for.
     */
    public static ByteBuffer records(BatchHeader header, ByteBuffer batch) {
        Compression codec = of(header);
        if (codec == NONE) {
            return batch;
        }
        byte[] compressed = new byte[batch.limit() - BatchHeader.SIZE];
        batch.get(BatchHeader.SIZE, compressed);
        byte[] inflated;
        try {
            inflated = codec.inflate(compressed);
        } catch (IOException | RuntimeException e) {
            if (e instanceof CorruptBatchException corrupt) {
                throw corrupt;
            }
            throw new CorruptBatchException("records", BatchHeader.SIZE,
                    codec.displayName + " records do not decompress: " + e);
        }
        ByteBuffer out = ByteBuffer.allocate(BatchHeader.SIZE + inflated.length);
        out.put(batch.duplicate().position(0).limit(BatchHeader.SIZE)).put(inflated);
        return out.position(BatchHeader.SIZE);
    }

    /**
     * A plain batch (laid out with its records uncompressed, whatever its attributes say) turned
     * into what attribute bits 0-2 ask for: the records compressed as one stream, batchLength and
     * the CRC recomputed over the compressed bytes. A batch whose codec is none comes back as is.
     */
    public static ByteBuffer compress(ByteBuffer plain, Compression codec) {
        ByteBuffer marked = plain.duplicate();
        short attributes = marked.getShort(BatchHeader.ATTRIBUTES_OFFSET);
        marked.putShort(BatchHeader.ATTRIBUTES_OFFSET,
                (short) ((attributes & ~BatchHeader.COMPRESSION_CODEC_MASK) | codec.id));
        return compress(marked);
    }

    /** {@link #compress(ByteBuffer, Compression)} with the codec the batch's attributes already name. */
    public static ByteBuffer compress(ByteBuffer plain) {
        Compression codec = of(plain.getShort(BatchHeader.ATTRIBUTES_OFFSET) & BatchHeader.COMPRESSION_CODEC_MASK);
        if (codec == NONE) {
            return plain;
        }
        if (plain.limit() == BatchHeader.SIZE) {
            return emptyHeader(plain);
        }
        byte[] records = new byte[plain.limit() - BatchHeader.SIZE];
        plain.get(BatchHeader.SIZE, records);
        byte[] compressed;
        try {
            compressed = codec.deflate(records);
        } catch (IOException e) {
            throw new IllegalStateException(codec.displayName + " compression failed in memory", e);
        }
        ByteBuffer out = ByteBuffer.allocate(BatchHeader.SIZE + compressed.length);
        out.put(plain.duplicate().position(0).limit(BatchHeader.SIZE)).put(compressed).flip();
        out.putInt(BatchHeader.BATCH_LENGTH_OFFSET, out.limit() - BatchHeader.LOG_OVERHEAD);
        out.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(out));
        return out;
    }

    /**
     * A batch with no records (compaction removed them all) is written with codec none, whatever the
     * original's: Kafka's DefaultRecordBatch.writeEmptyHeader computes its attributes with
     * CompressionType.NONE, as there is nothing to compress.
     */
    private static ByteBuffer emptyHeader(ByteBuffer plain) {
        ByteBuffer out = ByteBuffer.allocate(BatchHeader.SIZE);
        out.put(plain.duplicate().position(0).limit(BatchHeader.SIZE)).flip();
        short attributes = out.getShort(BatchHeader.ATTRIBUTES_OFFSET);
        out.putShort(BatchHeader.ATTRIBUTES_OFFSET, (short) (attributes & ~BatchHeader.COMPRESSION_CODEC_MASK));
        out.putInt(BatchHeader.CRC_OFFSET, BatchCrc.compute(out));
        return out;
    }

    private byte[] deflate(byte[] records) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(records.length / 2 + 64);
        try (OutputStream out = wrapForOutput(bytes)) {
            out.write(records);
        }
        return bytes.toByteArray();
    }

    private OutputStream wrapForOutput(OutputStream bytes) throws IOException {
        return switch (this) {
            // kafka-clients' GzipCompression: an 8 KiB buffer, the default level
            case GZIP -> new GZIPOutputStream(bytes, 8 * 1024);
            case SNAPPY -> new SnappyOutputStream(bytes, SNAPPY_BLOCK);
            // Kafka's Lz4BlockOutputStream writes this frame: FLG version 1 with independent blocks,
            // BD 64 KiB, no block or content checksum, no content size
            case LZ4 -> new LZ4FrameOutputStream(bytes, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB,
                    LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE);
            // kafka-clients' ZstdCompression: level 3 (zstd's default)
            case ZSTD -> new ZstdOutputStreamNoFinalizer(bytes, 3);
            case NONE -> throw new IllegalStateException("none is not compressed");
        };
    }

    private byte[] inflate(byte[] compressed) throws IOException {
        checkMagic(compressed);
        if (this == SNAPPY) {
            return inflateSnappy(compressed);
        }
        if (this == ZSTD) {
            return inflateZstd(compressed);
        }
        try (InputStream in = wrapForInput(new ByteArrayInputStream(compressed))) {
            return readBounded(in, compressed.length);
        }
    }

    /**
     * Each codec's stream starts with a magic number; checking it first means bytes that are no
     * stream of the codec at all are refused before any decoder allocates its buffers.
     */
    private void checkMagic(byte[] compressed) {
        ByteBuffer in = ByteBuffer.wrap(compressed);
        boolean ok = switch (this) {
            case GZIP -> in.remaining() >= 2 && (in.getShort(0) & 0xffff) == 0x1f8b;
            // xerial's framing starts with its magic, a raw snappy block with its length (a varint):
            // either way at least one byte
            case SNAPPY -> in.hasRemaining();
            case LZ4 -> in.remaining() >= 4 && Integer.reverseBytes(in.getInt(0)) == 0x184D2204;
            case ZSTD -> in.remaining() >= 4 && Integer.reverseBytes(in.getInt(0)) == 0xFD2FB528;
            case NONE -> true;
        };
        if (!ok) {
            throw new CorruptBatchException("records", BatchHeader.SIZE,
                    displayName + " records do not start with the " + displayName + " magic number");
        }
    }

    private InputStream wrapForInput(InputStream compressed) throws IOException {
        return switch (this) {
            case GZIP -> new GZIPInputStream(compressed, 4 * 1024);
            case LZ4 -> new LZ4FrameInputStream(compressed);
            case NONE, SNAPPY, ZSTD -> throw new IllegalStateException(displayName + " has no stream here");
        };
    }

    /**
     * zstd through zstd-jni's direct-buffer stream: its InputStream allocates a 128 KiB buffer on the
     * heap before reading a byte, this one reads from the compressed bytes and into a small chunk.
     */
    private byte[] inflateZstd(byte[] compressed) throws IOException {
        ByteBuffer source = ByteBuffer.allocateDirect(compressed.length).put(compressed).flip();
        ByteBuffer chunk = ByteBuffer.allocateDirect(4 * 1024);
        byte[] copy = new byte[chunk.capacity()];
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(compressed.length * 4, 64 * 1024));
        try (ZstdDirectBufferDecompressingStreamNoFinalizer in = new ZstdDirectBufferDecompressingStreamNoFinalizer(source)) {
            while (in.hasRemaining()) {
                chunk.clear();
                int n = in.read(chunk);
                if (out.size() + n > MAX_INFLATED_BYTES) {
                    throw tooLarge(out.size() + (long) n);
                }
                chunk.flip().get(copy, 0, n);
                out.write(copy, 0, n);
            }
        }
        return out.toByteArray();
    }

    /** Reads a stream to its end, but never more than the limit: the zip-bomb guard. */
    private byte[] readBounded(InputStream in, int compressedLength) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(compressedLength * 4, 64 * 1024));
        byte[] chunk = new byte[4 * 1024];
        int n;
        while ((n = in.read(chunk)) >= 0) {
            if (out.size() + n > MAX_INFLATED_BYTES) {
                throw tooLarge(out.size() + (long) n);
            }
            out.write(chunk, 0, n);
        }
        return out.toByteArray();
    }

    /**
     * Snappy as Kafka reads it: kafka-clients' SnappyCompression hands the bytes to snappy-java's
     * SnappyInputStream (1.1.10.7), which takes two framings. Bytes that start with xerial's 16-byte
     * header are its stream (what kafka-clients' SnappyOutputStream writes): chunks of a 4-byte length
     * and a raw snappy block, where a chunk length equal to the magic's first four bytes starts the
     * next of several streams written one after the other. Anything else, and anything shorter than
     * that header, is ONE raw snappy block: what librdkafka (kcat) and the other C clients send, and
     * what Kafka then keeps in its segments.
     *
     * <p>Read here rather than by SnappyInputStream, which allocates whatever a chunk's length (4
     * bytes) and its snappy preamble (a varint) claim before it checks them: every size is checked
     * before anything is allocated.
     */
    private byte[] inflateSnappy(byte[] compressed) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(compressed.length * 4, 64 * 1024));
        if (!startsWithSnappyMagic(compressed, 0)) {
            inflateSnappyBlock(compressed, BatchHeader.SIZE, out);
            return out.toByteArray();
        }
        ByteBuffer in = ByteBuffer.wrap(compressed).position(SNAPPY_HEADER);
        // fewer than 4 bytes left end the stream, as they end SnappyInputStream's (it reads no length)
        while (in.remaining() >= 4) {
            int at = BatchHeader.SIZE + in.position();
            int length = in.getInt();
            if (length == SNAPPY_MAGIC_HEAD) {
                if (!nextSnappyStream(in, at)) {
                    break;
                }
                continue;
            }
            if (length < 0 || length > in.remaining()) {
                throw new CorruptBatchException("records", at, "snappy chunk of " + length
                        + " byte(s) but " + in.remaining() + " follow");
            }
            byte[] chunk = new byte[length];
            in.get(chunk);
            inflateSnappyBlock(chunk, at + 4, out);
        }
        return out.toByteArray();
    }

    /** A whole xerial header at {@code offset}: the stream is xerial's framing, not a raw block. */
    private static boolean startsWithSnappyMagic(byte[] bytes, int offset) {
        return bytes.length - offset >= SNAPPY_HEADER
                && Arrays.equals(bytes, offset, offset + SNAPPY_MAGIC.length, SNAPPY_MAGIC, 0, SNAPPY_MAGIC.length);
    }

    /**
     * A chunk length that reads as the magic's head: another xerial header, skipped when whole and
     * of version 1 or later. One whose magic goes on differently ends the stream there, as in
     * SnappyInputStream (false); a truncated one or one of version 0 is corrupt, as there.
     */
    private static boolean nextSnappyStream(ByteBuffer in, int at) {
        int headerStart = in.position() - 4;
        if (in.limit() - headerStart < SNAPPY_HEADER) {
            throw new CorruptBatchException("records", at, "a second snappy stream's header is truncated: "
                    + (in.limit() - headerStart) + " of its " + SNAPPY_HEADER + " bytes");
        }
        if (!startsWithSnappyMagic(in.array(), headerStart)) {
            return false;
        }
        int version = in.getInt(headerStart + SNAPPY_MAGIC.length);
        if (version < 1) {
            throw new CorruptBatchException("records", at, "a second snappy stream of version " + version
                    + ": xerial's framing starts at version 1");
        }
        in.position(headerStart + SNAPPY_HEADER);
        return true;
    }

    /** One raw snappy block, its claimed size checked against the limit before its buffer exists. */
    private void inflateSnappyBlock(byte[] block, int at, ByteArrayOutputStream out) throws IOException {
        long size = Integer.toUnsignedLong(Snappy.uncompressedLength(block));
        if (out.size() + size > MAX_INFLATED_BYTES) {
            throw tooLarge(out.size() + size);
        }
        // snappy's densest element is a 3-byte copy of 64 bytes: a block claiming more than
        // about 22 bytes per compressed byte is lying, and is refused before its buffer exists
        if (size > 22L * block.length + 64) {
            throw new CorruptBatchException("records", at, "snappy block of " + block.length
                    + " byte(s) claims " + size + " uncompressed, more than snappy can encode in it");
        }
        out.write(Snappy.uncompress(block));
    }

    private CorruptBatchException tooLarge(long atLeast) {
        return new CorruptBatchException("records", BatchHeader.SIZE, displayName + " records inflate to at least "
                + atLeast + " bytes, past the limit of " + MAX_INFLATED_BYTES
                + " (message.max.bytes): a zip bomb or a corrupt stream");
    }
}
