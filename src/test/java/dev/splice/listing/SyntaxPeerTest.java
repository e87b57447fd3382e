package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The syntax of issue 14 against the peers: each source (test resources {@code syntax-*.s}) is
 * assembled by Splice and by GNU as 2.40 and/or llvm-mc-22 (no relaxation, linked at the same
 * address with GNU ld, since both peers leave pc-relative uses of local labels to the linker),
 * and the bytes must be equal.
 */
class SyntaxPeerTest {
    private static final long BASE = 0x10000;
    private static final String TARGET = ".target rv64gc_zicbom_zihintpause\n";

    @TempDir
    Path dir;

    @Test
    void formsBothPeersAcceptAssembleAsBothDo() throws IOException {
        String source = resource("syntax-common.s");
        String splice = dump(Assembler.assemble(TARGET + source, "syntax-common.s", BASE, Map.of()).bytes());
        assertEquals(dump(peer(false, source)), splice, "GNU as (expected) vs Splice");
        assertEquals(dump(peer(true, source)), splice, "llvm-mc-22 (expected) vs Splice");
    }

    @Test
    void formsWherePeersDifferFollowTheDocumentedPeer() throws IOException {
        String gnu = resource("syntax-gnu.s");
        assertEquals(dump(peer(false, gnu)), dump(Assembler.assemble(TARGET + gnu, "syntax-gnu.s", BASE, Map.of()).bytes()),
                "GNU as (expected) vs Splice");
        String llvm = resource("syntax-llvm.s");
        assertEquals(dump(peer(true, llvm)), dump(Assembler.assemble(TARGET + llvm, "syntax-llvm.s", BASE, Map.of()).bytes()),
                "llvm-mc-22 (expected) vs Splice");
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = SyntaxPeerTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private byte[] peer(boolean llvm, String source) throws IOException {
        Path s = dir.resolve("t.s");
        Path o = dir.resolve("t.o");
        Path x = dir.resolve("t");
        Path bin = dir.resolve("t.bin");
        Files.writeString(s, source);
        if (llvm) {
            Tools.run("llvm-mc-22", "-triple=riscv64", "-mattr=+m,+a,+f,+d,+c,+zicbom,+zihintpause,-relax", "-filetype=obj",
                    "-o", o.toString(), s.toString()).checked("llvm-mc");
        } else {
            Tools.run("riscv64-linux-gnu-as", "-march=rv64gc_zicbom_zihintpause", "-mno-relax", "-o", o.toString(),
                    s.toString()).checked("as");
        }
        Tools.run("riscv64-linux-gnu-ld", "--no-relax", "-Ttext=0x" + Long.toHexString(BASE), "-e", "0x" + Long.toHexString(BASE),
                "-o", x.toString(), o.toString()).checked("ld");
        Tools.run("riscv64-linux-gnu-objcopy", "-O", "binary", "-j", ".text", x.toString(), bin.toString()).checked("objcopy");
        return Files.readAllBytes(bin);
    }

    /** Two bytes a line with the offset: a difference points at its statement. */
    private static String dump(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bytes.length; i += 2) {
            sb.append(String.format("%04x: %02x", i, bytes[i]));
            if (i + 1 < bytes.length) {
                sb.append(String.format(" %02x", bytes[i + 1]));
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
