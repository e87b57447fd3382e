package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class MainTest {
    @Test
    void versionAndHelpSucceed() {
        assertEquals(Main.OK, Main.execute("--version"));
        assertEquals(Main.OK, Main.execute("--help"));
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertEquals(Main.USAGE, Main.execute("--no-such-option"));
        assertEquals(Main.USAGE, Main.execute());
    }
}
