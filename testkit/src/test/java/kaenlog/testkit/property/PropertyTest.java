package kaenlog.testkit.property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

class PropertyTest {

    @Test
    void theSameSeedTriesTheSameInputs() {
        List<Integer> first = new ArrayList<>();
        List<Integer> second = new ArrayList<>();
        Property.forAll(Gens.ints()).tries(50).check(first::add);
        Property.forAll(Gens.ints()).tries(50).check(second::add);
        assertThat(first).as("a property's inputs come from a fixed seed").hasSize(50).isEqualTo(second);
    }

    @Test
    void aFailureShrinksToTheSmallestInputThatStillFails() {
        assertThatThrownBy(() -> Property.forAll(Gens.ints()).check(x -> assertThat(x).as("small").isLessThan(1000)))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("the smallest input found: 1000\n");
    }

    @Test
    void shrinkingNeverReportsAnExceptionOfTheGeneratorInsteadOfTheFailure() {
        // Deleting the first draw moves the recorded -5 to where elements() draws an index below 3.
        Gen<Long> gen = c -> Gens.elements(1L, 2L, 3L).generate(c) * c.picked(() -> -5L);
        assertThatThrownBy(() -> Property.forAll(gen).check(x -> assertThat(x).as("zero").isZero()))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageStartingWith("[zero]");
    }

    @Test
    void aListShrinksToItsOneOffendingElement() {
        assertThatThrownBy(() -> Property.forAll(Gens.lists(Gens.ints(0, 10_000), 0, 50))
                .check(list -> assertThat(list).as("no element above 100").allMatch(x -> x <= 100)))
                .hasMessageContaining("the smallest input found: [101]\n");
    }

    @Test
    void aListWhoseSizeIsDrawnFirstShrinksToItsOneOffendingElement() {
        assertThatThrownBy(() -> Property.forAll(Gens.listOf(Gens.ints(0, 6), i -> Gens.ints(0, 10_000)))
                .shrinkBudget(40).check(list -> assertThat(list).as("no element above 100").allMatch(x -> x <= 100)))
                .as("an element is deleted whole, its draws with one off the size drawn before them, in few runs"
                        + " of the check (a property whose check opens files has a budget of a few hundred)")
                .hasMessageContaining("the smallest input found: [101]\n");
    }

    @Test
    void aListOfMixedGeneratorsShrinksThroughReplayedPickedLongs() {
        assertThatThrownBy(() -> Property.forAll(Gens.lists(Gens.oneOf(Gens.longs().map(v -> "n" + v),
                Gens.elements("a", "b", "c")), 0, 20)).check(list -> assertThat(list).as("no c").doesNotContain("c")))
                .as("shrinking a list of mixed generators replays picked longs into elements' draws")
                .isInstanceOf(AssertionFailedError.class).hasMessageContaining("the smallest input found: [\"c\"]");
    }

    @Test
    void shrinkingSpendsNoMoreReplaysThanItsBudget() {
        List<Integer> replays = new ArrayList<>();
        assertThatThrownBy(() -> Property.forAll(Gens.ints(0, 1_000_000)).tries(1_000).shrinkBudget(3).check(x -> {
            replays.add(x);
            assertThat(x).as("small").isLessThan(1000);
        })).hasMessageContaining("the smallest input found: ");
        int failedAt = replays.indexOf(replays.stream().filter(x -> x >= 1000).findFirst().orElseThrow());
        assertThat(replays.size() - failedAt - 1).as("replays after the first failing input").isLessThanOrEqualTo(3);
    }

    @Test
    void aReplayedDrawWithItsTopBitSetStaysWithinTheBound() {
        // shrinking replays draws where a generator reads them: a long another generator picked (negative as a
        // signed number) may be read by a bounded choice; it must give the largest choice, not a negative index
        Choices replay = Choices.replay(new long[] {-5, Long.MIN_VALUE, 2, 9});
        assertThat(new int[] {replay.belowInt(4), replay.belowInt(4), replay.belowInt(4), replay.belowInt(4)})
                .as("each bounded choice within [0, 4): unsigned draws past the bound are the largest choice")
                .containsExactly(3, 3, 2, 3);
    }

    @Test
    void aWorkbookTodoFailsAtOnceUnchanged() {
        UnsupportedOperationException todo = new UnsupportedOperationException("TODO ch01 task 1: zig-zag (VarintTest)");
        List<Integer> seen = new ArrayList<>();
        assertThatThrownBy(() -> Property.forAll(Gens.ints()).check(x -> {
            seen.add(x);
            throw todo;
        })).isSameAs(todo);
        assertThat(seen).as("a TODO is not shrunk").hasSize(1);
    }

