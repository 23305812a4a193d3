package kaenlog.testkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnitAccess;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;
import java.util.TreeSet;

/**
 * No clock and no unseeded randomness in chapter code: time enters as {@code nowMs}, so every
 * demo and test is deterministic. One class is the declared seam, {@link #SEAM}: the command-line
 * edge reads the wall clock there and passes it in, as a running broker must. No other class is allowed, whatever its name or package.
 */
public final class ClockBan {
    /** The only class allowed to read the wall clock (chapter 1's {@code kaenlog.cli.WallClock}). */
    public static final String SEAM = "kaenlog.cli.WallClock";

    /** "owner.name/parameter count" of every forbidden call. */
    private static final Set<String> FORBIDDEN = Set.of(
            "java.lang.System.currentTimeMillis/0", "java.lang.System.nanoTime/0",
            "java.lang.Math.random/0", "java.lang.StrictMath.random/0",
            "java.util.Date.<init>/0", "java.util.Random.<init>/0", "java.security.SecureRandom.<init>/0",
            "java.util.concurrent.ThreadLocalRandom.current/0", "java.util.UUID.randomUUID/0",
            "java.time.Clock.systemUTC/0", "java.time.Clock.systemDefaultZone/0", "java.time.Clock.system/1");

    private ClockBan() {
    }

    public static final DescribedPredicate<JavaCodeUnitAccess<?>> READS_A_CLOCK = DescribedPredicate.describe(
            "a clock or unseeded randomness (System.currentTimeMillis, nanoTime, X.now(), new Date(), new Random(), ...)",
            call -> {
                String owner = call.getTargetOwner().getName();
                String name = call.getTarget().getName();
                int params = call.getTarget().getRawParameterTypes().size();
                boolean javaTimeNow = owner.startsWith("java.time.") && name.equals("now");
                return javaTimeNow || FORBIDDEN.contains(owner + "." + name + "/" + params);
            });

    public static ArchRule rule() {
        return noClasses().that().doNotHaveFullyQualifiedName(SEAM).should().callCodeUnitWhere(READS_A_CLOCK)
                .because("time enters chapter code as nowMs and randomness only with a seed; the wall clock is"
                        + " read only at the edge, in " + SEAM);
    }

    /** Checks the main (non-test) classes of the given packages. */
    public static void assertNoClockIn(String... packages) {
        rule().check(mainClasses(packages));
    }

    /**
     * The main classes of these packages that read a clock, the seam included: a chapter's rules
     * test asserts that this is exactly the seam, so a second reader cannot hide behind it.
     */
    public static Set<String> classesReadingAClock(String... packages) {
        Set<String> readers = new TreeSet<>();
        for (JavaClass c : mainClasses(packages)) {
            if (c.getCodeUnitCallsFromSelf().stream().anyMatch(READS_A_CLOCK)
                    || c.getMethodReferencesFromSelf().stream().anyMatch(READS_A_CLOCK)) {
                readers.add(c.getName());
            }
        }
        return readers;
    }

    private static JavaClasses mainClasses(String... packages) {
        return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages(packages);
    }
}
