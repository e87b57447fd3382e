package dev.splice.cli;

import dev.splice.isa.Isa;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Builds the decoder tables of every extension on another thread, so that disasm and export read
 * their input meanwhile. The isa package shares one decoder per extension set, so the listing
 * writer that asks for it later gets this one (or waits for it); nothing observable depends on it.
 */
final class DecoderTables {
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private DecoderTables() {}

    /** Starts the build once; later calls return at once. */
    static void startBuilding() {
        if (STARTED.getAndSet(true)) {
            return;
        }
        Thread thread = new Thread(() -> Isa.rv64().decoder(Isa.rv64().extensions()), "splice-decoder-tables");
        thread.setDaemon(true);
        thread.start();
    }
}
