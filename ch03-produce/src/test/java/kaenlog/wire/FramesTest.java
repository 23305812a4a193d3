package kaenlog.wire;

import static kaenlog.log.LogFixtures.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import kaenlog.testkit.Hex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import org.apache.kafka.common.network.ByteBufferSend;
import org.apache.kafka.common.network.InvalidReceiveException;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.TransferableChannel;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Task 6: frames. Every request and response travels as an int32 length, then that many bytes (as
 * in Kafka's protocol). The length arrives from the other end of a socket, so it is untrusted: it
 * is checked before a buffer of that size exists (a negative length, or one above the maximum,
 * Kafka's socket.request.max.bytes), and a frame that stops in the middle is an error, not a short
 * read. The messages inside are decoded just as carefully: a message that is cut short or has bytes
 * left over is a MalformedMessageException, never an index exception.
 */
@Order(6)
class FramesTest {
    private static final int MAX = Frames.DEFAULT_MAX_FRAME_BYTES;
    private static final String PARTITION = "orders-0";

    @Test
    void aFrameIsAFourByteBigEndianLengthThenThePayload() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Frames.writeFrame(out, new byte[] {7, 8, 9});
        Frames.writeFrame(out, new byte[0]);
        Frames.writeFrame(out, new byte[300]);

        byte[] wire = out.toByteArray();
        byte[] expectedStart = {0, 0, 0, 3, 7, 8, 9, 0, 0, 0, 0, 0, 0, 1, 0x2c};
        byte[] start = Arrays.copyOf(wire, expectedStart.length);
        assertThat(start)
                .as("int32 length 3 (big-endian), the 3 payload bytes; length 0 and no payload; length 300 = 0x012c%n%s",
                        Hex.firstDifference(expectedStart, start, i -> i < 4 ? "length" : "payload"))
                .isEqualTo(expectedStart);
        assertThat(wire.length).as("4 + 3, 4 + 0, 4 + 300 bytes: nothing else on the wire").isEqualTo(315);
    }

    /**
     * A socket's stream is buffered (the broker and the client both wrap it in a
     * BufferedOutputStream): a frame that is written but not flushed stays in the buffer, and the
     * peer waits for an answer that never leaves this process.
     */
    @Test
    void aFrameIsFlushedSoABufferedStreamSendsItAtOnce() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        BufferedOutputStream socket = new BufferedOutputStream(wire, 8192);

        Frames.writeFrame(socket, new byte[] {1, 2, 3});

        assertThat(wire.size())
                .as("after writeFrame the 7 bytes of a 3-byte frame are on the wire, not in the stream's 8 KiB"
                        + " buffer: writeFrame ends with out.flush(), or the peer waits for a frame that is never"
                        + " sent (over TCP: a broker or client that hangs)")
                .isEqualTo(7);
    }

    @Test
    void framesReadBackOneByOneInOrderAndThenTheCleanEndIsNull() throws IOException {
        byte[] big = new byte[70_000];
        new Random(6).nextBytes(big);
        List<byte[]> payloads = List.of(new byte[] {1}, new byte[0], big, "last".getBytes());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] payload : payloads) {
            Frames.writeFrame(out, payload);
        }
        InputStream in = new ByteArrayInputStream(out.toByteArray());

        for (int i = 0; i < payloads.size(); i++) {
            assertThat(Frames.readFrame(in, MAX))
                    .as("frame %d comes back whole and in order; reading one frame must not swallow bytes of the next",
                            i)
                    .isEqualTo(payloads.get(i));
        }
        assertThat(Frames.readFrame(in, MAX))
                .as("the stream ends cleanly between frames (the peer hung up): null, not an exception")
                .isNull();
    }

    @Test
    void anEmptyStreamIsACleanEnd() throws IOException {
        assertThat(Frames.readFrame(new ByteArrayInputStream(new byte[0]), MAX))
                .as("no byte at all before a new frame: the peer closed the connection, readFrame answers null")
                .isNull();
    }

    @Test
    void aNegativeLengthIsRefused() {
        for (byte[] length : List.of(new byte[] {-1, -1, -1, -1}, new byte[] {(byte) 0x80, 0, 0, 0})) {
            int value = ByteBuffer.wrap(length).getInt();
            assertThatCode(() -> Frames.readFrame(stream(length, new byte[16]), MAX))
                    .as("length %d is negative: no frame has a negative size, MalformedMessageException naming it", value)
                    .isInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining(String.valueOf(value));
        }
    }

    @Test
    void aLengthOverTheMaximumIsRefusedAndTheMaximumItselfIsAccepted() throws IOException {
        byte[] sixteen = new byte[16];
        Arrays.fill(sixteen, (byte) 5);
        assertThatCode(() -> Frames.readFrame(stream(lengthOf(16), sixteen), 16))
                .as("a frame of exactly the maximum (16) is allowed: only a length OVER the maximum is refused"
                        + " (length > max, not >=)")
                .doesNotThrowAnyException();
        assertThat(Frames.readFrame(stream(lengthOf(16), sixteen), 16))
                .as("a frame of exactly the maximum (16) is allowed")
                .isEqualTo(sixteen);
        assertThatCode(() -> Frames.readFrame(stream(lengthOf(17), new byte[17]), 16))
                .as("length 17 with a maximum of 16: refused with MalformedMessageException naming the length"
                        + " (Kafka's socket.request.max.bytes check)")
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("17");
    }

    @Test
    void aTwoGigabyteLengthIsRefusedBeforeAnyBufferOfThatSizeExists() {
        CountingStream in = new CountingStream(stream(lengthOf(Integer.MAX_VALUE), new byte[1_000]));

        assertThatCode(() -> Frames.readFrame(in, MAX))
                .as("length 0x7fffffff (2 GiB) with a 1 MiB maximum: the length is checked before allocating, so the"
                        + " answer is MalformedMessageException, never an OutOfMemoryError that a hostile client could"
                        + " trigger with four bytes")
                .isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining(String.valueOf(Integer.MAX_VALUE));
        assertThat(in.count)
                .as("only the 4 bytes of the length were read: a refused frame's payload is never consumed")
                .isEqualTo(4);
    }

    @Test
    void aFrameCutInTheMiddleIsAnEOFException() {
        assertThatCode(() -> Frames.readFrame(stream(lengthOf(10), new byte[4]), MAX))
                .as("length 10 but the stream ends after 4 payload bytes: EOFException, not a short payload")
                .isInstanceOf(EOFException.class);
        assertThatCode(() -> Frames.readFrame(stream(new byte[] {0, 0}, new byte[0]), MAX))
                .as("the stream ends inside the 4-byte length: EOFException, not a clean end (a frame had begun)")
                .isInstanceOf(EOFException.class);
    }

    /** One message type: a sample, its encoding and its decoder. */
    private record Message(String name, Object sample, byte[] encoded, Function<byte[], Object> decoder) {
    }

    private static List<Message> messages() {
        ByteBuffer records = batch("m", 3);
        ProduceRequest produce = new ProduceRequest(PARTITION, ProduceRequest.ACKS_ALL, 30_000, records);
        ProduceResponse produced = new ProduceResponse(PARTITION, ErrorCode.NONE, 40, 42);
        FetchRequest fetch = new FetchRequest(2, PARTITION, 40, MAX, 500);
        FetchResponse fetched = new FetchResponse(PARTITION, ErrorCode.NONE, 43, 0, records);
        return List.of(
                new Message("ProduceRequest", produce, produce.encode(), ProduceRequest::decode),
                new Message("ProduceResponse", produced, produced.encode(), ProduceResponse::decode),
                new Message("FetchRequest", fetch, fetch.encode(), FetchRequest::decode),
                new Message("FetchResponse", fetched, fetched.encode(), FetchResponse::decode));
    }

    @Test
    void theFourMessagesRoundTripThroughAFrame() throws IOException {
        for (Message m : messages()) {
            assertThat(m.decoder().apply(throughFrame(m.encoded())))
                    .as("%s: encode, frame, unframe, decode gives the same message back", m.name())
                    .isEqualTo(m.sample());
        }
        FetchResponse error = FetchResponse.error(PARTITION, ErrorCode.OFFSET_OUT_OF_RANGE);
        assertThat(FetchResponse.decode(throughFrame(error.encode())))
                .as("an error answer with no records round trips too")
                .isEqualTo(error);
        FetchRequest consumer = FetchRequest.consumer(PARTITION, 0, 1, 0);
        assertThat(FetchRequest.decode(throughFrame(consumer.encode())).replicaId())
                .as("a consumer's replicaId -1 survives the trip: it is what makes the leader stop at the HW")
                .isEqualTo(-1);
    }

    @Test
    void aMessageCutShortAtAnyByteIsMalformed() throws IOException {
        for (Message m : messages()) {
            for (int cut = 0; cut < m.encoded().length; cut++) {
                byte[] body = throughFrame(Arrays.copyOf(m.encoded(), cut));
                int at = cut;
                assertThatCode(() -> m.decoder().apply(body))
                        .as("%s cut to %d of its %d bytes: every field is bounds-checked, so MalformedMessageException"
                                + " (never an index or buffer exception)", m.name(), at, m.encoded().length)
                        .isInstanceOf(MalformedMessageException.class);
            }
        }
    }

    @Test
    void aMessageWithBytesLeftOverIsMalformed() throws IOException {
        for (Message m : messages()) {
            byte[] body = throughFrame(Arrays.copyOf(m.encoded(), m.encoded().length + 1));
            assertThatCode(() -> m.decoder().apply(body))
                    .as("%s with one byte too many: the two sides disagree about the format, MalformedMessageException",
                            m.name())
                    .isInstanceOf(MalformedMessageException.class);
        }
    }

    @Test
    void aLyingLengthOrAnImpossibleValueInsideAMessageIsMalformed() throws IOException {
        byte[] hugeRecords = new Wire.Writer().string(PARTITION).int16(1).int32(1_000).int32(Integer.MAX_VALUE)
                .int64(0).toByteArray();
        byte[] negativeString = new Wire.Writer().int16(-5).toByteArray();
        byte[] unknownError = new Wire.Writer().string(PARTITION).int16(999).int64(0).int64(0).toByteArray();
        byte[] acksTwo = new Wire.Writer().string(PARTITION).int16(2).int32(1_000).bytes(batch("a", 1)).toByteArray();
        byte[] negativeMaxBytes = new Wire.Writer().int32(-1).string(PARTITION).int64(0).int32(-1).int32(0)
                .toByteArray();

        assertThatCode(() -> ProduceRequest.decode(throughFrame(hugeRecords)))
                .as("records claim 2 GiB in a message of 28 bytes: refused before anything is allocated")
                .isInstanceOf(MalformedMessageException.class);
        assertThatCode(() -> ProduceResponse.decode(throughFrame(negativeString)))
                .as("a string length of -5")
                .isInstanceOf(MalformedMessageException.class);
        assertThatCode(() -> ProduceResponse.decode(throughFrame(unknownError)))
                .as("error code 999 is not in kaen-log's table")
                .isInstanceOf(MalformedMessageException.class);
        assertThatCode(() -> ProduceRequest.decode(throughFrame(acksTwo)))
                .as("acks must be 0, 1 or -1 (all); 2 is not an acks value")
                .isInstanceOf(MalformedMessageException.class);
        assertThatCode(() -> FetchRequest.decode(throughFrame(negativeMaxBytes)))
                .as("maxBytes -1")
                .isInstanceOf(MalformedMessageException.class);
    }

    /** Writes a frame and reads it back: a payload as the receiving side sees it. */
    private static byte[] throughFrame(byte[] payload) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Frames.writeFrame(out, payload);
        return Frames.readFrame(new ByteArrayInputStream(out.toByteArray()), MAX);
    }

    private static byte[] lengthOf(int length) {
        return ByteBuffer.allocate(4).putInt(length).array();
    }

    private static InputStream stream(byte[] head, byte[] rest) {
        byte[] all = Arrays.copyOf(head, head.length + rest.length);
        System.arraycopy(rest, 0, all, head.length, rest.length);
        return new ByteArrayInputStream(all);
    }

    /** Counts the bytes a reader took from the stream. */
    private static final class CountingStream extends FilterInputStream {
        int count;

        CountingStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            count += b < 0 ? 0 : 1;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            count += Math.max(n, 0);
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            count += (int) skipped;
            return skipped;
        }
    }

    // Task 6 (FramesTest), found by mutation testing (bench/mutation): a frame of several chunks.

    @Test
    @Timeout(30) // a guard, not a speed target: a wrong growth rule can spin forever on a read of 0 bytes
    void aFrameOfSeveralChunksArrivesWhole() throws IOException {
        byte[] payload = new byte[200_000]; // more than three 64 KiB chunks
        new Random(7).nextBytes(payload);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Frames.writeFrame(out, payload);

        assertThat(Frames.readFrame(new ByteArrayInputStream(out.toByteArray()), MAX))
                .as("200,000 bytes arrive into a buffer that starts at one 64 KiB chunk and doubles each time it is"
                        + " full (filled == its length), never past the frame's length; every byte comes back in order")
                .isEqualTo(payload);
    }

    private static final String WRITING = "a frame is the payload's length as a 4-byte big-endian int, then the payload,"
            + " flushed, so that a buffered stream sends it at once";
    private static final String READING = "a frame's 4-byte length is read and checked first (negative, or over the"
            + " maximum: refused, before any buffer of that size exists), then exactly that many bytes, however few each"
            + " read of the stream gives; a stream that ends before a frame's first byte is a clean end (null), one that"
            + " ends anywhere inside a frame, its length included, is an EOFException";

    @Test
    void everyPayloadIsFramedAsKafkasByteBufferSendFramesIt() {
        Property.forAll(Gens.oneOf(Gens.bytes(0, 40), Gens.bytes(0, 600))).check(payload -> {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            BufferedOutputStream out = new BufferedOutputStream(sink, 1 << 16);
            Judge.agree("the payload " + Property.show(payload), "bytes on the wire", () -> {
                Frames.writeFrame(out, payload);
                return sink.toByteArray(); // what reached the socket: a frame left in the buffer is not sent
            }, "ByteBufferSend.sizePrefixed sends", kafkaFrame(payload), WRITING);
        });
    }

    /** The bytes Kafka's {@code ByteBufferSend.sizePrefixed} writes for {@code payload}. */
    private static byte[] kafkaFrame(byte[] payload) throws IOException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ByteBufferSend.sizePrefixed(ByteBuffer.wrap(payload)).writeTo(new TransferableChannel() {
            @Override
            public long write(ByteBuffer[] srcs, int offset, int length) {
                long n = 0;
                for (int i = offset; i < offset + length; i++) {
                    n += write(srcs[i]);
                }
                return n;
            }

            @Override
            public long write(ByteBuffer[] srcs) {
                return write(srcs, 0, srcs.length);
            }

            @Override
            public int write(ByteBuffer src) {
                int n = src.remaining();
                byte[] bytes = new byte[n];
                src.get(bytes);
                sent.writeBytes(bytes);
                return n;
            }

            @Override
            public boolean hasPendingWrites() {
                return false;
            }

            @Override
            public long transferFrom(java.nio.channels.FileChannel file, long position, long count) {
                throw new UnsupportedOperationException("no files here");
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        });
        return sent.toByteArray();
    }

    /** A stream of bytes as a socket delivers it, a few at a time, and the largest frame allowed. */
    private record Stream(byte[] bytes, int chunk, int maxFrameBytes) {
        @Override
        public String toString() {
            return "the stream " + Property.show(bytes) + " (at most " + chunk + " byte(s) a read) with maxFrameBytes "
                    + maxFrameBytes;
        }
    }

    /** Kafka's frames of a few payloads back to back, then maybe damaged (a cut, a byte changed, dropped, added), or any bytes. */
    private static Gen<Stream> streams() {
        Gen<byte[]> frames = Gens.lists(Gens.bytes(0, 24), 0, 4).map(payloads -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (byte[] p : payloads) {
                out.writeBytes(ByteBuffer.allocate(4).putInt(p.length).array());
                out.writeBytes(p);
            }
            return out.toByteArray();
        });
        Gen<byte[]> bytes = Gens.oneOf(frames, frames.flatMap(Gens::damaged), Gens.bytes(0, 12));
        Gen<Integer> maxes = Gens.oneOf(Gens.elements(MAX, 0, 1, 4), Gens.ints(0, 30)); // Kafka allocates what a length announces
        return c -> new Stream(bytes.generate(c), Gens.ints(1, 7).generate(c), maxes.generate(c));
    }

    @Test
    void everyStreamIsReadFrameByFrameAsKafkasNetworkReceiveReadsIt() {
        Property.forAll(streams()).check(in -> Judge.agree(in.toString(), "frames", () -> yourFrames(in),
                "NetworkReceive reads", kafkasFrames(in), READING));
    }

    /** What readFrame answers, frame after frame, until the clean end or a refusal (named by its kind). */
    private static List<String> yourFrames(Stream in) throws IOException {
        InputStream stream = trickle(new ByteArrayInputStream(in.bytes()), in.chunk());
        List<String> frames = new java.util.ArrayList<>();
        while (true) {
            byte[] frame;
            try {
                frame = Frames.readFrame(stream, in.maxFrameBytes());
            } catch (MalformedMessageException e) {
                frames.add(LENGTH_REFUSED);
                return frames;
            } catch (EOFException e) {
                frames.add(CUT_OFF);
                return frames;
            }
            if (frame == null) {
                frames.add(CLEAN_END);
                return frames;
            }
            frames.add(Property.show(frame));
        }
    }

    private static final String CLEAN_END = "(the clean end)";
    private static final String CUT_OFF = "(cut off: EOFException)";
    private static final String LENGTH_REFUSED = "(a length refused)";

    /**
     * What Kafka's NetworkReceive (socket.request.max.bytes = maxFrameBytes) reads from the same bytes, a few at a
     * time. Kafka's selector closes a connection at any end of stream; kaen-log tells a clean end (before a
     * frame's first byte) from a torn frame, so the judge calls an end before any byte of a frame clean.
     */
    private static List<String> kafkasFrames(Stream in) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(in.bytes());
        java.nio.channels.ScatteringByteChannel channel = new java.nio.channels.ScatteringByteChannel() {
            @Override
            public int read(ByteBuffer dst) {
                if (!dst.hasRemaining()) {
                    return 0; // as a SocketChannel answers a read into a full buffer: nothing, and no end yet
                }
                if (!bytes.hasRemaining()) {
                    return -1;
                }
                int n = Math.min(Math.min(dst.remaining(), bytes.remaining()), in.chunk());
                dst.put(bytes.slice(bytes.position(), n));
                bytes.position(bytes.position() + n);
                return n;
            }

            @Override
            public long read(ByteBuffer[] dsts, int offset, int length) {
                throw new UnsupportedOperationException("NetworkReceive reads one buffer at a time");
            }

            @Override
            public long read(ByteBuffer[] dsts) {
                throw new UnsupportedOperationException("NetworkReceive reads one buffer at a time");
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        List<String> frames = new java.util.ArrayList<>();
        while (true) {
            if (!bytes.hasRemaining()) {
                frames.add(CLEAN_END);
                return frames;
            }
            NetworkReceive receive = new NetworkReceive(in.maxFrameBytes(), "property");
            try {
                while (!receive.complete()) {
                    receive.readFrom(channel);
                }
            } catch (InvalidReceiveException e) {
                frames.add(LENGTH_REFUSED);
                return frames;
            } catch (EOFException e) {
                frames.add(CUT_OFF);
                return frames;
            }
            ByteBuffer payload = receive.payload();
            byte[] frame = new byte[payload.rewind().remaining()];
            payload.get(frame);
            frames.add(Property.show(frame));
        }
    }

    /** {@code in}, giving at most {@code chunk} bytes per read, as a socket does. */
    private static InputStream trickle(InputStream in, int chunk) {
        return new FilterInputStream(in) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
    }
}