    @Test
    void anExceptionOfTheCodeIsReportedWithItsTypeAndKeptAsTheCause() {
        assertThatThrownBy(() -> Property.forAll(Gens.bytes(0, 20)).check(b -> {
            if (b.length > 3) {
                throw new IndexOutOfBoundsException("index " + b.length);
            }
        })).hasMessageStartingWith("java.lang.IndexOutOfBoundsException: index 4")
                .hasMessageContaining("the smallest input found: 00 00 00 00")
                .hasCauseInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void theGeneratorsReachTheEdges() {
        Set<Long> longs = new HashSet<>();
        Property.forAll(Gens.longs()).tries(500).check(longs::add);
        assertThat(longs).contains(0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE, (long) Integer.MIN_VALUE);
        Set<Integer> ints = new HashSet<>();
        Property.forAll(Gens.ints(-5, 300)).tries(500).check(ints::add);
        assertThat(ints).contains(-5, 300, 0, 255, 256).allMatch(x -> x >= -5 && x <= 300);
        List<String> strings = new ArrayList<>();
        Property.forAll(Gens.strings(0, 10)).tries(300).check(strings::add);
        assertThat(strings).anyMatch(String::isEmpty).anyMatch(s -> s.codePoints().anyMatch(cp -> cp > 0xFFFF))
                .anyMatch(s -> s.codePoints().anyMatch(cp -> cp >= 0x80 && cp < 0x800));
    }

    @Test
    void damagedBytesMakeEveryFaultAndShrinkToTheFewest() {
        byte[] original = new byte[40];
        for (int i = 0; i < original.length; i++) {
            original[i] = (byte) i;
        }
        List<byte[]> seen = new ArrayList<>();
        Property.forAll(Gens.damaged(original)).tries(500).check(seen::add);
        assertThat(seen).as("undamaged, cut short, a byte dropped or inserted, a byte changed")
                .anyMatch(b -> java.util.Arrays.equals(b, original))
                .anyMatch(b -> b.length < original.length - 1)
                .anyMatch(b -> b.length == original.length + 1)
                .anyMatch(b -> b.length == original.length && !java.util.Arrays.equals(b, original));
        assertThatThrownBy(() -> Property.forAll(Gens.faults()).check(f -> assertThat(f.none()).as("no fault").isTrue()))
                .as("faults shrink to the fewest and simplest: one, a byte set to 0 at the first place")
                .hasMessageContaining("the smallest input found: Faults[faults=[Fault[kind=0, where=0, value=0]]]");
        Property.forAll(Gens.damaged(original, 10, 20)).tries(300).check(b -> {
            for (int i = 0; i < 10 && i < b.length; i++) {
                assertThat(b[i]).as("no fault before the range: byte %d", i).isEqualTo(original[i]);
            }
        });
    }

    @Test
    void aDisagreementSaysBothAnswersAndTheRule() {
        assertThatThrownBy(() -> Judge.agree("the varint of -64", "bytes", new byte[] {(byte) 0xc0, (byte) 0xff, 0x0f},
                "ByteUtils.writeVarint writes", new byte[] {0x7f}, "zig-zag first, so that small negative numbers take one byte"))
                .hasMessage("for the varint of -64 your bytes are c0 ff 0f, Kafka's ByteUtils.writeVarint writes 7f: "
                        + "zig-zag first, so that small negative numbers take one byte");
    }

    @Test
    void anExceptionOfYourCodeIsToldAsYourAnswer() {
        assertThatThrownBy(() -> Judge.agree("the varint of -64", "bytes", () -> {
            throw new java.nio.BufferOverflowException();
        }, "ByteUtils.writeVarint writes", new byte[] {0x7f}, "zig-zag first"))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessage("for the varint of -64 your bytes are a refusal (BufferOverflowException: null), Kafka's"
                        + " ByteUtils.writeVarint writes 7f: zig-zag first");
        Judge.agree("the varint of 0", "bytes", () -> new byte[] {0}, "ByteUtils.writeVarint writes", new byte[] {0},
                "zig-zag first");
    }

    @Test
    void twoRefusalsAgreeWhateverTheirTypes() {
        Judge.Outcome yours = Judge.Outcome.of(() -> {
            throw new IllegalArgumentException("too long");
        });
        Judge.Outcome kafkas = Judge.Outcome.of(() -> {
            throw new IllegalStateException("varint too long");
        });
        assertThat(yours).isEqualTo(kafkas).isNotEqualTo(Judge.Outcome.of(() -> 7));
    }
}
