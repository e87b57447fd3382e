package dev.splice.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The main sources keep the package table of docs/architecture.md: every import of, and every fully
 * qualified reference to, a {@code dev.splice} name is allowed by the row of the file's top package.
 * The other tests show that the check finds what it must find, on sources made in memory.
 */
class ArchitectureTest {
    private static final Path MAIN = TestPrograms.root().resolve("src/main/java");

    @Test
    void mainSourcesKeepThePackageTable() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(MAIN)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        assertTrue(files.size() > 100, "too few sources under " + MAIN + ": " + files.size());
        List<PackageTable.Violation> violations = new ArrayList<>();
        for (Path f : files) {
            String name = MAIN.relativize(f).toString();
            violations.addAll(PackageTable.check(JavaSource.parse(name, Files.readString(f, StandardCharsets.UTF_8))));
        }
        assertTrue(violations.isEmpty(), violations.size() + " references break the package table:\n"
                + violations.stream().map(Object::toString).collect(Collectors.joining("\n")));
    }

    @Test
    void compiledClassesKeepThePackageTable() {
        Path classes = TestPrograms.root().resolve("target/classes");
        List<CompiledDependencies.Use> uses = CompiledDependencies.of(classes);
        assertTrue(uses.size() > 100, "too few class uses found in " + classes + ": " + uses.size());
        List<PackageTable.Violation> violations = new ArrayList<>();
        uses.forEach(u -> violations.addAll(PackageTable.check(u)));
        assertTrue(violations.isEmpty(), violations.size() + " class uses break the package table:\n"
                + violations.stream().map(Object::toString).collect(Collectors.joining("\n")));
    }

    @Test
    void aForbiddenUseInBytecodeIsReported() {
        List<CompiledDependencies.Use> uses = CompiledDependencies.parse("""
                classes -> java.base
                   dev.splice.bat.BatCodec                            -> dev.splice.base.ByteReader                         classes
                   dev.splice.bat.BatCodec                            -> dev.splice.isa.Opcode$Kind                         classes
                   dev.splice.bat.BatCodec                            -> java.util.List                                     java.base
                   dev.splice.cli.Main                                -> dev.splice.isa.Opcode                              classes
                """);
        assertEquals(3, uses.size(), uses.toString());
        List<PackageTable.Violation> v = new ArrayList<>();
        uses.forEach(u -> v.addAll(PackageTable.check(u)));
        assertEquals(List.of(new PackageTable.Violation("dev.splice.bat.BatCodec.class", 0,
                "use of dev.splice.isa.Opcode$Kind", "bat may use base, elf")), v);
    }

    @Test
    void aForbiddenImportIsReportedWithFileImportAndRule() {
        List<PackageTable.Violation> v = check("dev/splice/bat/Bad.java", """
                package dev.splice.bat;

                import dev.splice.elf.ElfFile;
                import dev.splice.isa.Opcode;
                import java.util.List;

                final class Bad {}
                """);
        assertEquals(1, v.size(), v.toString());
        assertEquals(new PackageTable.Violation("dev/splice/bat/Bad.java", 4, "import dev.splice.isa.Opcode",
                "bat may use base, elf"), v.get(0));
        assertEquals("dev/splice/bat/Bad.java:4: import dev.splice.isa.Opcode breaks the rule: bat may use base, elf",
                v.get(0).toString());
    }

    @Test
    void staticImportsAndQualifiedNamesInCodeAreReferences() {
        List<PackageTable.Violation> v = check("B.java", """
                package dev.splice.base;

                import static dev.splice.elf.Le.le16;

                final class B {
                    Object o = dev.splice.isa.Isa.rv64gc();
                }
                """);
        assertEquals(List.of("import dev.splice.elf.Le.le16", "reference dev.splice.isa.Isa.rv64gc"),
                v.stream().map(PackageTable.Violation::reference).toList());
        assertEquals(List.of(3, 6), v.stream().map(PackageTable.Violation::line).toList());
        assertEquals("base may use no other package", v.get(0).rule());
    }

    @Test
    void commentsAndLiteralsAreNoReferences() {
        assertEquals(List.of(), check("B.java", """
                package dev.splice.bat;

                /** Unlike {@link dev.splice.isa.Decoder}, this reads tables. */
                final class B {
                    // dev.splice.patch.Inserter writes them.
                    String main = "dev.splice.cli.Main";
                    char c = '"';
                    String s = "\\" dev.splice.cli.Main";
                }
                """));
    }

    @Test
    void subpackagesBelongToTheirTopPackage() {
        assertEquals(List.of(), check("R.java", """
                package dev.splice.elf.reloc;
                import dev.splice.elf.ElfFile;
                import dev.splice.elf.unwind.EhFrame;
                import dev.splice.base.Le;
                final class R {}
                """));
        assertEquals(List.of(), check("M.java", """
                package dev.splice.weigh.model;
                import dev.splice.weigh.campaign.PairRow;
                import dev.splice.listing.ListingWriter;
                final class M {}
                """));
        List<PackageTable.Violation> v = check("X.java", """
                package dev.splice.cfg.x86;
                import dev.splice.bat.BatMap;
                final class X {}
                """);
        assertEquals(List.of("cfg may use base, elf, isa"), v.stream().map(PackageTable.Violation::rule).toList());
    }

    @Test
    void theRootPackageMayUseAllButCliAndNoLibraryPackageMayUseIt() {
        assertEquals(List.of(), check("Binary.java", """
                package dev.splice;
                import dev.splice.patch.Inserter;
                import dev.splice.profile.ProfileTranslation;
                import dev.splice.weigh.model.WeighModel;
                public final class Binary {}
                """));
        List<PackageTable.Violation> fromRoot = check("Binary.java", """
                package dev.splice;
                import dev.splice.cli.Main;
                public final class Binary {}
                """);
        assertEquals(List.of("dev.splice (the entry surface) may use every package but cli"),
                fromRoot.stream().map(PackageTable.Violation::rule).toList());
        List<PackageTable.Violation> toRoot = check("P.java", """
                package dev.splice.patch;
                import dev.splice.Binary;
                final class P {}
                """);
        assertEquals(List.of("import dev.splice.Binary"), toRoot.stream().map(PackageTable.Violation::reference).toList());
    }

    @Test
    void cliMayUseEverything() {
        assertEquals(List.of(), check("Main.java", """
                package dev.splice.cli;
                import dev.splice.Binary;
                import dev.splice.patch.Inserter;
                import dev.splice.weigh.qemu.QemuRunner;
                final class Main {}
                """));
    }

    @Test
    void aPackageWithoutARowIsReported() {
        List<PackageTable.Violation> v = check("dev/splice/misc/U.java", """
                package dev.splice.misc;
                final class U {}
                """);
        assertEquals(List.of(new PackageTable.Violation("dev/splice/misc/U.java", 1, "package dev.splice.misc",
                "every top package has a row in the table; misc has none")), v);
    }

    private static List<PackageTable.Violation> check(String file, String source) {
        return PackageTable.check(JavaSource.parse(file, source));
    }
}
