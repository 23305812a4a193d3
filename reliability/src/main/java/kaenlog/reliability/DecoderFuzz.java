package kaenlog.reliability;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import kaenlog.batch.BatchBuilder;
import kaenlog.batch.CompactedBatchBuilder;
import kaenlog.batch.CorruptBatchException;
import kaenlog.batch.Record;
import kaenlog.batch.RecordBatch;
import kaenlog.batch.RecordHeader;
import kaenlog.wire.RequestEnvelope;
import kaenlog.wire.ResponseEnvelope;
import kaenlog.groups.CorruptOffsetRecordException;
import kaenlog.groups.OffsetCommitKey;
import kaenlog.groups.OffsetCommitValue;
import kaenlog.wire.InitProducerId;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.FetchRequest;
import kaenlog.wire.FetchResponse;
import kaenlog.wire.Frames;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.ProduceRequest;
import kaenlog.wire.ProduceResponse;

/**
 * Item 4: seeded mutations of valid batches, frames and messages through every decoder that reads
 * untrusted bytes, each along the path the broker or a client takes (a request frame is read,
 * its envelope decoded, its body decoded, a produce's batch decoded). Three properties:
 * <ul>
 * <li>only the typed errors: {@link CorruptBatchException}, {@link MalformedMessageException},
 *     {@link CorruptOffsetRecordException}, and {@link EOFException} for a frame that stops early;
 *     anything else (an index exception, an ArithmeticException, an OutOfMemoryError, ...) is a bug;</li>
 * <li>no hang: a watchdog fails the run when one input takes more than 10 s;</li>
 * <li>no allocation from an unchecked length: the bytes each decode allocates (the JVM counts them
 *     per thread) stay under 64 KiB + 16 x the input's length (+ the frame limit, for a frame,
 *     which is a checked length).</li>
 * </ul>
 */
public final class DecoderFuzz {
    /** The frame limit the fuzzed readers use: 64 KiB, so a lying length that passes it is still small. */
    static final int MAX_FRAME = 64 * 1024;
    static final long ALLOCATION_SLACK = 64 * 1024;
    static final int ALLOCATION_PER_BYTE = 16;
    private static final long HANG_MS = 10_000;
    private static final Set<Class<? extends Throwable>> TYPED = Set.of(CorruptBatchException.class,
            MalformedMessageException.class, CorruptOffsetRecordException.class, EOFException.class);

    /** @param mutations total mutated inputs, spread over the targets */
    public record Config(long seed, int mutations) {
        public static Config full() {
            return new Config(4, 1_000_000);
        }
    }

    /** What one decoder did with its share. */
    public record TargetFigures(String target, long inputs, long accepted, Map<String, Long> rejectedBy,
                                long untyped, long overAllocated, long maxAllocatedBytes, long maxInputBytes) {
        public TargetFigures {
            rejectedBy = Map.copyOf(rejectedBy);
        }
    }

    /** The figures of the run; {@code bugs} names the first untyped errors with their input index. */
    public record Result(Config config, List<TargetFigures> targets, long inputs, long untyped, long overAllocated,
                         boolean hung, boolean allocationMeasured, List<String> bugs) implements Figures {
        public Result {
            targets = List.copyOf(targets);
            bugs = List.copyOf(bugs);
        }

        @Override
        public Row row() {
            return new Row("4 decoder fuzz (seeded mutations)", inputs, -1, inputs, -1, -1, -1);
        }

        @Override
        public List<String> details() {
            List<String> lines = new ArrayList<>();
            for (TargetFigures t : targets) {
                lines.add(String.format("%-26s %7d inputs: %6d decoded, %6d typed errors, %d untyped, max %d B"
                                + " allocated (largest input %d B)%s", t.target(), t.inputs(), t.accepted(),
                        t.rejectedBy().values().stream().mapToLong(Long::longValue).sum(), t.untyped(),
                        t.maxAllocatedBytes(), t.maxInputBytes(),
                        t.overAllocated() > 0 ? ", " + t.overAllocated() + " OVER BUDGET" : ""));
            }
            lines.add("untyped errors " + untyped + ", hangs " + (hung ? "YES" : "0") + ", allocations over 64 KiB + 16 B"
                    + " per input byte " + (allocationMeasured ? overAllocated : "(not measurable on this JVM)")
                    + (bugs.isEmpty() ? "" : "; first: " + bugs));
            return lines;
        }

        @Override
        public boolean ok() {
            return untyped == 0 && overAllocated == 0 && !hung;
        }
    }

    /** One decoder and the valid inputs it is fed mutations of. */
    private record Target(String name, Mutator.Shape shape, List<byte[]> corpus, boolean frame, Decoder decoder) {
    }

