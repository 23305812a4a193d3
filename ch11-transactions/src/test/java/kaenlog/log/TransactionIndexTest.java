package kaenlog.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import kaenlog.batch.CorruptBatchException;
import kaenlog.broker.TransactionalLogs;
import kaenlog.testkit.property.Gen;
import kaenlog.testkit.property.Gens;
import kaenlog.testkit.property.Judge;
import kaenlog.testkit.property.Property;
import kaenlog.txn.DumpLogSegments;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task 9: the aborted transactions index. An ABORT marker puts one 34-byte entry (version 0,
 * producer id, first offset, last offset, last stable offset) in the {@code .txnindex} of the segment
 * the marker went to, in marker order; a COMMIT puts none. Kafka 4.1.1's own
 * {@code TransactionIndex} writes the same bytes and reads ours; the index is rebuilt from the
 * segments when the log is opened again.
 */
@Order(9)
class TransactionIndexTest {
    private static final long A = 1000;
    private static final long B = 2000;
    private static final long C = 3000;

    @TempDir
    Path dir;

    private static String hex(Path file) throws Exception {
        return Files.exists(file) ? HexFormat.of().formatHex(Files.readAllBytes(file)) : "(no file)";
    }

    private static List<AbortedTxn> kafkasEntries(Path file) throws Exception {
        List<AbortedTxn> entries = new ArrayList<>();
        var index = new org.apache.kafka.storage.internals.log.TransactionIndex(0, file.toFile());
        for (var txn : index.allAbortedTxns()) {
            entries.add(new AbortedTxn(txn.producerId(), txn.firstOffset(), txn.lastOffset(), txn.lastStableOffset()));
        }
        index.close();
        return entries;
    }

    /** Entries as markers write them: each marker after the one before. */
    static Gen<List<AbortedTxn>> entries() {
        return c -> {
            List<AbortedTxn> entries = new ArrayList<>();
            long last = Gens.longs(0, 1L << 40).generate(c);
            for (int n = Gens.ints(1, 5).generate(c); n > 0; n--) {
                last += Gens.longs(1, 1L << 20).generate(c);
                long first = last - Gens.longs(1, 1000).generate(c);
                entries.add(new AbortedTxn(Gens.longs().generate(c), first, last, first + Gens.longs(0, 2000).generate(c)));
            }
            return entries;
        };
    }

    @Test
    void anAbortedTransactionIsTheThirtyFourBytesKafkasTransactionIndexWritesAndReads() {
        Property.forAll(entries()).tries(100).check(entries -> {
            Path ours = Files.createTempDirectory(dir, "ours").resolve("00000000000000000000.txnindex");
            Path kafkas = Files.createTempDirectory(dir, "kafka").resolve("00000000000000000000.txnindex");
            var kafka = new org.apache.kafka.storage.internals.log.TransactionIndex(0, kafkas.toFile());
            for (AbortedTxn txn : entries) {
                kafka.append(new org.apache.kafka.storage.internals.log.AbortedTxn(txn.producerId(), txn.firstOffset(),
                        txn.lastOffset(), txn.lastStableOffset()));
            }
            kafka.close();
            Judge.agree("the entries " + entries, ".txnindex bytes", (Judge.ThrowingSupplier<?>) () -> {
                TransactionIndex index = TransactionIndex.empty(ours);
                for (AbortedTxn txn : entries) {
                    index.append(txn);
                }
                return hex(ours);
            }, "TransactionIndex.append writes",
                    hex(kafkas), "each entry is 34 bytes: version int16 0, producerId, firstOffset, lastOffset,"
                            + " lastStableOffset, each int64, big-endian, in the order appended");
            Judge.agree("our .txnindex of " + entries, "entries", kafkasEntries(ours), "TransactionIndex.allAbortedTxns"
                    + " reads", entries, "Kafka reads back every entry written");
            Judge.agree("Kafka's .txnindex of " + entries, "entries", TransactionIndex.read(kafkas),
                    "TransactionIndex.append wrote", entries, "an entry is read back field by field in the order written");
        });
    }

