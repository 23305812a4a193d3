package kaenlog.broker;

import static kaenlog.broker.TransactionalLogs.marker;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import kaenlog.batch.BatchHeader;
import kaenlog.batch.RecordBatch;
import kaenlog.log.AbortedTransaction;
import kaenlog.log.AbortedTxn;
import kaenlog.log.FetchIsolation;
import kaenlog.log.Log;
import kaenlog.log.LogConfig;
import kaenlog.log.TransactionIndex;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.wire.FetchRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 10: read_committed. A read_committed fetch reads only below the last stable offset, and its
 * answer names the aborted transactions that overlap the range it read (producer id, first offset):
 * each segment's index is asked from the fetch offset's segment on (a transaction's ABORT may be in a
 * later segment than its data) until one answers that its search is complete. Kafka 4.1.1's
 * {@code TransactionIndex.collectAbortedTxns} judges each index's answer.
 */
@Order(10)
class ReadCommittedTest {
    private static final long A = 1000;
    private static final long B = 2000;
    private static final long C = 3000;

    @TempDir
    Path dir;
    private Partition partition;

    @AfterEach
    void close() throws Exception {
        if (partition != null) {
            partition.close();
        }
    }

    /** Entries as markers write them, and a fetch range around them. */
    record Case(List<AbortedTxn> entries, long fetchOffset, long upperBoundOffset) {
    }

    static Gen<Case> cases() {
        return c -> {
            List<AbortedTxn> entries = new ArrayList<>();
            long last = Gens.longs(0, 20).generate(c);
            for (int n = Gens.ints(0, 6).generate(c); n > 0; n--) {
                last += Gens.longs(1, 10).generate(c);
                long first = Math.max(0, last - Gens.longs(1, 15).generate(c));
                entries.add(new AbortedTxn(Gens.elements(A, B, C).generate(c), first, last,
                        first + Gens.longs(0, 20).generate(c)));
            }
            long fetchOffset = Gens.longs(0, last + 5).generate(c);
            return new Case(entries, fetchOffset, fetchOffset + Gens.longs(1, 30).generate(c));
        };
    }

    @Test
    void eachIndexAnswersTheAbortedTransactionsThatOverlapTheFetchAsKafkasDoes() {
        Property.forAll(cases()).tries(300).check(test -> {
            Path file = Files.createTempDirectory(dir, "case").resolve("00000000000000000000.txnindex");
            TransactionIndex ours = TransactionIndex.empty(file);
            for (AbortedTxn txn : test.entries()) {
                ours.append(txn);
            }
            var kafka = new org.apache.kafka.storage.internals.log.TransactionIndex(0, file.toFile());
            var result = kafka.collectAbortedTxns(test.fetchOffset(), test.upperBoundOffset());
            List<AbortedTxn> found = new ArrayList<>();
            result.abortedTransactions.forEach(t -> found.add(new AbortedTxn(t.producerId(), t.firstOffset(),
                    t.lastOffset(), t.lastStableOffset())));
            kafka.close();
            Judge.agree("a fetch of [" + test.fetchOffset() + ", " + test.upperBoundOffset() + ") over the entries "
                    + test.entries(), "answer", () -> ours.collect(test.fetchOffset(), test.upperBoundOffset()),
                    "TransactionIndex.collectAbortedTxns answers", new TransactionIndex.Search(found, result.isComplete),
                    "an entry overlaps when its marker is at or after the fetch offset and its first offset below the"
                            + " bound; the search is complete at the first entry whose last stable offset reached the"
                            + " bound");
        });
    }

    private Log open(int segmentBytes) throws Exception {
        partition = Partition.open("orders-0", dir.resolve("orders-0"), LogConfig.defaults().withSegmentBytes(segmentBytes));
        partition.setAppendHook(new TransactionalAppendHook(new IdempotentAppendHook()));
        return partition.locked(log -> log);
    }

    private FetchSlice readCommitted(long fetchOffset) throws Exception {
        return partition.slice(new FetchRequest(FetchIsolation.CONSUMER_REPLICA_ID, "orders-0", fetchOffset, 1 << 20, 0,
                FetchRequest.NO_LEADER_EPOCH, FetchIsolation.READ_COMMITTED), true);
    }

    private static List<Long> baseOffsets(FetchSlice slice) throws Exception {
        List<Long> offsets = new ArrayList<>();
        for (RecordBatch batch : RecordBatch.decodeAll(slice.records().toByteBuffer())) {
            offsets.add(batch.header().baseOffset());
        }
        slice.close();
        return offsets;
    }