    @FunctionalInterface
    private interface Decoder {
        void decode(byte[] input) throws IOException;
    }

    private DecoderFuzz() {
    }

    public static Result run(Config config) {
        List<Target> targets = targets(new Random(config.seed()));
        Worker worker = new Worker(config, targets);
        Thread thread = new Thread(worker, "decoder-fuzz");
        thread.setDaemon(true);
        thread.start();
        boolean hung = false;
        long seen = -1;
        Deadline stall = Deadline.in(HANG_MS);
        while (thread.isAlive()) {
            try {
                thread.join(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long now = worker.done.get();
            if (now != seen) {
                seen = now;
                stall = Deadline.in(HANG_MS);
            } else if (stall.passed()) {
                hung = true;
                worker.bugs.add("input #" + now + " (" + targets.get((int) (now % targets.size())).name()
                        + ") did not return in " + HANG_MS / 1000 + " s");
                break;
            }
        }
        List<TargetFigures> figures = new ArrayList<>();
        for (int t = 0; t < targets.size(); t++) {
            figures.add(new TargetFigures(targets.get(t).name(), worker.inputs[t], worker.accepted[t],
                    worker.rejectedBy.get(t), worker.untyped[t], worker.overAllocated[t], worker.maxAllocated[t],
                    worker.maxInput[t]));
        }
        long untyped = figures.stream().mapToLong(TargetFigures::untyped).sum();
        long over = figures.stream().mapToLong(TargetFigures::overAllocated).sum();
        return new Result(config, figures, worker.done.get(), untyped, over, hung, worker.allocation != null,
                List.copyOf(worker.bugs));
    }

    /** Feeds mutations to the targets round-robin; input i of the run uses Random(seed, i). */
    private static final class Worker implements Runnable {
        final Config config;
        final List<Target> targets;
        final AtomicLong done = new AtomicLong();
        final long[] inputs;
        final long[] accepted;
        final long[] untyped;
        final long[] overAllocated;
        final long[] maxAllocated;
        final long[] maxInput;
        final List<Map<String, Long>> rejectedBy = new ArrayList<>();
        final List<String> bugs = java.util.Collections.synchronizedList(new ArrayList<>());
        final com.sun.management.ThreadMXBean allocation;

        Worker(Config config, List<Target> targets) {
            this.config = config;
            this.targets = targets;
            int n = targets.size();
            inputs = new long[n];
            accepted = new long[n];
            untyped = new long[n];
            overAllocated = new long[n];
            maxAllocated = new long[n];
            maxInput = new long[n];
            targets.forEach(t -> rejectedBy.add(new TreeMap<>()));
            allocation = allocationCounter();
        }

        @Override
        public void run() {
            // Warm up: class loading and the first compilations allocate, decoding does not.
            for (Target t : targets) {
                for (byte[] valid : t.corpus()) {
                    outcome(t, valid);
                }
            }
            for (long i = 0; i < config.mutations(); i++) {
                int t = (int) (i % targets.size());
                Target target = targets.get(t);
                Random r = new Random(config.seed() * 1_000_003L + i);
                byte[] input = Mutator.mutate(target.corpus().get(r.nextInt(target.corpus().size())), r,
                        target.corpus(), target.shape());
                long before = allocation == null ? 0 : allocation.getCurrentThreadAllocatedBytes();
                Throwable thrown = outcome(target, input);
                long allocated = allocation == null ? 0 : allocation.getCurrentThreadAllocatedBytes() - before;
                long budget = ALLOCATION_SLACK + (long) ALLOCATION_PER_BYTE * input.length + (target.frame() ? MAX_FRAME : 0);
                if (allocation != null && allocated > budget) {
                    // A first time costs more (a message format, a class to load): measure it again.
                    // An unchecked length allocates every time.
                    allocated = Math.min(allocated, allocatedBy(target, input));
                }
                inputs[t]++;
                maxInput[t] = Math.max(maxInput[t], input.length);
                maxAllocated[t] = Math.max(maxAllocated[t], allocated);
                if (allocation != null && allocated > budget) {
                    overAllocated[t]++;
                    note("input #" + i + " (" + target.name() + ", " + input.length + " B) allocated " + allocated + " B");
                }
                if (thrown == null) {
                    accepted[t]++;
                } else if (TYPED.contains(thrown.getClass())) {
                    rejectedBy.get(t).merge(thrown.getClass().getSimpleName(), 1L, Long::sum);
                } else {
                    untyped[t]++;
                    note("input #" + i + " (" + target.name() + "): " + thrown);
                }
                done.incrementAndGet();
            }
        }

        private long allocatedBy(Target target, byte[] input) {
            long before = allocation.getCurrentThreadAllocatedBytes();
            outcome(target, input);
            return allocation.getCurrentThreadAllocatedBytes() - before;
        }

        private Throwable outcome(Target target, byte[] input) {
            try {
                target.decoder().decode(input);
                return null;
            } catch (Throwable t) {
                return t;
            }
        }

        private void note(String bug) {
            if (bugs.size() < 5) {
                bugs.add(bug);
            }
        }
    }

    private static com.sun.management.ThreadMXBean allocationCounter() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean
                && bean.isThreadAllocatedMemorySupported()) {
            bean.setThreadAllocatedMemoryEnabled(true);
            return bean;
        }
        return null;
    }

