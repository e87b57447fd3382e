package dev.splice.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The test programs the Makefile builds from tests/programs/ (see the Makefile's `programs`
 * target). A missing program fails the test: `make test` builds them first.
 */
public final class TestPrograms {
    private TestPrograms() {}

    /** The repository root. */
    public static Path root() {
        return Path.of(System.getProperty("splice.root", ".")).toAbsolutePath().normalize();
    }

    public static Path dir() {
        return Path.of(System.getProperty("splice.programs", root().resolve("build/programs").toString()));
    }

    /** A RISC-V64 program: {@code rv64("loops")}, {@code rv64("loops.relocs")}, {@code rv64("loops.norvc")}. */
    public static Path rv64(String name) {
        return existing(dir().resolve("rv64").resolve(name));
    }

    /** An x86-64 program built with --emit-relocs: {@code x86_64("loops")}. */
    public static Path x86_64(String name) {
        return existing(dir().resolve("x86_64").resolve(name + ".relocs"));
    }

    /** The static x86-64 build (glibc, libstdc++ linked in; no --emit-relocs): {@code x86_64Static("exceptions")}. */
    public static Path x86_64Static(String name) {
        return existing(dir().resolve("x86_64-static").resolve(name));
    }

    /** The position-independent x86-64 build (with --emit-relocs) of a C program: {@code x86_64Pie("loops")}. */
    public static Path x86_64Pie(String name) {
        return existing(dir().resolve("x86_64-pie").resolve(name));
    }

    /** The position-independent, dynamically linked RISC-V64 build (with --emit-relocs): {@code rv64Pie("loops")}. */
    public static Path rv64Pie(String name) {
        return existing(dir().resolve("rv64-pie").resolve(name));
    }

    /**
     * The PIE build that links libstdc++ and libgcc statically (glibc shared, --emit-relocs):
     * {@code rv64PieLibstdcxx("exceptions")}.
     */
    public static Path rv64PieLibstdcxx(String name) {
        return existing(dir().resolve("rv64-pie-libstdcxx").resolve(name));
    }

    /** The dynamically linked, position-dependent RISC-V64 build (ET_EXEC with PT_INTERP, --emit-relocs): {@code rv64Dyn("loops")}. */
    public static Path rv64Dyn(String name) {
        return existing(dir().resolve("rv64-dyn").resolve(name));
    }

    /**
     * A RISC-V64 shared library of tests/programs/shared/ or a PIE that loads one (all with
     * --emit-relocs), in {@link #rv64SharedDir()}: {@code rv64Shared("libsplice_c.so")}, {@code rv64Shared("clib_main")}.
     */
    public static Path rv64Shared(String name) {
        return existing(rv64SharedDir().resolve(name));
    }

    /**
     * A vectorized RISC-V64 program of tests/programs/vector/ (clang-22 -O3 -march=rv64gcv, static,
     * --emit-relocs): {@code rv64Vector("vloops")}. Run it with {@link #VECTOR_CPU}.
     */
    public static Path rv64Vector(String name) {
        return existing(dir().resolve("rv64v").resolve(name));
    }

    /** QEMU's CPU model for the vectorized programs (qemu-riscv64 -cpu). */
    public static final String VECTOR_CPU = "rv64,v=true,vlen=128,vext_spec=v1.0";

    /** The directory of the shared libraries (for LD_LIBRARY_PATH). */
    public static Path rv64SharedDir() {
        return dir().resolve("rv64-shared");
    }

    /** Every RISC-V64 test program, all variants. */
    public static List<Path> allRv64() {
        try (Stream<Path> files = Files.list(existing(dir().resolve("rv64")))) {
            return files.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path existing(Path p) {
        assertTrue(Files.exists(p), p + " is missing: run 'make programs' (make test does)");
        return p;
    }
}
