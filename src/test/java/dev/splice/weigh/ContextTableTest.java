package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.testing.Tools;
import dev.splice.weigh.campaign.PluginRecords;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The context table: its invariants, its loader's refusals, and every slot checked with llvm-mc and QEMU. */
class ContextTableTest {
    private static final String MATTR = "+m,+a,+f,+d,+c,+zba,+zbb,+zbs,+zicond,+zfh,+zbc,+zbkb,+zbkx,+v,"
            + "+zknd,+zkne,+zknh,+zksed,+zksh,+zkr";
    private static final ContextTable TABLE = ContextTable.load();

    @TempDir Path tmp;

    @Test
    void coversTheIssuesExamplesAndEveryExtension() {
        assertTrue(TABLE.contexts().size() >= 200, TABLE.contexts().size() + " contexts");
        for (String key : List.of("addi.independent", "div.dependency", "ld.hot-load", "beq.taken", "beq.not-taken",
                "jalr.indirect-jump", "jalr.call", "jalr.ret", "sc.d.reservation-pair", "fdiv.d.dependency.nx-set",
                "fdiv.d.dependency.nx-clear", "fcvt.w.d.rtz", "csrrs.fflags", "fence.rw-rw", "c.addi.dependency")) {
            assertTrue(TABLE.context(key).isPresent(), key);
        }
        Set<String> extensions = TABLE.contexts().stream().map(Context::extension).collect(Collectors.toSet());
        assertEquals(Set.of("i", "m", "a", "f", "d", "c", "zicsr", "zifencei", "zba", "zbb", "zbs", "zicond",
                "zfh", "zbc", "zbkb", "zbkx", "v", "zknd", "zkne", "zknh", "zksed", "zksh", "zkr"), extensions);
        // issue 14: vector contexts for e8/e32/e64 x m1/m2/m8 at vlen 128 and 256, each on its CPU model
        for (String vlen : List.of("128", "256")) {
            for (String vtype : List.of("e8m1", "e8m2", "e8m8", "e32m1", "e32m2", "e32m8", "e64m1", "e64m2", "e64m8")) {
                Context c = TABLE.context("vadd.vv.dependency." + vtype + ".vlen" + vlen).orElseThrow();
                assertEquals(Optional.of("rv64,v=true,vlen=" + vlen + ",vext_spec=v1.0"), c.cpu(), c.key());
            }
        }
        // session 8: every SEW (e16 too) at LMUL 1/2 (SEW <= 32: ELEN is 64), 1, 2, 4 and 8, FP at e16, e32, e64
        for (String vlen : List.of("128", "256")) {
            for (int sew : List.of(8, 16, 32, 64)) {
                for (String lmul : List.of("mf2", "m1", "m2", "m4", "m8")) {
                    String config = ".e" + sew + lmul + ".vlen" + vlen;
                    boolean valid = sew <= 32 || !lmul.equals("mf2");
                    for (String key : List.of("vadd.vv.dependency", "vadd.vx.dependency", "vmul.vv.dependency",
                            "vle" + sew + ".v.hot-load", "vse" + sew + ".v.hot-store", "vlse" + sew + ".v.hot-load",
                            "vluxei" + sew + ".v.hot-load", "vredsum.vs.dependency")) {
                        assertEquals(valid, TABLE.context(key + config).isPresent(), key + config);
                    }
                    for (String key : List.of("vfadd.vv.dependency", "vfmacc.vv.dependency")) {
                        assertEquals(valid && sew >= 16, TABLE.context(key + config).isPresent(), key + config);
                    }
                }
            }
        }
        for (String key : List.of("aes64es", "aes64esm", "aes64ds", "aes64dsm", "aes64ks1i", "aes64ks2", "aes64im",
                "sha256sig0", "sha256sig1", "sha256sum0", "sha256sum1", "sha512sig0", "sha512sig1", "sha512sum0",
                "sha512sum1", "sm3p0", "sm3p1", "sm4ed", "sm4ks")) {
            assertTrue(TABLE.context(key + ".dependency").isPresent(), key);
            assertTrue(TABLE.context(key + ".independent").isPresent(), key);
        }
        assertTrue(TABLE.context("csrrw.seed").isPresent());
    }

