package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading the plugin: interface versions, arguments and write errors are refused loudly. */
class PluginInterfaceTest {
    @TempDir Path tmp;

    private Tools.Result qemu(String pluginArgument) {
        return Tools.run(List.of(QemuRunner.QEMU, "-plugin", pluginArgument, TestPrograms.rv64("entries").toString()),
                null, 60);
    }

    private String plugin() {
        return PluginFixtures.pluginLibrary().toString();
    }

    private void assertNoRecords() throws IOException {
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(List.of(), files.toList(), "no record file, not even a temporary one");
        }
    }

    @Test
    void theBuiltPluginLoadsAndRuns() {
        Tools.Result r = qemu(plugin() + ",mode=count,out=" + tmp.resolve("r"));
        assertEquals(42, r.exitCode(), r.stderr());
        assertTrue(Files.exists(tmp.resolve("r")));
    }

    @Test
    void aVersionQemuDoesNotOfferIsRefusedByThePlugin() throws IOException {
        // api=N makes the plugin check for version N instead of the one it was written for.
        Tools.Result r = qemu(plugin() + ",mode=count,api=2,out=" + tmp.resolve("r"));
        assertNotEquals(0, r.exitCode());
        assertTrue(r.stderr().contains("refusing to load: this plugin is written for QEMU plugin API version 2"),
                r.stderr());
        assertNoRecords();
    }

    @Test
    void aPluginDeclaringAnUnsupportedVersionIsRefusedByQemu() throws IOException {
        Path source = TestPrograms.root().resolve("native/qemu-plugin");
        Path library = tmp.resolve("libsplice-plugin-v99.so");
        List<String> gcc = new ArrayList<>(List.of("gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden",
                "-shared", "-fPIC", "-DSPLICE_DECLARED_API_VERSION=99", "-o", library.toString()));
        try (Stream<Path> files = Files.list(source)) {
            files.filter(p -> p.toString().endsWith(".c")).sorted().forEach(p -> gcc.add(p.toString()));
        }
        Tools.run(gcc, null, 120).checked("gcc");
        Tools.Result r = qemu(library + ",mode=count,out=" + tmp.resolve("r"));
        assertNotEquals(0, r.exitCode());
        assertTrue(r.stderr().contains("API version 99"), r.stderr());
        assertFalse(Files.exists(tmp.resolve("r")));
    }

    @Test
    void badArgumentsAreRefusedWithAReason() throws IOException {
        Tools.Result mode = qemu(plugin() + ",mode=fast,out=" + tmp.resolve("r"));
        assertNotEquals(0, mode.exitCode());
        assertTrue(mode.stderr().contains("unknown mode (expected count, validation, timing, catalog or trace): fast"), mode.stderr());
        Tools.Result unknown = qemu(plugin() + ",mode=count,colour=blue,out=" + tmp.resolve("r"));
        assertNotEquals(0, unknown.exitCode());
        assertTrue(unknown.stderr().contains("unknown argument"), unknown.stderr());
        Tools.Result noOut = qemu(plugin() + ",mode=count");
        assertNotEquals(0, noOut.exitCode());
        assertTrue(noOut.stderr().contains("missing argument out=FILE"), noOut.stderr());
        Tools.Result range = qemu(plugin() + ",mode=count,min_pc=0x2000,max_pc=0x1000,out=" + tmp.resolve("r"));
        assertNotEquals(0, range.exitCode());
        assertTrue(range.stderr().contains("min_pc must be below max_pc"), range.stderr());
        assertNoRecords();
    }

    @Test
    void anUnwritableRecordFileIsAnErrorNotASilentLoss() throws IOException {
        Tools.Result missingDir = qemu(plugin() + ",mode=count,out=" + tmp.resolve("no/such/dir/r"));
        assertNotEquals(0, missingDir.exitCode());
        assertTrue(missingDir.stderr().contains("cannot create"), missingDir.stderr());
        // The final rename fails when the output path is a non-empty directory.
        Path directory = Files.createDirectories(tmp.resolve("taken").resolve("child"));
        Tools.Result taken = qemu(plugin() + ",mode=count,out=" + directory.getParent());
        assertEquals(74, taken.exitCode(), taken.stderr());
        assertTrue(taken.stderr().contains("cannot write the record file"), taken.stderr());
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(List.of(tmp.resolve("taken")), files.toList(), "the temporary file is removed");
        }
    }
}
