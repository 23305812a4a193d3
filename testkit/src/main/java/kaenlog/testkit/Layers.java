package kaenlog.testkit;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;

/**
 * kaen-log's packages have one role each, and imports run one way:
 * demo &rarr; client | server &rarr; wire &rarr; storage &rarr; batch, with the klog command framework
 * ({@code cli}) and {@code workbook} below them all. A package that imports a package above it, or two
 * packages that import each other, fail here with the classes and the line that does it.
 *
 * <p>Every chapter's rules test checks that chapter's own main classes (like the clock ban: the
 * earlier chapters come as jars and are checked by their own chapter), with every dependency they
 * have, on their own chapter's classes or an earlier one's. A new package must be placed in a layer
 * here before its chapter passes.
 */
public final class Layers {
    private static final String[] OUTSIDE = {"kaenlog.testkit..", "kaenlog.bench..", "kaenlog.reliability.."};

    private Layers() {
    }

    public static ArchRule oneWay() {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .withOptionalLayers(true)
                .layer("demo").definedBy("kaenlog.demo..")
                .layer("client").definedBy("kaenlog.client..")
                .layer("server").definedBy("kaenlog.broker..", "kaenlog.replication..", "kaenlog.coordinator..",
                        "kaenlog.logmanager..", "kaenlog.kafkawire..", "kaenlog.cluster..", "kaenlog.txn..")
                .layer("wire").definedBy("kaenlog.wire..")
                .layer("storage").definedBy("kaenlog.log..", "kaenlog.compaction..", "kaenlog.groups..",
                        "kaenlog.idem..")
                .layer("batch").definedBy("kaenlog.batch..")
                .layer("cli").definedBy("kaenlog.cli..")
                .layer("workbook").definedBy("kaenlog.workbook..")
                .whereLayer("demo").mayNotBeAccessedByAnyLayer()
                .whereLayer("client").mayOnlyBeAccessedByLayers("demo")
                .whereLayer("server").mayOnlyBeAccessedByLayers("demo")
                .whereLayer("wire").mayOnlyBeAccessedByLayers("server", "client", "demo")
                .whereLayer("storage").mayOnlyBeAccessedByLayers("wire", "server", "client", "demo")
                .whereLayer("batch").mayOnlyBeAccessedByLayers("storage", "wire", "server", "client", "demo")
                .whereLayer("cli").mayOnlyBeAccessedByLayers("server", "client", "demo")
                .ensureAllClassesAreContainedInArchitectureIgnoring(OUTSIDE)
                .because("a reader follows a request down from the demo to the bytes on disk, never back up");
    }

    public static ArchRule noCycles() {
        return slices().matching("kaenlog.(**)").should().beFreeOfCycles()
                .because("two packages that import each other are one package in two folders");
    }

    /** The testkit's classes (on every chapter's test classpath) are left out before they are read, not after. */
    private static boolean inAChapter(Location location) {
        return !location.contains("/kaenlog/testkit/") && !location.contains("/kaenlog/bench/")
                && !location.contains("/kaenlog/reliability/");
    }

    /** Checks the main (non-test) classes of the chapter under test. */
    public static void assertImportsRunOneWay() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .withImportOption(Layers::inAChapter)
                .importPackages("kaenlog")
                .that(resideInAPackage("kaenlog..").and(resideOutsideOfPackages(OUTSIDE)));
        oneWay().check(classes);
        noCycles().check(classes);
    }
}