    @Test
    void selectionByGlob() {
        List<Context> div = TABLE.select("div*");
        assertFalse(div.isEmpty());
        assertTrue(div.stream().allMatch(c -> c.key().startsWith("div")));
        assertEquals(Set.of("div", "divu", "divw", "divuw"),
                div.stream().map(Context::mnemonic).collect(Collectors.toSet()));
        assertEquals(2, TABLE.select("beq.taken, beq.not-taken").size());
        BadInputException e = assertThrows(BadInputException.class, () -> TABLE.select("vsetvli*"));
        assertTrue(e.getMessage().contains("'vsetvli*' matches no context"), e.getMessage());
    }

    @Test
    void everySlotAssemblesToItsMnemonicAndForm() {
        // llvm-mc-22 without aliases prints the canonical mnemonic; the size follows from the encoding.
        StringBuilder source = new StringBuilder();
        for (Context c : TABLE.contexts()) {
            source.append(c.form() == Context.Form.FULL ? ".option norvc\n" : ".option rvc\n");
            source.append(c.slotWith("t3", "ft4").replace("1f", "2")).append('\n');
        }
        Tools.Result r = Tools.run(List.of("llvm-mc-22", "--triple=riscv64", "-mattr=" + MATTR, "-show-encoding",
                "-M", "no-aliases"), source.toString(), 120).checked("llvm-mc-22");
        List<String> lines = r.stdout().lines().filter(l -> l.contains("# encoding: [")).toList();
        assertEquals(TABLE.contexts().size(), lines.size(), "one instruction per slot");
        for (int i = 0; i < lines.size(); i++) {
            Context c = TABLE.contexts().get(i);
            String line = lines.get(i).strip();
            String printed = line.split("\\s+", 2)[0];
            int bytes = line.substring(line.indexOf('[') + 1, line.indexOf(']')).split(",").length;
            assertEquals(c.mnemonic(), printed, c.key() + ": " + line);
            assertEquals(c.form().size(), bytes, c.key() + " size: " + line);
        }
    }

    private static final String PROLOGUE = """
            .text
            .globl _start
            _start:
                li a0, 0
                li a1, 1
                li a2, 2
                lla s0, hot
                li s1, 1
                lla t0, fconst
                fld fa0, 0(t0)
                fld fa1, 0(t0)
                fld fa2, 8(t0)
                fld fa3, 16(t0)
            """;
    private static final String EPILOGUE = """
                li a0, 0
                li a7, 93
                ecall
            .data
            .p2align 6
            hot: .zero 256
            fconst: .double 1.5, 1.0, 0.75
            chase_state: .zero 64
            .bss
            .p2align 12
            fresh_pages: .zero 8192
            """;

    private Path build(String name, String body) throws IOException {
        Path asm = tmp.resolve(name + ".s");
        Files.writeString(asm, PROLOGUE + body + EPILOGUE);
        Path obj = tmp.resolve(name + ".o");
        Tools.run("llvm-mc-22", "--triple=riscv64", "-mattr=" + MATTR, "-filetype=obj", "-o", obj.toString(),
                asm.toString()).checked("llvm-mc-22 " + name);
        Path exe = tmp.resolve(name);
        Tools.run("riscv64-linux-gnu-ld", "-o", exe.toString(), obj.toString()).checked("ld " + name);
        return exe;
    }

