package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code splice disasm}'s choice of extensions: the ELF's Tag_RISCV_arch by default, {@code
 * --target ISA|PROFILE} instead (also for {@code --raw}), against llvm-objdump-22, which reads the
 * same attribute and takes {@code --mattr}: the same words are valid, with the same mnemonics.
 */
class DisasmTargetTest {
    /** An object whose attribute names Zfh and Zbc; its code also has Zcb, Zicbop and Zfa words. */
    private static final String SOURCE = """
            .attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0_zfh1p0_zfhmin1p0_zbc1p0"
            .text
            .globl f
            f:
            fadd.h fa0, fa1, fa2
            clmul a0, a1, a2
            .option push
            .option arch, +zcb, +zicbop, +zfa
            c.lbu a0, 3(a1)
            prefetch.r 64(a0)
            fli.s fa0, 0.5
            c.mul a0, a1
            .option pop
            add a0, a0, a1
            ret
            """;
    /** RVA23U64's mandatory extensions as llvm's features (profiles spec; no V in this code). */
    private static final String RVA23U64 = "+m,+a,+f,+d,+c,+zicsr,+zihintpause,+zba,+zbb,+zbs,+zicbom,+zicbop,"
            + "+zicboz,+zfhmin,+zihintntl,+zicond,+zimop,+zcmop,+zcb,+zfa,+zawrs";
    private static final Pattern LINE = Pattern.compile("#\\s*([0-9a-f]+): ([0-9a-f]+)$");

    @TempDir
    Path dir;
    Path object;
    Path bare;
    Path text;

    @BeforeEach
    void build() throws IOException {
        Path src = dir.resolve("attr.s");
        Files.writeString(src, SOURCE);
        object = dir.resolve("attr.o");
        Tools.run("llvm-mc-22", "-triple=riscv64", "-filetype=obj", src.toString(), "-o", object.toString()).checked("llvm-mc");
        bare = dir.resolve("bare.o");
        Tools.run("llvm-objcopy-22", "--remove-section=.riscv.attributes", object.toString(), bare.toString()).checked("objcopy");
        text = dir.resolve("text.bin");
        Tools.run("llvm-objcopy-22", "-O", "binary", "--only-section=.text", object.toString(), text.toString()).checked("objcopy");
    }

    @Test
    void theAttributeChoosesTheExtensionsAsInLlvmObjdump() throws IOException {
        Map<Long, String> ours = splice("disasm", object.toString());
        assertEquals(llvm(object, null), ours);
        assertEquals("clmul", ours.get(4L));
        assertEquals(null, ours.get(8L), "c.lbu: Zcb is not in the attribute");
        assertEquals("ori", ours.get(10L), "prefetch.r without Zicbop is its ori HINT");
    }

    @Test
    void targetOverridesTheAttribute() throws IOException {
        Map<Long, String> more = splice("disasm", "--target", "rv64gc_zfh_zbc_zcb_zicbop_zfa", object.toString());
        assertEquals(llvm(object, "+zcb,+zicbop,+zfa"), more);
        assertEquals("prefetch.r", more.get(10L));
        assertEquals("fli.s", more.get(14L));
        Map<Long, String> less = splice("disasm", "--target", "rv64gc", object.toString());
        assertEquals(llvm(bare, "+m,+a,+f,+d,+c"), less);
        assertEquals(null, less.get(0L), "fadd.h without Zfh");
    }

    @Test
    void rawInputTakesProfilesAndDefaultsToTheClassicSet() throws IOException {
        Map<Long, String> rva23 = splice("disasm", "--raw", "--target", "rva23u64", text.toString());
        assertEquals(llvm(bare, RVA23U64), rva23);
        assertEquals("c.mul", rva23.get(18L));
        Map<Long, String> classic = splice("disasm", "--raw", text.toString());
        assertEquals(llvm(bare, "+m,+a,+f,+d,+c,+zicsr,+zifencei,+zihintpause,+zicbom,+zicboz,+zba,+zbb,+zbs,+zicond"), classic);
        assertEquals(Main.USAGE, Main.execute("disasm", "--raw", "--target", "rv64gc_zfoo", text.toString()));
    }

    @Test
    void listingsOfEveryTargetReassemble() throws IOException {
        for (String target : new String[] {"rv64gc_zfh_zbc_zcb_zicbop_zfa", "rva23u64", "rv64gc"}) {
            Path listing = dir.resolve("l.s");
            assertEquals(Main.OK, Main.execute("disasm", "--raw", "--target", target, text.toString(), "-o", listing.toString()));
            Path bin = dir.resolve("l.bin");
            assertEquals(Main.OK, Main.execute("asm", listing.toString(), "-o", bin.toString()), target);
            assertArrayEquals(Files.readAllBytes(text), Files.readAllBytes(bin), target);
        }
    }

    /** Address to mnemonic of the listing (null for raw words). */
    private Map<Long, String> splice(String... args) throws IOException {
        Path out = dir.resolve("out.s");
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("-o", out.toString()));
        assertEquals(Main.OK, Main.execute(all.toArray(new String[0])));
        Map<Long, String> m = new TreeMap<>();
        for (String line : Files.readAllLines(out)) {
            Matcher x = LINE.matcher(line);
            if (x.find()) {
                String word = line.strip().split("\\s+")[0];
                m.put(Long.parseLong(x.group(1), 16), word.equals(".insn") ? null : word);
            }
        }
        assertTrue(m.size() >= 8, m.toString());
        return m;
    }

    /** Address to mnemonic as llvm-objdump-22 -d -M no-aliases prints them (null for unknown). */
    private Map<Long, String> llvm(Path file, String mattr) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("llvm-objdump-22", "-d", "-M", "no-aliases", "--no-show-raw-insn"));
        if (mattr != null) {
            cmd.add("--mattr=" + mattr);
        }
        cmd.add(file.toString());
        Tools.Result r = Tools.run(cmd, null, 60);
        assertEquals(0, r.exitCode(), r.stderr());
        Map<Long, String> m = new TreeMap<>();
        for (String line : r.stdout().split("\n")) {
            Matcher x = Pattern.compile("^\\s+([0-9a-f]+):\\s+(\\S+)").matcher(line);
            if (x.find()) {
                m.put(Long.parseLong(x.group(1), 16), x.group(2).equals("<unknown>") ? null : x.group(2));
            }
        }
        return m;
    }
}