    @Test
    void anEntryOfAnotherVersionIsRefusedNamingIt() {
        ByteBuffer bytes = ByteBuffer.allocate(AbortedTxn.SIZE);
        new AbortedTxn(A, 1, 2, 3).writeTo(bytes);
        assertThat(bytes.position()).as("writing an entry moves the buffer past its 34 bytes").isEqualTo(AbortedTxn.SIZE);
        bytes.flip();
        assertThat(AbortedTxn.readFrom(bytes.duplicate())).as("an entry reads back as written")
                .isEqualTo(new AbortedTxn(A, 1, 2, 3));
        bytes.putShort(0, (short) 1);
        Throwable thrown = catchThrowable(() -> AbortedTxn.readFrom(bytes.duplicate()));
        assertThat(thrown).as("version 1 is a layout kaen-log does not know: refused, naming the version, never read as"
                + " version 0").isInstanceOf(CorruptBatchException.class).hasMessageContaining("version 1");
    }

    @Test
    void entriesFollowTheMarkersOrderAndAnEntryOutOfOrderIsRefusedUnwritten() throws Exception {
        Path file = dir.resolve("00000000000000000000.txnindex");
        TransactionIndex index = TransactionIndex.empty(file);
        index.append(new AbortedTxn(A, 2, 10, 11));
        Throwable same = catchThrowable(() -> index.append(new AbortedTxn(B, 5, 10, 11)));
        Throwable before = catchThrowable(() -> index.append(new AbortedTxn(B, 5, 9, 11)));
        assertThat(same).as("an entry whose marker (last offset) is the previous entry's is refused: markers are written"
                + " in offset order, one at an offset").isInstanceOf(IllegalArgumentException.class);
        assertThat(before).as("an entry whose marker (last offset) is before the previous entry's is refused: markers"
                + " are written in offset order").isInstanceOf(IllegalArgumentException.class);
        assertThat(TransactionIndex.read(file)).as("and nothing of a refused entry is written: the file holds the first"
                + " entry only").containsExactly(new AbortedTxn(A, 2, 10, 11));
        assertThat(index.entries()).as("nor kept").containsExactly(new AbortedTxn(A, 2, 10, 11));
    }

    @Test
    void anEntryWhoseWriteFailsIsNotKept() throws Exception {
        Path file = dir.resolve("00000000000000000000.txnindex");
        TransactionIndex index = TransactionIndex.empty(file);
        index.append(new AbortedTxn(A, 2, 10, 11));
        Files.delete(file);
        Files.createDirectory(file); // the file's place taken: the next write fails, as on a disk that went away
        assertThat(catchThrowable(() -> index.append(new AbortedTxn(B, 12, 20, 21)))).as("the write fails")
                .isNotNull();
        assertThat(index.entries()).as("write the 34 bytes, then keep the entry: an entry kept before a write that"
                + " failed is one the file does not have, and a restart would answer fetches without it")
                .containsExactly(new AbortedTxn(A, 2, 10, 11));
    }