    /** Per CPU model (QEMU's default first), the contexts that need it: one program each. */
    @Test
    void everySlotMarkedAsRunningExecutesExactlyOnceUnderQemu() throws IOException {
        Map<Optional<String>, List<Context>> byCpu = new TreeMap<>(Comparator.comparing(cpu -> cpu.orElse("")));
        TABLE.contexts().stream().filter(Context::runsOnQemu)
                .forEach(c -> byCpu.computeIfAbsent(c.cpu(), k -> new ArrayList<>()).add(c));
        assertEquals(6, byCpu.size(), "the default CPU, Zfh, Zbk*, Zk*, vector at vlen 128 and 256: " + byCpu.keySet());
        int program = 0;
        for (Map.Entry<Optional<String>, List<Context>> e : byCpu.entrySet()) {
            List<Context> running = e.getValue();
            StringBuilder body = new StringBuilder();
            for (Context c : running) {
                body.append("    .option norvc\n");
                c.setup().forEach(s -> body.append("    ").append(s).append('\n'));
                body.append("    slti zero, zero, 0x5a1\n");
                body.append(c.form() == Context.Form.FULL ? "" : "    .option rvc\n");
                body.append("    ").append(c.slotWith("t3", "ft4")).append("\n1:\n");
                body.append("    .option norvc\n    slti zero, zero, 0x5a0\n    .option rvc\n");
            }
            Path exe = build("all-slots-" + program++, body.toString());
            QemuRunner.Result r = run(e.getKey(), exe);
            assertEquals(0, r.exitCode(), "on " + e.getKey());
            PluginRecords records = r.records().orElseThrow();
            PluginFixtures.assertClean(records);
            assertTrue(records.footer().clean());
            assertEquals(running.size(), records.validationWindows().size());
            for (int i = 0; i < running.size(); i++) {
                PluginRecords.ValidationWindow w = records.validationWindows().get(i);
                assertEquals(1, w.executed(), running.get(i).key() + ": one instruction between the markers");
                assertEquals(running.get(i).form().size(), w.encodings().get(0).size(), running.get(i).key());
            }
        }
    }

