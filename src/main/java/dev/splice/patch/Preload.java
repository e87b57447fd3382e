package dev.splice.patch;

import dev.splice.isa.Extension;
import dev.splice.listing.Assembler;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Loads what a rewrite will need (the ISA tables and the rv64gc decoder, the assembler, the
 * JDK's SHA-256 providers, which load slowly on first use) on another core, once per process, when
 * the library is first used: the input is read meanwhile. A start-up optimization only: nothing
 * observable depends on it.
 */
final class Preload {
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private Preload() {}

    static void start() {
        if (STARTED.getAndSet(true)) {
            return;
        }
        Background.start("preload", () -> {
            Rv.ISA.decoder(Extension.all());
            BuildIds.sha256().digest();
            try {
                Assembler.assemble("addi x0, x0, 0\n", "preload", 0L, Map.of());
            } catch (RuntimeException e) {
                // cannot happen for this text; a preload never fails the rewrite
            }
            return null;
        });
    }
}
