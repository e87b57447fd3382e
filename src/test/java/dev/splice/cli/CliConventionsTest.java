package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The conventions every command follows (issue 15): version and nested help, exit statuses in the
 * help, outputs that never overwrite an input, {@code -o -}, missing directories, executable
 * modes, a closed pipe. Run as a separate JVM where the behaviour is the process's (pipes, umask).
 */
class CliConventionsTest {
    @TempDir
    Path dir;

    /** The CLI in a JVM of its own, under bash (for pipes), with the test's class path. */
    private static Tools.Result shell(String script) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String splice = java + " -cp " + System.getProperty("java.class.path") + " dev.splice.cli.Main";
        return Tools.run(List.of("bash", "-c", script.replace("SPLICE", splice)), null, 120);
    }

    @Test
    void everyCommandPrintsTheVersionWithCommitAndPeers() {
        Tools.Result top = shell("SPLICE --version").checked("splice --version");
        Tools.Result sub = shell("SPLICE bat translate --version").checked("splice bat translate --version");
        assertEquals(top.stdout(), sub.stdout());
        assertTrue(top.stdout().startsWith("splice "), top.stdout());
        // The peers' versions, as each prints its own: the oracle is the tool.
        String qemu = Tools.run("qemu-riscv64", "--version").stdout();
        Matcher m = Pattern.compile("\\d+\\.\\d+(\\.\\d+)?").matcher(qemu);
        assertTrue(m.find(), qemu);
        assertTrue(top.stdout().contains("qemu-riscv64") && top.stdout().contains(m.group()), top.stdout());
        String llvm = Tools.run("llvm-objdump-22", "--version").stdout();
        Matcher l = Pattern.compile("\\d+\\.\\d+\\.\\d+").matcher(llvm);
        assertTrue(l.find(), llvm);
        assertTrue(top.stdout().contains(l.group()), top.stdout());
        assertTrue(top.stdout().contains("riscv64-linux-gnu-objdump"), top.stdout());
    }

    @Test
    void versionNamesTheCommitTheJarWasBuiltFromAndWhetherTheTreeHadChanges() throws IOException {
        // make test builds from a git checkout; the build and this test see the same HEAD.
        Tools.Result head = Tools.run("git", "-C", System.getProperty("user.dir"), "rev-parse", "--short=12", "HEAD")
                .checked("git rev-parse");
        String commit = head.stdout().trim();
        String version = new String(Main.class.getResourceAsStream("version.properties").readAllBytes());
        assertTrue(version.contains("commit=" + commit + "\n"), version);
        // and says so when tracked files had changes beside the commit (git-commit-id's git.dirty, which
        // leaves untracked files out)
        boolean changed = !Tools.run("git", "-C", System.getProperty("user.dir"), "status", "--porcelain",
                "--untracked-files=no")
                .checked("git status").stdout().isBlank();
        assertTrue(new Main.Version().getVersion()[0].endsWith("(commit " + commit
                + (changed ? ", with uncommitted changes)" : ")")), new Main.Version().getVersion()[0]);
    }


    @Test
    void helpShowsNestedCommands() {
        Tools.Result help = shell("SPLICE help bat translate").checked("splice help bat translate");
        Tools.Result direct = shell("SPLICE bat translate --help").checked("splice bat translate --help");
        assertEquals(direct.stdout(), help.stdout());
        assertTrue(help.stdout().startsWith("Usage: splice bat translate"), help.stdout());
        Tools.Result unknown = shell("SPLICE help bat nope");
        assertEquals(Main.USAGE, unknown.exitCode());
        assertTrue(unknown.stderr().contains("Unknown command 'nope' under 'splice bat'"), unknown.stderr());
    }

    @Test
    void everyHelpEndsWithTheExitStatusesAndRendersCleanly() {
        java.io.PrintStream old = System.err;
        java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(warnings, true));
        try {
            CommandLine cli = Main.forArguments("--help");
            Main.conventions(cli); // over the whole tree, as Main.execute does
            check(cli);
        } finally {
            System.setErr(old);
        }
        // picocli warns on stderr when a description is no valid format string (an unescaped %).
        assertEquals("", warnings.toString());
    }

    private static void check(CommandLine cli) {
        String usage = cli.getUsageMessage();
        assertTrue(usage.contains("Exit status:"), usage);
        for (java.util.Map.Entry<String, String> status : Main.EXIT_STATUS.entrySet()) {
            assertTrue(Pattern.compile("(?m)^\\s+" + Pattern.quote(status.getKey()) + "\\s+" + Pattern.quote(status.getValue()) + "$")
                    .matcher(usage).find(), status + " in\n" + usage);
        }
        assertTrue(Main.EXIT_STATUS.keySet().containsAll(List.of("0", "1", "2", "3", "141")), Main.EXIT_STATUS.toString());
        cli.getSubcommands().values().forEach(CliConventionsTest::check);
    }

    @Test
    void anOutputThatIsAnInputIsRefusedBeforeAnyWork() throws IOException {
        Path input = dir.resolve("loops");
        Files.copy(TestPrograms.rv64("loops.relocs"), input);
        byte[] original = Files.readAllBytes(input);
        Path nop = dir.resolve("nop.s");
        Files.writeString(nop, "nop\n");
        Path link = dir.resolve("link");
        Files.createSymbolicLink(link, input);
        Path hard = dir.resolve("hard");
        Files.createLink(hard, input);
        for (Path out : List.of(input, link, hard, nop)) {
            assertEquals(Main.BAD_INPUT, Main.execute("patch", input.toString(), "--insert-at-entries", nop.toString(),
                    "-o", out.toString()), out.toString());
        }
        assertArrayEquals(original, Files.readAllBytes(input));
        assertEquals("nop\n", Files.readString(nop));
        Path listing = dir.resolve("x.s");
        Files.writeString(listing, "nop\n");
        assertEquals(Main.BAD_INPUT, Main.execute("asm", listing.toString(), "-o", listing.toString()));
        assertEquals("nop\n", Files.readString(listing));
        assertEquals(Main.BAD_INPUT, Main.execute("disasm", input.toString(), "-o", hard.toString()));
        assertArrayEquals(original, Files.readAllBytes(input));
    }

    @Test
    void aMissingOutputDirectoryIsAnErrorAndNothingIsCreated() throws IOException {
        Path nop = dir.resolve("nop.s");
        Files.writeString(nop, "nop\n");
        Path out = dir.resolve("missing/sub/out.bin");
        assertEquals(Main.BAD_INPUT, Main.execute("asm", nop.toString(), "-o", out.toString()));
        assertFalse(Files.exists(dir.resolve("missing")));
    }

    @Test
    void dashWritesStandardOutputAndNoFileNamedDash() throws IOException {
        Path nop = dir.resolve("nop.s");
        Files.writeString(nop, "addi zero, zero, 0\n");
        Tools.Result r = shell("cd " + dir + " && SPLICE asm nop.s -o - | od -An -tx1").checked("asm -o -");
        assertEquals("13 00 00 00", r.stdout().trim());
        assertFalse(Files.exists(dir.resolve("-")));
    }

    @Test
    void executablesGet0755MaskedByTheUmask() throws IOException {
        Path nop = dir.resolve("nop.s");
        Files.writeString(nop, "nop\n");
        for (String umask : List.of("022", "077", "002")) {
            Path out = dir.resolve("out-" + umask);
            shell("umask " + umask + " && SPLICE patch " + TestPrograms.rv64("loops.relocs") + " --insert-at-entries " + nop
                    + " -o " + out).checked("patch under umask " + umask);
            Path text = dir.resolve("text-" + umask + ".s");
            shell("umask " + umask + " && SPLICE disasm " + TestPrograms.rv64("loops") + " --function main -o " + text)
                    .checked("disasm under umask " + umask);
            // The oracle: what the shell's own redirection creates under the same umask.
            Path shellFile = dir.resolve("shell-" + umask);
            shell("umask " + umask + " && : > " + shellFile).checked("shell");
            assertEquals(PosixFilePermissions.toString(Files.getPosixFilePermissions(shellFile)),
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(text)), umask);
            int mask = Integer.parseInt(umask, 8);
            assertEquals(PosixFilePermissions.toString(PosixFilePermissions.fromString(mode(0777 & ~mask))),
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(out)), umask);
        }
    }

    @Test
    void weightProbesAreExecutablesAsOutputsAre() throws IOException {
        for (String umask : List.of("022", "077")) {
            Path campaign = dir.resolve("campaign-" + umask);
            shell("umask " + umask + " && SPLICE weigh measure --contexts addi.independent --runs 1 --rounds 1 --no-progress -o "
                    + campaign).checked("weigh measure under umask " + umask);
            int mask = Integer.parseInt(umask, 8);
            for (Path probe : List.of(campaign.resolve("runs/run-01/probe.elf"), campaign.resolve("blocks-probe.elf"),
                    campaign.resolve("design-probe.elf"))) {
                assertEquals(mode(0777 & ~mask), PosixFilePermissions.toString(Files.getPosixFilePermissions(probe)), probe + " " + umask);
            }
        }
    }

    private static String mode(int bits) {
        StringBuilder s = new StringBuilder();
        String rwx = "rwx";
        for (int i = 8; i >= 0; i--) {
            s.append((bits & (1 << i)) != 0 ? rwx.charAt((8 - i) % 3) : '-');
        }
        return s.toString();
    }

    @Test
    void aClosedPipeEndsQuietly() {
        Tools.Result r = shell("SPLICE disasm " + TestPrograms.rv64("exceptions") + " | head -1; echo status=${PIPESTATUS[0]}")
                .checked("disasm | head");
        assertTrue(r.stdout().startsWith(".target rv64gc"), r.stdout());
        assertTrue(r.stdout().contains("status=" + Main.CLOSED_OUTPUT), r.stdout());
        assertEquals("", r.stderr());
    }

    @Test
    void runAndCatalogCheckTheFileFirstAndPassTheStatusThrough() throws IOException {
        Path truncated = dir.resolve("truncated");
        Files.write(truncated, java.util.Arrays.copyOf(Files.readAllBytes(TestPrograms.rv64("loops")), 40));
        Path catalog = dir.resolve("c.json");
        for (String file : List.of("/bin/true", truncated.toString())) { // an x86-64 program, a cut-off ELF header
            Tools.Result run = shell("SPLICE run " + file);
            assertEquals(Main.BAD_INPUT, run.exitCode(), file);
            assertTrue(run.stderr().startsWith("splice: " + file + ": "), run.stderr());
            Tools.Result cat = shell("SPLICE weigh catalog -o " + catalog + " -- " + file);
            assertEquals(Main.BAD_INPUT, cat.exitCode(), file);
            assertFalse(Files.exists(catalog));
        }
        // tests/programs/loops.c exits with a status computed from its work (39 for n = 1000): the oracle is QEMU.
        int status = Tools.run("qemu-riscv64", TestPrograms.rv64("loops").toString(), "1000").exitCode();
        assertTrue(status != 0, "the test needs a program that exits non-zero");
        assertEquals(status, shell("SPLICE run " + TestPrograms.rv64("loops") + " 1000").exitCode());
        assertEquals(status, shell("SPLICE weigh catalog -o " + catalog + " -- " + TestPrograms.rv64("loops") + " 1000").exitCode());
        assertTrue(Files.size(catalog) > 0);
    }

    @Test
    void disasmTakesObjdumpsOptions() throws IOException {
        Path loops = TestPrograms.rv64("loops");
        Path a = dir.resolve("a.s");
        Path b = dir.resolve("b.s");
        assertEquals(Main.OK, Main.execute("disasm", loops.toString(), "--function", "hot_loop", "--aliases", "-o", a.toString()));
        assertEquals(Main.OK, Main.execute("disasm", "-d", loops.toString(), "--disassemble=hot_loop", "-M", "aliases",
                "-o", b.toString()));
        assertEquals(Files.readString(a), Files.readString(b));
        assertEquals(Main.OK, Main.execute("disasm", loops.toString(), "--disassemble", "-M", "no-aliases", "-o", a.toString()));
        assertEquals(Main.OK, Main.execute("disasm", loops.toString(), "-o", b.toString()));
        assertEquals(Files.readString(b), Files.readString(a));
        assertEquals(Main.USAGE, Main.execute("disasm", loops.toString(), "-M", "numeric", "-o", a.toString()));
        // --start-address/--stop-address: the same instruction addresses as GNU objdump's listing.
        String nm = Tools.run("riscv64-linux-gnu-nm", loops.toString()).checked("nm").stdout();
        Matcher m = Pattern.compile("(?m)^([0-9a-f]+) T main$").matcher(nm);
        assertTrue(m.find(), nm);
        long main = Long.parseLong(m.group(1), 16);
        String from = "0x" + Long.toHexString(main + 2);
        String to = "0x" + Long.toHexString(main + 40);
        assertEquals(Main.OK, Main.execute("disasm", loops.toString(), "--start-address=" + from, "--stop-address=" + to,
                "-o", a.toString()));
        List<String> ours = new java.util.ArrayList<>();
        Matcher ad = Pattern.compile("(?m)# ([0-9a-f]+): [0-9a-f]+").matcher(Files.readString(a));
        while (ad.find()) {
            ours.add(ad.group(1));
        }
        String objdump = Tools.run("riscv64-linux-gnu-objdump", "-d", "--start-address=" + from, "--stop-address=" + to,
                loops.toString()).checked("objdump").stdout();
        List<String> theirs = new java.util.ArrayList<>();
        Matcher od = Pattern.compile("(?m)^\\s+([0-9a-f]+):\\t").matcher(objdump);
        while (od.find()) {
            theirs.add(od.group(1));
        }
        assertFalse(theirs.isEmpty(), objdump);
        assertEquals(theirs, ours);
    }

    @Test
    void addressesAreReadInEveryFormAndMeanTheSameBytes() throws IOException {
        Path loops = TestPrograms.rv64("loops.relocs");
        String nm = Tools.run("riscv64-linux-gnu-nm", loops.toString()).checked("nm").stdout();
        Matcher m = Pattern.compile("(?m)^([0-9a-f]+) T main$").matcher(nm);
        assertTrue(m.find(), nm);
        long main = Long.parseLong(m.group(1), 16);
        // The same range written as 0x hex, decimal, SYMBOL+OFFSET and (where nm printed a hex letter) bare hex.
        List<String[]> forms = new java.util.ArrayList<>(List.of(
                new String[] {"0x" + Long.toHexString(main + 4), "0x" + Long.toHexString(main + 30)},
                new String[] {Long.toString(main + 4), Long.toString(main + 30)},
                new String[] {"main+4", "main+0x1e"}));
        String bareFrom = Long.toHexString(main + 4);
        String bareTo = Long.toHexString(main + 30);
        if (bareFrom.matches("[0-9].*[a-f].*") && bareTo.matches("[0-9].*[a-f].*")) {
            forms.add(new String[] {bareFrom, bareTo});
        }
        String first = null;
        for (String[] f : forms) {
            Path out = dir.resolve("range-" + forms.indexOf(f) + ".s");
            assertEquals(Main.OK, Main.execute("disasm", loops.toString(), "--start-address", f[0], "--stop-address", f[1],
                    "-o", out.toString()), String.join(" ", f));
            String listing = Files.readString(out);
            assertTrue(listing.contains("# " + Long.toHexString(main + 4) + ":"), listing);
            if (first == null) {
                first = listing;
            }
            assertEquals(first, listing, String.join(" ", f));
        }
        // patch --insert at main+0 is the same rewrite as at main's address.
        Path nop = dir.resolve("nop.s");
        Files.writeString(nop, "nop\n");
        Path bySymbol = dir.resolve("by-symbol");
        Path byNumber = dir.resolve("by-number");
        assertEquals(Main.OK, Main.execute("patch", loops.toString(), "--insert", "main", nop.toString(), "-o", bySymbol.toString()));
        assertEquals(Main.OK, Main.execute("patch", loops.toString(), "--insert", "0x" + Long.toHexString(main), nop.toString(),
                "-o", byNumber.toString()));
        assertArrayEquals(Files.readAllBytes(byNumber), Files.readAllBytes(bySymbol));
        assertEquals(Main.BAD_INPUT, Main.execute("patch", loops.toString(), "--insert", "no_such_symbol+4", nop.toString(),
                "-o", dir.resolve("never").toString()));
        assertEquals(Main.USAGE, Main.execute("disasm", loops.toString(), "--start-address", "12zz", "-o", dir.resolve("x").toString()));
    }

    @Test
    void infoListsTheFunctionsNmNames() throws IOException {
        Path loops = TestPrograms.rv64("loops");
        Tools.Result r = shell("SPLICE info --functions --json " + loops).checked("info --functions");
        com.fasterxml.jackson.databind.JsonNode functions = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.stdout());
        java.util.Map<String, Long> ours = new java.util.HashMap<>();
        functions.forEach(f -> ours.put(f.get("name").asText() + "@" + f.get("address").asLong(), f.get("size").asLong()));
        // GNU nm -S: every sized function symbol (T/t) is listed with its address and size.
        String nm = Tools.run("riscv64-linux-gnu-nm", "-S", "--defined-only", loops.toString()).checked("nm").stdout();
        Matcher m = Pattern.compile("(?m)^([0-9a-f]+) ([0-9a-f]+) [Tt] (\\S+)$").matcher(nm);
        int seen = 0;
        while (m.find()) {
            String key = m.group(3) + "@" + Long.parseLong(m.group(1), 16);
            if (ours.containsKey(key)) {
                assertEquals(Long.parseLong(m.group(2), 16), ours.get(key), key);
                seen++;
            }
        }
        assertTrue(seen > 100 && seen * 10 >= ours.size() * 9, seen + " of " + ours.size());
        Tools.Result text = shell("SPLICE info --functions " + loops).checked("info --functions");
        assertTrue(text.stdout().lines().anyMatch(l -> l.matches("0x[0-9a-f]+ +\\d+  \\.text +hot_loop")), text.stdout());
    }

    @Test
    void weighContextsListsTheTableAndSelectsByPattern() throws IOException {
        Tools.Result all = shell("SPLICE weigh contexts --json").checked("weigh contexts");
        com.fasterxml.jackson.databind.JsonNode array = new com.fasterxml.jackson.databind.ObjectMapper().readTree(all.stdout());
        // The oracle: the table's own rows (src/main/resources/dev/splice/weigh/contexts.tsv), one per context;
        // a template row after '@expand' stands for the product of its groups' value counts, until '@end'.
        long rows = 0;
        long perRow = 1;
        for (String l : new String(dev.splice.weigh.ContextTable.class.getResourceAsStream(
                dev.splice.weigh.ContextTable.RESOURCE).readAllBytes()).lines().toList()) {
            if (l.startsWith("@expand")) {
                perRow = 1;
                for (String group : l.split("\t")) {
                    perRow *= group.startsWith("@") ? 1 : group.split(",").length;
                }
            } else if (l.equals("@end")) {
                perRow = 1;
            } else if (!l.isBlank() && !l.startsWith("#") && !l.startsWith("key\t")) {
                rows += perRow;
            }
        }
        assertEquals(rows, array.size());
        Tools.Result div = shell("SPLICE weigh contexts 'div*'").checked("weigh contexts div*");
        assertTrue(div.stdout().lines().skip(1).filter(l -> !l.endsWith(" contexts")).allMatch(l -> l.startsWith("div")), div.stdout());
        assertEquals(Main.BAD_INPUT, shell("SPLICE weigh contexts 'nosuch*'").exitCode());
    }

    @Test
    void progressIsDrawnOnlyOnATerminalUnlessAsked() {
        // Standard error is a file here, not a terminal: no bar, no carriage return.
        assertFalse(Progress.shown());
        CommandLine cli = Main.forArguments("weigh", "model", "--progress", "--help");
        cli.parseArgs("weigh", "model", "--no-progress", "--help");
        assertFalse(Progress.shown());
        cli.parseArgs("weigh", "model", "--progress", "--help");
        assertTrue(Progress.shown());
        Progress.reset();
        assertFalse(Progress.shown());
    }
}