    /** A program under the plugin's validation mode on a CPU model (empty: QEMU's default). */
    private static QemuRunner.Result run(Optional<String> cpu, Path exe) throws IOException {
        Path out = Files.createTempFile("splice-guest", ".out");
        try {
            QemuRunner.Streams streams = new QemuRunner.Streams(
                    Redirect.from(new File("/dev/null")), Redirect.to(out.toFile()), Redirect.INHERIT);
            return PluginFixtures.runner().withCpu(cpu).run(exe, List.of(), PluginRecords.Mode.VALIDATION, Optional.empty(),
                    streams);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** The contexts that need a CPU model die of SIGILL on QEMU's default CPU: their cpu= is needed. */
    @Test
    void contextsThatNameACpuModelAreIllegalOnTheDefaultCpu() throws IOException {
        Map<String, Context> firstPerExtension = new TreeMap<>();
        TABLE.contexts().stream().filter(c -> c.cpu().isPresent() && c.baseline().isPresent())
                .forEach(c -> firstPerExtension.putIfAbsent(c.extension(), c));
        assertEquals(Set.of("zfh", "zbkb", "zbkx", "v", "zknd", "zkne", "zknh", "zksed", "zksh", "zkr"),
                firstPerExtension.keySet());
        for (Context c : firstPerExtension.values()) {
            String body = c.slotWith("t3", "ft4") + "\n1:\n";
            Path exe = build("default-cpu-" + c.extension(), body);
            int status = Tools.run(QemuRunner.QEMU, exe.toString()).exitCode();
            assertEquals(128 + 4, status, c.key() + " should die of SIGILL on QEMU's default CPU");
        }
    }

    @Test
    void slotsMarkedSigillAreIllegalOnThisQemu() throws IOException {
        // system-only contexts (qemu 'system') are checked in system mode: WeighMeasureSystemTest
        List<Context> illegal = TABLE.contexts().stream().filter(c -> !c.runsOnQemu() && !c.systemOnly()).toList();
        assertFalse(illegal.isEmpty());
        for (Context c : illegal) {
            String body = String.join("\n", c.setup()) + "\n    " + c.slotWith("t3", "ft4") + "\n1:\n";
            Path exe = build(c.key(), body);
            int status = Tools.run(QemuRunner.QEMU, exe.toString()).exitCode();
            assertEquals(128 + 4, status, c.key() + " should die of SIGILL");
        }
    }

    @Test
    void badTablesAreRefusedWithTheirLine() {
        String header = "key\tmnemonic\textension\tform\tpattern\tmodifiers\tbaseline\tqemu\tsetup\tslot\n";
        String root = "nop.baseline\taddi\ti\tfull\tbaseline\t-\t-\tyes\t-\tnop\n";
        assertEquals(1, ContextTable.parse(header + root, "t").contexts().size());
        assertRefused(root, "t:1: expected the header line");
        assertRefused(header + root + root, "t:3: key 'nop.baseline' repeats line 2");
        assertRefused(header + root + "add.dependency\tadd\ti\tfull\tdependency\t-\tnope\tyes\t-\tadd a0, a0, a1\n",
                "t:3: baseline 'nope' is not a key");
        assertRefused(header + "a.x\tadd\ti\tfull\tdependency\t-\tb.x\tyes\t-\ta a0\nb.x\tadd\ti\tfull\tdependency\t-\ta.x\tyes\t-\tb a0\n",
                "form a cycle");
        assertRefused(header + root + "sub.dependency\tadd\ti\tfull\tdependency\t-\tnop.baseline\tyes\t-\tadd a0, a0, a1\n",
                "t:3: key 'sub.dependency' must be the slot's mnemonic 'add'");
        assertRefused(header + root + "add.x\tadd\ti\tfull\tsideways\t-\tnop.baseline\tyes\t-\tadd a0, a0, a1\n",
                "unknown pattern 'sideways'");
        assertRefused(header + root + "add.x\tadd\ti\tfull\tdependency\tspeed=high\tnop.baseline\tyes\t-\tadd a0, a0, a1\n",
                "unknown modifier 'speed'");
        assertRefused(header + root + "add.x\tadd\ti\tcompressed\tdependency\t-\tnop.baseline\tyes\t-\tadd a0, a0, a1\n",
                "form compressed does not match mnemonic add");
        assertRefused(header + "nop.baseline\taddi\ti\tfull\tbaseline\t-\n", "t:2: 6 columns, expected 10");
        assertRefused(header + root + "ecall.x\tecall\ti\tfull\ttrap\t-\tnop.baseline\tsystem\t-\tecall\n",
                "t:3: exactly the rows with qemu 'system' have a 'priv' modifier");
        assertRefused(header + root + "ecall.x\tecall\ti\tfull\ttrap\tpriv=s\tnop.baseline\tyes\t-\tecall\n",
                "t:3: exactly the rows with qemu 'system' have a 'priv' modifier");
    }

    @Test
    void templateRowsStandForEveryCombinationOfTheirGroups() {
        String header = "key\tmnemonic\textension\tform\tpattern\tmodifiers\tbaseline\tqemu\tsetup\tslot\n";
        String root = "nop.baseline\taddi\ti\tfull\tbaseline\t-\t-\tyes\t-\tnop\n";
        String template = "add.e{a}{b}.n{n}\tadd\ti\tfull\tdependency\t-\tnop.baseline\tyes\tli t1, {n}\tadd {x}, {x}, a1\n";
        ContextTable t = ContextTable.parse(header + root + "@expand\tn=1,2\ta/b=8/x,16/y\n" + template + "@end\n"
                + "sub.dependency\tsub\ti\tfull\tdependency\t-\tnop.baseline\tyes\t-\tsub a0, a0, a1\n", "t");
        assertEquals(List.of("nop.baseline", "add.e8x.n1", "add.e16y.n1", "add.e8x.n2", "add.e16y.n2", "sub.dependency"),
                t.contexts().stream().map(Context::key).toList());
        Context c = t.context("add.e16y.n2").orElseThrow();
        assertEquals(List.of("li t1, 2"), c.setup());
        assertEquals("add {x}, {x}, a1", c.slot(), "the rotating registers stay placeholders");
        assertRefused(header + root + "@expand\tn=1,2\n" + template, "t:4: placeholder '{a}' is not defined");
        assertRefused(header + root + "@expand\ta/b=1/2,3\n", "t:3: '3' has 1 values for 2 names a/b");
        assertRefused(header + root + "@expand\tx=1\n", "t:3: bad placeholder name 'x'");
        assertRefused(header + root + "@expand\tn=1\tn=2\n", "t:3: placeholder 'n' given twice");
        assertRefused(header + root + "@expand\tn=1,1\ta/b=8/x\n" + template,
                "t:4: key 'add.e8x.n1' repeats line 4 (expanded with n=1, a=8, b=x)");
        assertRefused(header + root + "@expand\tn=1\ta/b=8/x\n" + template.replace("dependency", "sideways"),
                "t:4: unknown pattern 'sideways' (expanded with n=1, a=8, b=x)");
    }

    private static void assertRefused(String table, String fragment) {
        BadInputException e = assertThrows(BadInputException.class, () -> ContextTable.parse(table, "t"));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void baselinesAreRootsOrMeasuredContexts() {
        Set<String> roots = new TreeSet<>();
        for (Context c : TABLE.contexts()) {
            if (c.baseline().isEmpty()) {
                roots.add(c.key());
            } else {
                Context b = TABLE.context(c.baseline().get()).orElseThrow();
                assertEquals(c.form(), b.form(), c.key() + " is measured against a kernel of its own width");
            }
        }
        // the scalar roots, and one vector root per configuration (vtype and vlen: the vector contexts' baselines)
        Set<String> vectorRoots = new TreeSet<>();
        for (Context c : TABLE.contexts()) {
            if (c.modifiers().containsKey("vtype")) {
                Context b = TABLE.context(c.baseline().orElse(c.key())).orElseThrow();
                assertTrue(b.baseline().isEmpty(), c.key() + " is measured against a root baseline");
                assertEquals(c.modifiers().get("vtype"), b.modifiers().get("vtype"), c.key() + ": the same vtype");
                assertEquals(c.cpu(), b.cpu(), c.key() + ": the same CPU model (vlen)");
                assertEquals(List.of("nop"), List.of(b.slot()), b.key());
                assertEquals(c.setup().get(0), b.setup().get(0), c.key() + ": the same vsetvli");
                vectorRoots.add(b.key());
            }
        }
        assertEquals(38, vectorRoots.size(), "19 configurations at vlen 128 and 256");
        Set<String> scalarRoots = new TreeSet<>(roots);
        scalarRoots.removeAll(vectorRoots);
        assertEquals(Set.of("c.nop.baseline", "nop.baseline"), scalarRoots);
    }

    @Test
    void independentSlotsReadTheirOwnRegisterOrAreMarkedAsMeasuringDeadCodeElimination() {
        Set<String> marked = new TreeSet<>();
        for (Context c : TABLE.contexts()) {
            if (c.measuresDeadCodeElimination()) {
                marked.add(c.key());
            } else if (c.pattern() == Context.Pattern.INDEPENDENT) {
                String slot = c.slotWith("t3", "ft4");
                assertTrue(slot.matches("\\S+ t3, t3(, .*)?"), c.key() + ": " + slot);
            }
        }
        // the independent slots that cannot read their destination, and the FP slots marked tcg=dead
        // (FoldedChainsTest: TCG deletes them)
        assertEquals(Set.of("auipc.independent", "c.li.independent", "c.lui.independent", "c.mv.independent",
                "lui.independent", "fclass.d.classify", "fclass.s.classify", "fmv.d.x.move", "fmv.w.x.move",
                "fmv.x.d.move", "fmv.x.w.move"), marked);
        assertFalse(TABLE.context("addi.dependency").orElseThrow().measuresDeadCodeElimination());
    }
}