    @Test
    void aReadCommittedFetchReadsBelowTheLastStableOffsetAndNamesTheAbortedTransactionsOfWhatItRead() throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        Log log = open(1 << 20);
        partition.locked(l -> {
            producers.data(l, A, 2);          // 0..1 A
            producers.data(l, B, 1);          // 2    B
            marker(l, A, true);               // 3    A aborted
            producers.data(l, C, 1);          // 4    C, left open
            marker(l, B, false);              // 5    B committed
            return null;
        });
        FetchSlice slice = readCommitted(0);
        assertThat(slice.lastStableOffset()).as("C's transaction is open from 4: the last stable offset is 4")
                .isEqualTo(4);
        assertThat(slice.abortedTransactions()).as("the range read, 0..3, holds A's aborted transaction: the answer"
                + " names it (producer id, first offset) so the consumer drops A's batches")
                .containsExactly(new AbortedTransaction(A, 0));
        assertThat(baseOffsets(slice)).as("read_committed reads only the batches below the last stable offset 4")
                .containsExactly(0L, 2L, 3L);
        FetchSlice uncommitted = partition.slice(FetchRequest.consumer("orders-0", 0, 1 << 20, 0), true);
        assertThat(uncommitted.abortedTransactions()).as("read_uncommitted: no aborted transactions in the answer")
                .isNull();
        assertThat(baseOffsets(uncommitted)).as("read_uncommitted reads to the high watermark").hasSize(5);
        assertThat(log.read(0, 1 << 20, FetchIsolation.TXN_COMMITTED).remaining()).as("chapter 3's in-memory read"
                + " under read_committed stops at the same place").isEqualTo(sizeBelow(log, 4));
    }

    private static int sizeBelow(Log log, long offset) throws Exception {
        int size = 0;
        for (BatchHeader header : log.activeSegment().headers()) {
            if (header.lastOffset() < offset) {
                size += header.sizeInBytes();
            }
        }
        return size;
    }

    @Test
    void anAbortWhoseMarkerIsInALaterSegmentIsStillNamed() throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        Log log = open(1 << 20);
        partition.locked(l -> {
            producers.data(l, A, 2);          // 0..1
            l.roll();
            producers.data(l, B, 1);          // 2
            l.roll();
            marker(l, A, true);               // 3, in the third segment
            marker(l, B, false);              // 4
            return null;
        });
        assertThat(log.abortedTransactions(0, 2)).as("a fetch that read only the first segment (offsets 0..1) must still"
                + " learn that A's transaction was aborted: its ABORT is in the third segment's index, asked in turn")
                .containsExactly(new AbortedTransaction(A, 0));
        assertThat(log.abortedTransactions(2, 3)).as("a fetch of offset 2 only, B's batch: A's transaction ended at 3, after"
                + " it, and began before it, so it overlaps too").containsExactly(new AbortedTransaction(A, 0));
        assertThat(log.abortedTransactions(4, 5)).as("a fetch from 4, after A's marker: A's transaction does not overlap")
                .isEmpty();
    }

    /** One step of a partition's life. */
    sealed interface Step {
    }

    record Data(long producer, int count) implements Step {
    }

    record Marker(long producer, boolean abort) implements Step {
    }

    record Roll() implements Step {
    }

    static Gen<Step> steps() {
        Gen<Long> producers = Gens.elements(A, B, C);
        return c -> switch (Gens.ints(0, 9).generate(c)) {
            case 0, 1, 2, 3 -> new Data(producers.generate(c), Gens.ints(1, 2).generate(c));
            case 4, 5 -> new Marker(producers.generate(c), false);
            case 6, 7 -> new Marker(producers.generate(c), true);
            default -> new Roll();
        };
    }

    @Test
    void everyFetchRangeIsToldEveryAbortedTransactionThatOverlapsItWhicheverSegmentHoldsItsMarker() {
        Property.forAll(Gens.lists(steps(), 1, 25)).tries(40).check(steps -> {
            Path logDir = Files.createTempDirectory(dir, "log");
            TransactionalLogs producers = new TransactionalLogs();
            Map<Long, Long> open = new TreeMap<>();
            List<AbortedTransaction> abortedEver = new ArrayList<>();
            List<long[]> abortedRanges = new ArrayList<>();
            try (Log log = TransactionalLogs.open(logDir, 1 << 20)) {
                for (Step step : steps) {
                    if (step instanceof Data data) {
                        long first = producers.data(log, data.producer(), data.count()).firstOffset();
                        open.putIfAbsent(data.producer(), first);
                    } else if (step instanceof Marker m) {
                        long at = marker(log, m.producer(), m.abort()).firstOffset();
                        Long first = open.remove(m.producer());
                        if (first != null && m.abort()) {
                            abortedEver.add(new AbortedTransaction(m.producer(), first));
                            abortedRanges.add(new long[] {first, at});
                        }
                    } else if (log.activeSegment().size() > 0) {
                        log.roll();
                    }
                }
                long end = log.logEndOffset();
                for (long from = 0; from < end; from++) {
                    for (long upper = from + 1; upper <= end; upper++) {
                        List<AbortedTransaction> expected = new ArrayList<>();
                        for (int i = 0; i < abortedEver.size(); i++) {
                            if (abortedRanges.get(i)[1] >= from && abortedRanges.get(i)[0] < upper) {
                                expected.add(abortedEver.get(i));
                            }
                        }
                        long f = from;
                        long u = upper;
                        Judge.agree("the steps " + steps + " and a fetch of [" + from + ", " + upper + ")",
                                "aborted transactions", () -> log.abortedTransactions(f, u), "reading the log gives",
                                expected, "every aborted transaction whose marker is at or after the fetch offset and"
                                        + " whose first offset is below the bound, in marker order, whichever segment"
                                        + " its marker is in");
                    }
                }
            }
        });
    }
}
