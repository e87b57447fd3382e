package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The ELF files the elf tests read: every test program and a few system files of the installed packages. */
final class ElfSamples {
    private ElfSamples() {}

    /** System ELF files that the Makefile's Debian packages install (a missing one fails the test). */
    static final List<String> SYSTEM = List.of(
            "/bin/ls",
            "/usr/bin/qemu-riscv64",
            "/usr/lib/x86_64-linux-gnu/libc.so.6",
            "/usr/riscv64-linux-gnu/lib/libc.so.6");

    static List<Path> system() {
        List<Path> out = new ArrayList<>();
        for (String s : SYSTEM) {
            Path p = Path.of(s);
            assertTrue(Files.isRegularFile(p), s + " is missing: run 'make deps'");
            out.add(p);
        }
        return out;
    }

    static List<Path> programs() {
        List<Path> out = new ArrayList<>(TestPrograms.allRv64());
        out.add(TestPrograms.x86_64("loops"));
        out.add(TestPrograms.x86_64("exceptions"));
        // Every other x86-64 program the Makefile builds.
        try (var files = Files.list(TestPrograms.dir().resolve("x86_64"))) {
            files.filter(Files::isRegularFile).sorted().filter(p -> !out.contains(p)).forEach(out::add);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }

    static List<Path> all() {
        List<Path> out = programs();
        out.addAll(system());
        out.addAll(BoltedSamples.all());
        return out;
    }
}