    @Test
    void anAbortGetsAnEntryInTheSegmentOfItsMarkerACommitNone() throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        try (Log log = TransactionalLogs.open(dir, 1024)) {
            producers.data(log, A, 2);                     // 0..1, segment 0
            producers.data(log, B, 1);                     // 2
            log.roll();
            TransactionalLogs.marker(log, B, false);       // 3: B committed, segment 3
            AppendInfo abort = TransactionalLogs.marker(log, A, true); // 4: A aborted
            assertThat(abort.firstOffset()).isEqualTo(4);
            Segment first = log.segments().get(0);
            Segment second = log.segments().get(1);
            assertThat(first.txnIndexFile()).as("A's transaction began in the first segment but its ABORT marker went to"
                    + " the second: the first segment gets no entry (and no file)").doesNotExist();
            assertThat(kafkasEntries(second.txnIndexFile())).as("the second segment's .txnindex, read by Kafka's"
                    + " TransactionIndex: A's aborted transaction, from its first batch at 0 to its marker at 4; B's"
                    + " commit has no entry").containsExactly(new AbortedTxn(A, 0, 4, 5));
        }
    }

    @Test
    void theEntryKeepsTheLastStableOffsetOfTheMomentItWasAborted() throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            producers.data(log, A, 1);                     // 0
            producers.data(log, B, 1);                     // 1, B's transaction open from 1
            TransactionalLogs.marker(log, A, true);        // 2
            assertThat(TransactionIndex.read(log.activeSegment().txnIndexFile())).as("A aborted at 2 while B's"
                    + " transaction, open from 1, held the last stable offset: the entry keeps 1")
                    .containsExactly(new AbortedTxn(A, 0, 2, 1));
        }
    }

    @Test
    void theIndexIsRebuiltFromTheSegmentsWhenTheLogIsOpenedAgain() throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        Path second;
        String written;
        try (Log log = TransactionalLogs.open(dir, 1024)) {
            producers.data(log, A, 2);
            producers.data(log, B, 1);
            log.roll();
            TransactionalLogs.marker(log, A, true);
            producers.data(log, A, 1);
            TransactionalLogs.marker(log, B, true);
            TransactionalLogs.marker(log, A, false);
            second = log.segments().get(1).txnIndexFile();
            written = hex(second);
        }
        Files.write(second, new byte[] {0, 0, 0, 1, 2}); // damaged, as by a crash mid-write
        Files.writeString(dir.resolve(Segment.fileName(0, Segment.TXN_INDEX_SUFFIX)), "stale");
        try (Log log = TransactionalLogs.open(dir, 1024)) {
            assertThat(log.lastStableOffset()).as("the first use after the log is opened rebuilds the transactions: none"
                    + " is open").isEqualTo(log.highWatermark());
            assertThat(hex(second)).as("the second segment's .txnindex is written again from the segments, byte for byte"
                    + " what the running log wrote: A aborted at 3 (B open from 2), B aborted at 5").isEqualTo(written);
            assertThat(TransactionIndex.read(second)).containsExactly(new AbortedTxn(A, 0, 3, 2),
                    new AbortedTxn(B, 2, 5, 4));
            assertThat(dir.resolve(Segment.fileName(0, Segment.TXN_INDEX_SUFFIX))).as("a segment with no ABORT marker"
                    + " keeps no .txnindex").doesNotExist();
        }
    }

    @Test
    void aSegmentsTxnIndexGoesWithItAndAnOrphanIsRemovedAtOpen() throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        Path firstIndex;
        try (Log log = TransactionalLogs.open(dir, 1024)) {
            producers.data(log, A, 1);
            TransactionalLogs.marker(log, A, true);
            firstIndex = log.activeSegment().txnIndexFile();
            log.roll();
            producers.data(log, B, 1);
            assertThat(firstIndex).as("the first segment holds A's ABORT: it has a .txnindex").exists();
            log.deleteSegment(log.segments().get(0));
            assertThat(firstIndex).as("retention deleted the segment: its .txnindex went with it").doesNotExist();
        }
        Path orphan = dir.resolve(Segment.fileName(500, Segment.TXN_INDEX_SUFFIX));
        Files.write(orphan, new byte[AbortedTxn.SIZE]);
        try (Log log = TransactionalLogs.open(dir, 1024)) {
            assertThat(orphan).as("a .txnindex without its segment's .log is removed when the log is opened").doesNotExist();
            assertThat(log.openEvents()).as("and the log says so").anyMatch(e -> e.contains(orphan.getFileName().toString()));
        }
    }

    @Test
    void aFollowerThatCopiesTheLeadersBatchesLearnsTheSameTransactions() throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        try (Log leader = TransactionalLogs.open(dir.resolve("leader"), 1 << 20);
             Log follower = TransactionalLogs.open(dir.resolve("follower"), 1 << 20)) {
            producers.data(leader, A, 2);
            producers.data(leader, B, 1);
            TransactionalLogs.marker(leader, A, true);
            follower.appendAsFollower(leader.read(0, 1 << 20, FetchIsolation.LOG_END));
            producers.data(leader, C, 1);
            TransactionalLogs.marker(leader, B, true);
            follower.appendAsFollower(leader.read(4, 1 << 20, FetchIsolation.LOG_END));
            assertThat(hex(follower.activeSegment().txnIndexFile())).as("the follower's .txnindex, learnt from the"
                    + " batches it copied, is the leader's byte for byte")
                    .isEqualTo(hex(leader.activeSegment().txnIndexFile()));
            assertThat(follower.lastStableOffset()).as("and C's transaction, open from 4, holds its last stable offset"
                    + " as the leader's").isEqualTo(leader.lastStableOffset()).isEqualTo(4);
        }
    }

    @Test
    void kafkasDumpLogSegmentsReadsOurTxnIndex() throws Exception {
        TransactionalLogs producers = new TransactionalLogs();
        Path file;
        try (Log log = TransactionalLogs.open(dir, 1 << 20)) {
            producers.data(log, A, 3);
            TransactionalLogs.marker(log, A, true);
            file = log.activeSegment().txnIndexFile();
        }
        String output = DumpLogSegments.run(file);
        assertThat(output).as("DumpLogSegments on our .txnindex:%n%s", output)
                .contains("producerId: 1000 firstOffset: 0 lastOffset: 3 lastStableOffset: 4")
                .doesNotContain("Exception");
    }
}
