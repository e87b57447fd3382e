package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.fail;

import dev.splice.testing.Tools;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs llvm-objdump-22 and llvm-mc-22 on many instructions at once: raw bytes are wrapped in an
 * ELF object by llvm-objcopy (so there are no mapping symbols), disassembled with -M no-aliases;
 * instruction text is assembled by llvm-mc and the .text bytes are cut out by llvm-objcopy.
 */
final class LlvmPeer {
    /** The vector extensions (V 1.0 and the Zv* ones Splice has). */
    static final String VECTOR_MATTR = ",+v,+zvbb,+zvbc,+zvkg,+zvkned,+zvknha,+zvknhb,+zvksed,+zvksh,+zvkt,+zvfhmin";
    /** {@link Extension#classic()}'s extensions, as llvm features. */
    static final String CLASSIC_MATTR = "+m,+a,+f,+d,+c,+zicsr,+zifencei,+zihintpause,+zicbom,+zicboz,+zba,+zbb,+zbs,+zicond";
    /** The same without C. */
    static final String CLASSIC_MATTR_NO_C = "+m,+a,+f,+d,+zicsr,+zifencei,+zihintpause,+zicbom,+zicboz,+zba,+zbb,+zbs,+zicond";
    /** The features of {@link #extensions()}: the classic set and the vector extensions. */
    static final String MATTR = CLASSIC_MATTR + VECTOR_MATTR;
    static final String MATTR_NO_C = CLASSIC_MATTR_NO_C + VECTOR_MATTR;

    /** {@return the extensions {@link #MATTR} names, for Splice's side of a comparison (a new set)} */
    static java.util.Set<Extension> extensions() {
        java.util.Set<Extension> set = Extension.classic();
        set.addAll(java.util.EnumSet.of(Extension.V, Extension.ZVBB, Extension.ZVBC, Extension.ZVKG, Extension.ZVKNED,
                Extension.ZVKNHA, Extension.ZVKNHB, Extension.ZVKSED, Extension.ZVKSH, Extension.ZVKT, Extension.ZVFHMIN));
        return set;
    }

    private LlvmPeer() {}

    /** One disassembled instruction: its byte offset and llvm's mnemonic (null for unknown). */
    record Line(long offset, String mnemonic, String text) {}

    static Path tempDir() {
        try {
            return Files.createTempDirectory("splice-isa");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs a command with stdout to a file; fails the test on a non-zero exit. */
    static void run(Path stdout, String... command) {
        Tools.require(command[0]);
        try {
            Path err = Files.createTempFile("splice-isa", ".err");
            try {
                Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile())
                        .redirectError(err.toFile()).start();
                if (!p.waitFor(300, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    fail(String.join(" ", command) + " did not finish in 300 s");
                }
                if (p.exitValue() != 0) {
                    String e = Files.readString(err);
                    fail(String.join(" ", command) + " exited " + p.exitValue() + ":\n"
                            + (e.length() > 4000 ? e.substring(0, 4000) + "..." : e));
                }
            } finally {
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            fail("could not run " + command[0] + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
    }

    /** Disassembles raw little-endian bytes (as one data blob at address 0). */
    static List<Line> objdump(byte[] code, Path dir) throws IOException {
        return objdump(code, dir, true);
    }

    /** Disassembles raw bytes; {@code exact} adds -M no-aliases. */
    static List<Line> objdump(byte[] code, Path dir, boolean exact) throws IOException {
        return objdump(code, dir, exact, MATTR);
    }

    /** Disassembles raw bytes with these llvm features; {@code exact} adds -M no-aliases. */
    static List<Line> objdump(byte[] code, Path dir, boolean exact, String mattr) throws IOException {
        Path bin = dir.resolve("code.bin");
        Path obj = dir.resolve("code.o");
        Path out = dir.resolve("code.dis");
        Files.write(bin, code);
        run(dir.resolve("objcopy.out"), "llvm-objcopy-22", "-I", "binary", "-O", "elf64-littleriscv",
                bin.toString(), obj.toString());
        List<String> cmd = new ArrayList<>(List.of("llvm-objdump-22", "-D", "-z", "-j", ".data",
                "--no-show-raw-insn", "--mattr=" + mattr, obj.toString()));
        if (exact) {
            cmd.addAll(1, List.of("-M", "no-aliases"));
        }
        run(out, cmd.toArray(new String[0]));
        List<Line> lines = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
            String s;
            while ((s = r.readLine()) != null) {
                int colon = s.indexOf(':');
                int tab = s.indexOf('\t');
                if (colon <= 0 || tab < colon || !s.startsWith(" ")) {
                    continue;
                }
                long offset = Long.parseLong(s.substring(0, colon).strip(), 16);
                String text = s.substring(tab + 1).replace('\t', ' ');
                int sp = text.indexOf(' ');
                String mnemonic = sp < 0 ? text : text.substring(0, sp);
                lines.add(new Line(offset, mnemonic.equals("<unknown>") ? null : mnemonic, text));
            }
        }
        return lines;
    }

    /**
     * Assembles one instruction per line with llvm-mc and returns the .text bytes. On errors, fails
     * with the first ones and the offending lines.
     */
    static byte[] assemble(List<String> lines, String mattr, Path dir) throws IOException {
        return assemble(lines, mattr, dir, line -> false);
    }

    /**
     * The same; stderr lines that {@code tolerated} accepts (and the source lines llvm-mc quotes
     * after them) are not errors.
     */
    static byte[] assemble(List<String> lines, String mattr, Path dir, java.util.function.Predicate<String> tolerated)
            throws IOException {
        Path src = dir.resolve("in.s");
        Path obj = dir.resolve("in.o");
        Path bin = dir.resolve("in.bin");
        StringBuilder sb = new StringBuilder(lines.size() * 24);
        sb.append(".text\n.option norelax\n");
        for (String l : lines) {
            sb.append(l).append('\n');
        }
        Files.writeString(src, sb);
        Path err = dir.resolve("mc.err");
        Tools.require("llvm-mc-22");
        try {
            Process p = new ProcessBuilder("llvm-mc-22", "-triple=riscv64", "-mattr=" + mattr,
                    "-filetype=obj", "-o", obj.toString(), src.toString())
                    .redirectOutput(dir.resolve("mc.out").toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("llvm-mc did not finish");
            }
            String e = Files.readString(err);
            if (!e.isBlank() && p.exitValue() == 0) {
                StringBuilder left = new StringBuilder();
                List<String> errLines = Files.readAllLines(err);
                for (int i = 0; i < errLines.size(); i++) {
                    if (tolerated.test(errLines.get(i))) {
                        i += 2; // the quoted source line and the caret under it
                    } else {
                        left.append(errLines.get(i)).append('\n');
                    }
                }
                e = left.toString();
            }
            if (p.exitValue() != 0 || !e.isBlank()) {
                fail("llvm-mc rejected Splice's output:\n" + (e.length() > 6000 ? e.substring(0, 6000) + "..." : e));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        run(dir.resolve("objcopy2.out"), "llvm-objcopy-22", "-O", "binary", "--only-section=.text",
                obj.toString(), bin.toString());
        return Files.readAllBytes(bin);
    }

    static void deleteTree(Path dir) {
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
    }
}
