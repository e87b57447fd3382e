package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.Tools;
import java.nio.file.Path;

/** readelf, GNU objdump and llvm-objdump read a rewritten binary without a warning. */
final class PeerTools {
    private PeerTools() {}

    static void assertReadableWithoutWarnings(Path binary) {
        for (String[] cmd : new String[][] {
                {"readelf", "-a", "-W", binary.toString()},
                {"riscv64-linux-gnu-objdump", "-d", binary.toString()},
                {"llvm-objdump-22", "-d", binary.toString()}}) {
            Tools.Result r = Tools.run(java.util.List.of(cmd), "", 120);
            assertTrue(r.exitCode() == 0 && r.stderr().isBlank(), String.join(" ", cmd) + ": " + r.stderr());
        }
    }
}