    // ---- the targets and their valid inputs ----------------------------------------------------

    private static List<Target> targets(Random r) {
        List<byte[]> batches = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            batches.add(bytes(batch(r)));
        }
        for (int i = 0; i < 10; i++) {
            batches.add(bytes(compacted(RecordBatch.decode(ByteBuffer.wrap(batches.get(i))), r)));
        }
        List<byte[]> runs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            byte[] run = new byte[0];
            for (int k = 0; k < 2 + r.nextInt(3); k++) {
                run = Mutator.concat(run, batches.get(r.nextInt(batches.size())));
            }
            runs.add(run);
        }
        List<byte[]> produceBodies = new ArrayList<>();
        List<byte[]> fetchBodies = new ArrayList<>();
        List<byte[]> produceAnswers = new ArrayList<>();
        List<byte[]> fetchAnswers = new ArrayList<>();
        short[] acks = {ProduceRequest.ACKS_NONE, ProduceRequest.ACKS_LEADER, ProduceRequest.ACKS_ALL};
        for (int i = 0; i < 20; i++) {
            String partition = "topic" + i + "-" + r.nextInt(8);
            produceBodies.add(new ProduceRequest(partition, acks[r.nextInt(3)], r.nextInt(30_000),
                    ByteBuffer.wrap(batches.get(i))).encode());
            fetchBodies.add(new FetchRequest(r.nextInt(4) - 1, partition, r.nextInt(1000), r.nextInt(1 << 20),
                    r.nextInt(1000)).encode());
            produceAnswers.add(new ProduceResponse(partition, ErrorCode.values()[r.nextInt(ErrorCode.values().length)],
                    r.nextInt(1000), r.nextInt(1000)).encode());
            fetchAnswers.add(new FetchResponse(partition, ErrorCode.NONE, r.nextInt(1000), 0,
                    ByteBuffer.wrap(runs.get(i))).encode());
        }
        List<byte[]> requestFrames = new ArrayList<>();
        List<byte[]> responseFrames = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            requestFrames.add(frame(new RequestEnvelope(ApiKeys.PRODUCE, i, produceBodies.get(i)).encode()));
            requestFrames.add(frame(new RequestEnvelope(ApiKeys.FETCH, i, fetchBodies.get(i)).encode()));
            responseFrames.add(frame(new ResponseEnvelope(i, produceAnswers.get(i)).encode()));
            responseFrames.add(frame(new ResponseEnvelope(i, fetchAnswers.get(i)).encode()));
        }
        requestFrames.add(frame(new RequestEnvelope(InitProducerId.API_KEY, 1, InitProducerId.encodeRequest()).encode()));
        responseFrames.add(frame(new ResponseEnvelope(1, new InitProducerId.Response(ErrorCode.NONE, 1000, (short) 0)
                .encode()).encode()));
        requestFrames.add(Mutator.concat(requestFrames.get(0), requestFrames.get(1)));
        List<byte[]> keys = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            keys.add(new OffsetCommitKey("group-" + i, "topic-" + r.nextInt(5), r.nextInt(10)).encode());
            values.add(new OffsetCommitValue(r.nextInt(1 << 20), i % 2 == 0 ? "" : "meta-" + i, 1_700_000_000_000L + i)
                    .encode());
        }

        return List.of(
                new Target("RecordBatch.decode", Mutator.Shape.BATCH, batches, false,
                        in -> RecordBatch.decode(ByteBuffer.wrap(in))),
                new Target("RecordBatch.decodeAll", Mutator.Shape.BATCH, runs, false,
                        in -> RecordBatch.decodeAll(ByteBuffer.wrap(in))),
                new Target("request frames (broker)", Mutator.Shape.FRAME, requestFrames, true, DecoderFuzz::asBroker),
                new Target("response frames (client)", Mutator.Shape.FRAME, responseFrames, true, DecoderFuzz::asClient),
                new Target("ProduceRequest.decode", Mutator.Shape.MESSAGE, produceBodies, false,
                        in -> RecordBatch.decode(ProduceRequest.decode(in).records())),
                new Target("FetchRequest.decode", Mutator.Shape.MESSAGE, fetchBodies, false, FetchRequest::decode),
                new Target("ProduceResponse.decode", Mutator.Shape.MESSAGE, produceAnswers, false,
                        ProduceResponse::decode),
                new Target("FetchResponse.decode", Mutator.Shape.MESSAGE, fetchAnswers, false,
                        in -> RecordBatch.decodeAll(FetchResponse.decode(in).records())),
                new Target("OffsetCommitKey/Value", Mutator.Shape.MESSAGE, interleave(keys, values), false,
                        in -> {
                            try {
                                OffsetCommitKey.decode(in);
                            } catch (CorruptOffsetRecordException notAKey) {
                                OffsetCommitValue.decode(in);
                            }
                        }));
    }

    /** What the broker does with the bytes of a connection: frames until the stream ends, each decoded. */
    private static void asBroker(byte[] stream) throws IOException {
        InputStream in = new ByteArrayInputStream(stream);
        for (byte[] payload = Frames.readFrame(in, MAX_FRAME); payload != null; payload = Frames.readFrame(in, MAX_FRAME)) {
            RequestEnvelope request = RequestEnvelope.decode(payload);
            switch (request.apiKey()) {
                case ApiKeys.PRODUCE -> RecordBatch.decode(ProduceRequest.decode(request.body()).records());
                case ApiKeys.FETCH -> FetchRequest.decode(request.body());
                case InitProducerId.API_KEY -> InitProducerId.decodeRequest(request.body());
                default -> {
                    // the broker closes the connection: unknown apiKey
                }
            }
        }
    }

    /** What a client does with the bytes of an answer: a frame, its envelope, its body, its records. */
    private static void asClient(byte[] stream) throws IOException {
        byte[] payload = Frames.readFrame(new ByteArrayInputStream(stream), MAX_FRAME);
        if (payload == null) {
            return;
        }
        byte[] body = ResponseEnvelope.decode(payload).body();
        try {
            RecordBatch.decodeAll(FetchResponse.decode(body).records());
        } catch (MalformedMessageException notAFetchAnswer) {
            try {
                ProduceResponse.decode(body);
            } catch (MalformedMessageException notAProduceAnswer) {
                InitProducerId.Response.decode(body);
            }
        }
    }

    private static ByteBuffer batch(Random r) {
        BatchBuilder builder = new BatchBuilder();
        if (r.nextBoolean()) {
            builder.producer(r.nextInt(1 << 20), (short) r.nextInt(4), r.nextInt(1 << 30));
        }
        int records = 1 + r.nextInt(5);
        for (int i = 0; i < records; i++) {
            RecordHeader[] headers = new RecordHeader[r.nextInt(3)];
            for (int h = 0; h < headers.length; h++) {
                headers[h] = new RecordHeader("h" + h, r.nextBoolean() ? null : randomBytes(r, 8));
            }
            byte[] key = switch (r.nextInt(3)) {
                case 0 -> null;
                case 1 -> ("k" + r.nextInt(10)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                default -> randomBytes(r, 12);
            };
            byte[] value = r.nextInt(8) == 0 ? null : randomBytes(r, 40);
            builder.append(1_700_000_000_000L + r.nextInt(100_000), key, value, headers);
        }
        return builder.build(r.nextInt(1 << 20));
    }

    /** The preserving builder's batch: some records kept, the base and last offset as before. */
    private static ByteBuffer compacted(RecordBatch original, Random r) {
        CompactedBatchBuilder builder = new CompactedBatchBuilder(original.header());
        for (Record record : original.records()) {
            if (r.nextBoolean()) {
                builder.retain(record);
            }
        }
        return builder.build();
    }

    private static byte[] randomBytes(Random r, int max) {
        byte[] b = new byte[r.nextInt(max + 1)];
        r.nextBytes(b);
        return b;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
    }

    private static List<byte[]> interleave(List<byte[]> a, List<byte[]> b) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            if (i < a.size()) {
                out.add(a.get(i));
            }
            if (i < b.size()) {
                out.add(b.get(i));
            }
        }
        return out;
    }

    /** The untyped-error and allocation figures per target, by name (for the tests). */
    static Map<String, TargetFigures> byName(Result r) {
        Map<String, TargetFigures> map = new LinkedHashMap<>();
        r.targets().forEach(t -> map.put(t.target(), t));
        return map;
    }
}
