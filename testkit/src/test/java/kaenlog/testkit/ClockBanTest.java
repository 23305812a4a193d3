package kaenlog.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.time.Instant;
import java.util.Date;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClockBanTest {
    static class ReadsTheClock {
        long now() {
            return System.currentTimeMillis();
        }
    }

    static class AsksJavaTime {
        Instant now() {
            return Instant.now();
        }
    }

    static class MakesADate {
        Date now() {
            return new Date();
        }
    }

    static class RollsUnseededDice {
        int roll() {
            return new Random().nextInt(6);
        }
    }

    static class TakesTimeAsAParameter {
        long later(long nowMs) {
            return nowMs + new Random(42).nextInt(6);
        }
    }

    @Test
    void everyKindOfClockIsCaught() {
        for (Class<?> offender : new Class<?>[] {ReadsTheClock.class, AsksJavaTime.class, MakesADate.class,
            RollsUnseededDice.class}) {
            assertThatThrownBy(() -> ClockBan.rule().check(new ClassFileImporter().importClasses(offender)))
                    .as("the clock ban must catch %s", offender.getSimpleName())
                    .isInstanceOf(AssertionError.class);
        }
    }

    /** Named like the seam, but not it: the exemption is one fully qualified name, not a simple name. */
    static class WallClock {
        long nowMs() {
            return System.currentTimeMillis();
        }
    }

    @Test
    void onlyTheDeclaredSeamMayReadTheClockNotAClassThatBorrowsItsName() {
        assertThat(ClockBan.SEAM).as("the seam is chapter 1's command-line edge").isEqualTo("kaenlog.cli.WallClock");
        assertThatThrownBy(() -> ClockBan.rule().check(new ClassFileImporter().importClasses(WallClock.class)))
                .as("a class called WallClock elsewhere is not the seam: the clock ban must still catch it")
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void timeAsAParameterAndSeededRandomnessAreAllowed() {
        assertThatCode(() -> ClockBan.rule().check(new ClassFileImporter().importClasses(TakesTimeAsAParameter.class)))
                .doesNotThrowAnyException();
    }
}
