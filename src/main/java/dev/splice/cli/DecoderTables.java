package dev.splice.cli;

import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Builds the decoder tables of a set of extensions on another thread, so that disasm and export
 * read their input meanwhile. The isa package shares one decoder per extension set, so the
 * listing writer that asks for it later gets this one (or waits for it); nothing observable
 * depends on it.
 */
final class DecoderTables {
    private static final Set<Set<Extension>> STARTED = ConcurrentHashMap.newKeySet();

    private DecoderTables() {}

    /**
     * Starts the build once per set; later calls with the same set return at once.
     *
     * @param extensions the extensions of the decoder
     */
    static void startBuilding(Set<Extension> extensions) {
        if (!STARTED.add(Set.copyOf(extensions))) {
            return;
        }
        Thread thread = new Thread(() -> Isa.rv64().decoder(extensions), "splice-decoder-tables");
        thread.setDaemon(true);
        thread.start();
    }

    /** The extensions of a listing of every row (export). */
    static Set<Extension> all() {
        return Isa.rv64().extensions();
    }

    /**
     * rv64gc: the Tag_RISCV_arch of what gcc and clang build without -march options, so the
     * extensions disasm chooses by default for most files.
     */
    static Set<Extension> likelyTarget() {
        return Extension.parseTarget("rv64gc");
    }
}
