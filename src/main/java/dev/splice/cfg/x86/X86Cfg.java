package dev.splice.cfg.x86;

import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.ControlFlowGraph.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The basic blocks of an x86-64 function without a translation table, as perf2bolt-22 builds them
 * (docs/x86cfg-notes.md): decoded with {@link X86Lengths}, formed by the same rules as RISC-V
 * ({@link ControlFlowGraph#of}). Differences from RISC-V, checked with llvm-bolt-22 --print-cfg: a
 * conditional branch out of the function is a conditional tail call (its block falls through), int3
 * falls through, hlt and ud2 stop, xbegin is a conditional branch, and a function holding jrcxz/loop
 * has no CFG. Indirect jumps are analysed as BOLT's X86MCPlusBuilder::analyzeIndirectBranch does
 * (following the jump register back through the function to a {@code mov table(,%idx,8)} or a PIC
 * {@code lea table(%rip); movslq (%base,%idx,4); add}); the tables are read with BOLT's
 * BinaryContext::analyzeJumpTable rules (relocated entries, targets in the function or its
 * fragments, at instruction starts, up to the table's limit). A table's targets in the function are
 * labels (not entry points) and the jump's successors, as are code addresses data relocations refer
 * to; other indirect jumps are tail calls or unknown control flow, without successors, except in
 * perf2bolt's strict mode (binaries with relocations), where unknown control flow may go to any
 * referenced block. Checked block by block against llvm-bolt-22 --print-cfg and edge by edge against
 * perf2bolt-22 (X86CfgTest).
 */
public final class X86Cfg {
    private X86Cfg() {}

    /**
     * What the analysis reads from the binary around the function. Only {@link #read64} is
     * required; the defaults describe a binary without relocations, symbols or fragments (then a
     * table ends where an entry stops pointing into the function). {@link X86Binary} implements all
     * of it from an ELF file.
     */
    public interface Memory {
        /**
         * 8 bytes (little-endian) of the binary at an address.
         *
         * @param address a virtual address
         * @return the value, or null where nothing is stored (or NOBITS)
         */
        Long read64(long address);

        /**
         * The sign-extended 4 bytes at an address.
         *
         * @param address a virtual address
         * @return the value, or null where nothing is stored
         */
        default Long read32(long address) {
            Long v = read64(address);
            return v == null ? null : (long) (int) (long) v;
        }

        /**
         * Whether the address is in an executable section (BOLT reads no jump tables there).
         *
         * @param address a virtual address
         * @return true in code
         */
        default boolean isCode(long address) {
            return false;
        }

        /**
         * Whether the address is in a writable section.
         *
         * @param address a virtual address
         * @return true in writable data
         */
        default boolean isWritable(long address) {
            return false;
        }

        /**
         * Whether the binary has relocations (linked with --emit-relocs): then BOLT requires a
         * relocation at every jump-table entry, and reads PIC tables that code references anywhere.
         *
         * @return true with relocations
         */
        default boolean hasRelocations() {
            return false;
        }

        /**
         * BOLT's strict mode: perf2bolt-22 turns it on in relocation mode ("enabling strict
         * relocation mode for aggregation purposes"); llvm-bolt-22 without --strict has it off.
         *
         * @return true in strict mode
         */
        default boolean strictMode() {
            return hasRelocations();
        }

        /**
         * Whether a PC-relative relocation (R_X86_64_PC32 and the like) applies at a data address.
         *
         * @param address a virtual address
         * @return true if one does
         */
        default boolean hasPcRelativeRelocation(long address) {
            return false;
        }

        /**
         * Whether any relocation applies at a data address.
         *
         * @param address a virtual address
         * @return true if one does
         */
        default boolean hasRelocation(long address) {
            return false;
        }

        /**
         * Where a jump table starting at an address must end.
         *
         * @param address the table's address
         * @return its section's end, or a sized data symbol's
         */
        default long tableLimit(long address) {
            return Long.MAX_VALUE;
        }

        /**
         * Whether {@code target} is in a fragment of the function at {@code function} (such as its .cold part).
         *
         * @param function a function's address
         * @param target an address
         * @return true in one of its fragments
         */
        default boolean isRelatedFragment(long function, long target) {
            return false;
        }

        /**
         * The addresses that data (absolute relocations outside code) refers to: labels for BOLT.
         *
         * @param start the first address
         * @param end the end of the range
         * @return the addresses in [start, end)
         */
        default long[] dataReferences(long start, long end) {
            return new long[0];
        }
    }

    /** The outcome of BOLT's analysis of one indirect jump. */
    private enum Branch { UNKNOWN, TAIL_CALL, JUMP_TABLE, FIXED }

    /** A jump table BOLT registered: where it starts and whether its entries are 4-byte PC-relative. */
    private record Table(long address, boolean pic) {}

    /**
     * The CFG of the function at {@code address} whose bytes are {@code code[base, base + size)},
     * with the offsets where other code enters it and its landing pads, reading its jump tables
     * through {@code memory}; null if BOLT builds no CFG for it.
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param address its address
     * @param memory the binary around it
     * @param entries the offsets where other code enters it
     * @param landingPads the offsets of its landing pads
     * @return the graph, or null
     */
    public static ControlFlowGraph of(byte[] code, int base, int size, long address, Memory memory, int[] entries, int[] landingPads) {
        if (size <= 0 || base < 0 || base + size > code.length) {
            return null;
        }
        return of(code, base, size, address, memory, entries, landingPads, true);
    }

    /**
     * As above; {@code pastEndIsNop}: padding follows the function (its end is before its max end),
     * so a direct jump, branch or call to its end is BOLT's "jump past end", a nop; without padding
     * it goes to the next function (a tail call, a conditional tail call, a call).
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param address its address
     * @param memory the binary around it
     * @param entries the offsets where other code enters it
     * @param landingPads the offsets of its landing pads
     * @param pastEndIsNop padding follows the function
     * @return the graph, or null
     */
    public static ControlFlowGraph of(byte[] code, int base, int size, long address, Memory memory, int[] entries, int[] landingPads,
                       boolean pastEndIsNop) {
        if (size <= 0 || base < 0 || base + size > code.length) {
            return null;
        }
        return new Builder(code, base, size, address, memory, pastEndIsNop).build(entries, landingPads);
    }

    /**
     * The absolute targets of the direct jumps, conditional branches and calls in
     * {@code code[base, base + size)} at {@code address} that leave it (a jump to its own end is
     * BOLT's "jump past end", no reference): where they land in the middle of another function, BOLT
     * makes them entry points of it (the {@code entries} of {@link #of}). Stops at bytes that do not
     * decode.
     *
     * @param code the bytes of the function's section
     * @param base where the function starts in {@code code}
     * @param size its size in bytes
     * @param address its address
     * @param out receives the targets
     */
    public static void externalTargets(byte[] code, int base, int size, long address, java.util.function.LongConsumer out) {
        int end = Math.min(code.length, base + size);
        for (int at = Math.max(0, base); at < end; ) {
            X86Lengths.Insn insn = X86Lengths.decode(code, at, end);
            if (insn == null) {
                return;
            }
            X86Lengths.Kind k = insn.kind();
            if (k == X86Lengths.Kind.JUMP || k == X86Lengths.Kind.CONDITIONAL || k == X86Lengths.Kind.CALL) {
                long t = at - base + insn.length() + insn.displacement();
                if (t < 0 || t > size) {
                    out.accept(address + t);
                }
            }
            at += insn.length();
        }
    }

    private static final class Builder {
        private final boolean pastEndIsNop;
        private final byte[] code;
        private final int base;
        private final int size;
        private final long address;
        private final Memory memory;
        private final int[] length;
        private final X86Lengths.Kind[] kinds;
        private final long[] displacement;
        private final int[] order; // instruction offsets in address order
        private final X86Operands[] operands;
        private final boolean[] isInstruction;
        private final TreeMap<Long, Table> tables = new TreeMap<>();
        private boolean internalLabelReference; // a %rip reference into its own body

        Builder(byte[] code, int base, int size, long address, Memory memory, boolean pastEndIsNop) {
            this.pastEndIsNop = pastEndIsNop;
            this.code = code;
            this.base = base;
            this.size = size;
            this.address = address;
            this.memory = memory;
            this.length = new int[size];
            this.kinds = new X86Lengths.Kind[size];
            this.displacement = new long[size];
            this.operands = new X86Operands[size];
            this.isInstruction = new boolean[size + 1];
            List<Integer> starts = new ArrayList<>();
            for (int pc = 0; pc < size; ) {
                X86Lengths.Insn insn = X86Lengths.decode(code, base + pc, base + size);
                if (insn == null) {
                    break;
                }
                starts.add(pc);
                isInstruction[pc] = true;
                length[pc] = insn.length();
                kinds[pc] = insn.kind();
                displacement[pc] = insn.displacement();
                pc += insn.length();
            }
            this.order = starts.stream().mapToInt(Integer::intValue).toArray();
        }

        private X86Operands operands(int pc) {
            if (operands[pc] == null) {
                operands[pc] = X86Operands.of(code, base + pc, length[pc]);
            }
            return operands[pc];
        }

        ControlFlowGraph build(int[] entries, int[] landingPads) {
            int end = order.length == 0 ? 0 : order[order.length - 1] + length[order[order.length - 1]];
            if (end != size) {
                return null; // BOLT cannot disassemble it either
            }
            Kind[] kind = new Kind[size];
            int[] target = new int[size];
            boolean[] leader = new boolean[size + 1];
            boolean[] entry = new boolean[size + 1];
            ControlFlowGraph.markEntries(leader, entry, size, entries, landingPads);
            for (long a : memory.dataReferences(address, address + size)) {
                if (a > address && a < address + size) {
                    leader[(int) (a - address)] = true; // a label, not an entry point
                }
            }
            TreeMap<Integer, Table> jumpTableOf = new TreeMap<>();
            Branch[] branchAt = new Branch[size];
            for (int i = 0; i < order.length; i++) {
                int pc = order[i];
                X86Lengths.Kind k = kinds[pc];
                if (k == X86Lengths.Kind.LOOP) {
                    return null; // "could not disassemble"
                }
                long t = pc + length[pc] + displacement[pc];
                Kind c = switch (k) {
                    case CONDITIONAL -> Kind.CONDITIONAL;
                    case JUMP -> Kind.JUMP;
                    case CALL, INDIRECT_CALL -> Kind.CALL; // a trace into the block after either moves back
                    case RETURN, INDIRECT_JUMP -> Kind.EXIT;
                    case TRAP -> Kind.TRAP;
                    default -> Kind.PLAIN;
                };
                if (t == size && pastEndIsNop && (c == Kind.JUMP || c == Kind.CONDITIONAL || k == X86Lengths.Kind.CALL)) {
                    c = Kind.PLAIN; // BOLT: "jump past end", replaced with a nop where padding follows
                } else if ((c == Kind.JUMP || c == Kind.CONDITIONAL) && (t < 0 || t >= size)) {
                    c = c == Kind.CONDITIONAL ? Kind.CONDITIONAL_TAIL_CALL : Kind.EXIT;
                }
                target[pc] = -1;
                if (c == Kind.JUMP || c == Kind.CONDITIONAL) {
                    target[pc] = (int) t;
                    leader[(int) t] = true;
                } else if (k == X86Lengths.Kind.CALL && t > 0 && t < size) {
                    leader[(int) t] = true; // a call into its own body: an entry point
                    entry[(int) t] = true;
                }
                if (k == X86Lengths.Kind.OTHER || k == X86Lengths.Kind.INDIRECT_CALL) {
                    addressReference(pc, entry, leader);
                } else if (k == X86Lengths.Kind.INDIRECT_JUMP) {
                    long[] fixed = new long[1];
                    Table table = new Table(0, false);
                    Table[] found = {table};
                    Branch b = indirectJump(i, fixed, found);
                    branchAt[pc] = b;
                    if (b == Branch.JUMP_TABLE) {
                        c = Kind.INDIRECT;
                        jumpTableOf.put(pc, found[0]);
                    } else if (b == Branch.FIXED && fixed[0] >= address && fixed[0] < address + size) {
                        c = Kind.JUMP;
                        target[pc] = (int) (fixed[0] - address);
                        leader[target[pc]] = true;
                    } else if (b == Branch.FIXED) {
                        branchAt[pc] = Branch.TAIL_CALL; // a fixed branch out of the function
                    }
                }
                kind[pc] = c;
            }
            // The tables' extents (BinaryContext::populateJumpTables): each ends before the next.
            TreeMap<Long, long[]> targetsOf = new TreeMap<>();
            for (Table table : tables.values()) {
                Long next = tables.higherKey(table.address());
                long[] targets = tableTargets(table.address(), table.pic(), true, next == null ? Long.MAX_VALUE : next);
                if (targets == null) {
                    targets = new long[0];
                }
                targetsOf.put(table.address(), targets);
                for (long a : targets) {
                    if (a >= address && a < address + size) {
                        leader[(int) (a - address)] = true;
                    }
                }
            }
            int[][] successors = new int[size][];
            for (var e : jumpTableOf.entrySet()) {
                TreeSet<Integer> inside = new TreeSet<>();
                for (long a : targetsOf.getOrDefault(e.getValue().address(), new long[0])) {
                    if (a >= address && a < address + size) {
                        inside.add((int) (a - address));
                    }
                }
                successors[e.getKey()] = inside.stream().mapToInt(Integer::intValue).toArray();
            }
            ControlFlowGraph cfg = ControlFlowGraph.of(kind, target, isInstruction, leader, entry, successors, size);
            if (cfg == null || !memory.strictMode()) {
                return cfg;
            }
            // perf2bolt-22 on a binary with relocations runs in strict mode ("enabling strict
            // relocation mode for aggregation purposes"), where postProcessIndirectBranches gives
            // unknown indirect jumps successors.
            TreeSet<Integer> referenced = new TreeSet<>();
            for (long a : memory.dataReferences(address, address + size)) {
                if (a > address && a < address + size) {
                    referenced.add((int) (a - address));
                }
            }
            boolean split = false;
            for (long[] targets : targetsOf.values()) {
                for (long a : targets) {
                    if (a >= address && a < address + size) {
                        referenced.add((int) (a - address));
                    } else if (a != address + size) {
                        split = true;
                    }
                }
            }
            if (strictMode(cfg.blockStarts(), kind, successors, branchAt, jumpTableOf, targetsOf, referenced, split)) {
                cfg = ControlFlowGraph.of(kind, target, isInstruction, leader, entry, successors, size);
            }
            return cfg;
        }

        /**
         * BinaryFunction::postProcessIndirectBranches in strict mode, over the blocks: a tail call or
         * jump table that does not hold up within its own block, or an unknown indirect jump outside
         * an epilogue (a block with pop or leave), gets every block the function's data and tables
         * refer to as successors ("unknown control flow"), unless nothing refers into the function
         * (then all are tail calls); a normal jump table that does not hold up ends the processing;
         * a function with one indirect jump and one table gets that table back. Returns whether
         * anything changed.
         */
        private boolean strictMode(int[] blockStarts, Kind[] kind, int[][] successors, Branch[] branchAt,
                                   TreeMap<Integer, Table> jumpTableOf, TreeMap<Long, long[]> targetsOf,
                                   TreeSet<Integer> referenced, boolean split) {
            if (blockStarts.length == 1) {
                return false; // a single block's indirect jump is a tail call
            }
            int[] unknownFlow = referenced.stream().mapToInt(Integer::intValue).toArray();
            int indirectJumps = 0;
            int lastJump = -1;
            boolean unknown = false;
            boolean changed = false;
            int i = 0;
            blocks:
            for (int b = 0; b < blockStarts.length; b++) {
                int end = b + 1 < blockStarts.length ? blockStarts[b + 1] : size;
                int first = i;
                boolean epilogue = false;
                for (int k = first; k < order.length && order[k] < end; k++) {
                    epilogue |= operands(order[k]).isPopOrLeave();
                }
                for (; i < order.length && order[i] < end; i++) {
                    int pc = order[i];
                    if (kinds[pc] != X86Lengths.Kind.INDIRECT_JUMP || kind[pc] == Kind.JUMP) {
                        continue;
                    }
                    indirectJumps++;
                    if (referenced.isEmpty()) {
                        continue; // a tail call
                    }
                    Branch branch = branchAt[pc];
                    if (branch == Branch.TAIL_CALL || branch == Branch.JUMP_TABLE) {
                        if (analyze(i, first) != null) {
                            continue;
                        }
                        if (branch == Branch.JUMP_TABLE) {
                            lastJump = pc;
                            if (!jumpTableOf.get(pc).pic()) {
                                break blocks; // BOLT gives up on the function's indirect jumps here
                            }
                        }
                    } else if (epilogue) {
                        continue; // a tail call
                    }
                    kind[pc] = Kind.INDIRECT;
                    successors[pc] = unknownFlow;
                    unknown = true;
                    changed = true;
                }
            }
            if (unknown && indirectJumps == 1 && tables.size() == 1 && lastJump >= 0 && !split && !internalLabelReference) {
                TreeSet<Integer> inside = new TreeSet<>();
                for (long a : targetsOf.get(jumpTableOf.get(lastJump).address())) {
                    if (a >= address && a < address + size) {
                        inside.add((int) (a - address));
                    }
                }
                successors[lastJump] = inside.stream().mapToInt(Integer::intValue).toArray();
            }
            return changed;
        }

        /**
         * BOLT's handleAddressRef for a %rip-relative operand: an address in the function's own body
         * becomes an entry point; with relocations, an address holding a PIC jump table (for this
         * function) registers that table, whose targets become labels.
         */
        private void addressReference(int pc, boolean[] entry, boolean[] leader) {
            X86Operands ops = operands(pc);
            if (!ops.hasMemory() || ops.base != X86Operands.RIP) {
                return;
            }
            long a = address + pc + length[pc] + ops.displacement;
            if (a > address && a < address + size) {
                entry[(int) (a - address)] = true;
                leader[(int) (a - address)] = true;
                internalLabelReference = true;
                return;
            }
            if (memory.hasRelocations() && !tables.containsKey(a) && containingTable(a) == null
                    && !memory.isCode(a) && memory.read64(a) != null
                    && tableTargets(a, true, false, Long.MAX_VALUE) != null) {
                tables.put(a, new Table(a, true));
            }
        }

        private Table containingTable(long a) {
            var e = tables.floorEntry(a);
            if (e == null) {
                return null;
            }
            long[] targets = tableTargets(e.getKey(), e.getValue().pic(), false, Long.MAX_VALUE);
            int entrySize = e.getValue().pic() ? 4 : 8;
            return targets != null && a < e.getKey() + (long) targets.length * entrySize ? e.getValue() : null;
        }

        /**
         * The entries (as target addresses) of a jump table at {@code table} under BOLT's rules, or
         * null if BOLT would not take the memory there for a jump table (fewer than two real entries).
         * {@code atInstructions}: an entry must point at an instruction start (BOLT checks this once
         * the function is disassembled, when it sizes the tables).
         */
        private long[] tableTargets(long table, boolean pic, boolean atInstructions, long nextTable) {
            int entrySize = pic ? 4 : 8;
            long limit = Math.min(memory.tableLimit(table), nextTable);
            long unreachable = address + size;
            boolean special = false;
            int real = 0;
            List<Long> out = new ArrayList<>();
            for (long e = table; e <= limit - entrySize && out.size() < (1 << 20); e += entrySize) {
                if (memory.hasRelocations()
                        && (pic ? !memory.hasPcRelativeRelocation(e) : !memory.hasRelocation(e))) {
                    break;
                }
                Long v = pic ? memory.read32(e) : memory.read64(e);
                if (v == null) {
                    break;
                }
                long value = pic ? table + v : v;
                if (value == unreachable || value == address) {
                    special = true; // __builtin_unreachable, or the function's start
                    out.add(value);
                    continue;
                }
                boolean inside = value > address && value < address + size;
                if (!inside && !memory.isRelatedFragment(address, value)) {
                    break;
                }
                if (inside && atInstructions && !isInstruction[(int) (value - address)]) {
                    break;
                }
                real++;
                out.add(value);
            }
            if (real + (special ? 1 : 0) < 2) {
                return null;
            }
            return out.stream().mapToLong(Long::longValue).toArray();
        }

        /** What analyzeIndirectBranch found: the instruction holding the table address, and its form. */
        private record Pattern(int memLoc, boolean picTable, int fixedEntryLoad, boolean fixedBranch) {}

        /**
         * BOLT's X86MCPlusBuilder::analyzeIndirectBranch for the jump at {@code order[i]}, looking
         * back no further than {@code order[first]}; null where it finds nothing (UNKNOWN without a
         * memory location).
         */
        private Pattern analyze(int i, int first) {
            int pc = order[i];
            X86Operands jump = operands(pc);
            int memLoc; // offset of the instruction whose memory operand holds the table
            boolean picTable = false;
            int fixedEntryLoad = -1;
            int r1 = jump.jumpRegister();
            if (r1 != X86Operands.NO_REGISTER) {
                memLoc = -1;
                for (int k = i - 1; k >= first; k--) {
                    X86Operands prev = operands(order[k]);
                    if (!prev.writes(r1)) {
                        continue;
                    }
                    if (prev.isMoveMemoryToRegister()) {
                        memLoc = order[k];
                    } else if (prev.isAdd64RegisterRegister()) {
                        int r2 = prev.reg;
                        if (r1 == r2) {
                            return null;
                        }
                        int[] pic = picJumpTable(k, first, r1, r2);
                        if (pic == null) {
                            return null;
                        }
                        memLoc = pic[0];
                        picTable = pic[1] < 0;
                        fixedEntryLoad = pic[1];
                    }
                    break;
                }
                if (memLoc < 0) {
                    return null; // defined by something else, or not in the range
                }
            } else {
                memLoc = pc;
            }
            X86Operands mo = operands(memLoc);
            if ((mo.base != X86Operands.NO_REGISTER && mo.base != X86Operands.RIP) || mo.fsOrGs) {
                return null;
            }
            boolean fixedBranch = memLoc == pc && mo.index == X86Operands.NO_REGISTER;
            if (!fixedBranch) {
                if (picTable && (mo.scale != 1 || mo.base != X86Operands.RIP)) {
                    return null;
                }
                if (!picTable && fixedEntryLoad < 0 && mo.scale != 8) {
                    return null;
                }
            }
            return new Pattern(memLoc, picTable, fixedEntryLoad, fixedBranch);
        }

        /**
         * BOLT's analysis of the indirect jump at {@code order[i]} (analyzeIndirectBranch, then
         * processIndirectBranch): a jump table (registered in {@code tables}, put in found[0]), a
         * fixed branch (target in fixed[0]), a tail call, or unknown.
         */
        private Branch indirectJump(int i, long[] fixed, Table[] found) {
            Pattern p = analyze(i, 0);
            if (p == null) {
                return Branch.UNKNOWN;
            }
            int pc = order[i];
            int memLoc = p.memLoc();
            boolean picTable = p.picTable();
            int fixedEntryLoad = p.fixedEntryLoad();
            boolean fixedBranch = p.fixedBranch();
            X86Operands mo = operands(memLoc);
            long arrayStart = mo.base == X86Operands.RIP ? address + memLoc + length[memLoc] + mo.displacement : mo.displacement;
            if (fixedEntryLoad >= 0) {
                X86Operands load = operands(fixedEntryLoad);
                Long value = memory.read32(address + fixedEntryLoad + length[fixedEntryLoad] + load.displacement);
                if (value == null) {
                    return Branch.UNKNOWN;
                }
                fixed[0] = arrayStart + value;
                return Branch.FIXED;
            }
            if (memory.read64(arrayStart) == null) {
                return Branch.TAIL_CALL; // no section, or one filled at run time
            }
            if (fixedBranch) {
                if (memory.isWritable(arrayStart)) {
                    return Branch.UNKNOWN;
                }
                fixed[0] = memory.read64(arrayStart);
                return Branch.FIXED;
            }
            Table existing = tables.containsKey(arrayStart) ? tables.get(arrayStart) : containingTable(arrayStart);
            Boolean memPic; // null: not a jump table
            if (existing != null) {
                memPic = existing.pic();
            } else if (memory.isCode(arrayStart)) {
                memPic = null;
            } else if (tableTargets(arrayStart, true, false, Long.MAX_VALUE) != null) {
                memPic = true;
            } else if (tableTargets(arrayStart, false, false, Long.MAX_VALUE) != null) {
                memPic = false;
            } else {
                memPic = null;
            }
            if (picTable) {
                if (memPic == null || !memPic) {
                    return Branch.UNKNOWN;
                }
            } else {
                if (memPic != null && memPic) {
                    return Branch.UNKNOWN;
                }
                if (memPic == null) {
                    return Branch.TAIL_CALL;
                }
            }
            Table table = tables.get(arrayStart);
            if (table == null) {
                table = new Table(arrayStart, picTable);
                tables.put(arrayStart, table);
            }
            found[0] = table;
            return Branch.JUMP_TABLE;
        }

        /**
         * BOLT's analyzePICJumpTable from the {@code add %r2, %r1} at order[addIndex], walking back:
         * {lea table(%rip), %r1; movslq (%r1,%idx,4), %r2} gives {lea offset, -1}; {movslq e(%rip), %r2;
         * lea table(%rip), %r1} (a fixed branch) gives {lea offset, movslq offset}; else null.
         */
        private int[] picJumpTable(int addIndex, int first, int r1, int r2) {
            int state = 0; // 0: nothing matched, 1: jump table (movslq seen), 2: fixed branch (lea seen)
            int firstMatch = -1;
            for (int k = addIndex - 1; k >= first; k--) {
                int pc = order[k];
                X86Operands p = operands(pc);
                if (!p.writes(r1) && !p.writes(r2)) {
                    continue;
                }
                if (state == 0) {
                    if (p.isMovsx64FromMemory32()) {
                        state = 1;
                    } else if (p.isLea64()) {
                        state = 2;
                    } else {
                        return null;
                    }
                    if (p.reg != (state == 1 ? r2 : r1)) {
                        int swap = r1;
                        r1 = r2;
                        r2 = swap;
                    }
                    if (p.reg != (state == 1 ? r2 : r1)) {
                        return null;
                    }
                    boolean ok = state == 1
                            ? p.index != X86Operands.NO_REGISTER && p.base == r1 && p.scale == 4 && p.displacement == 0 && !p.fsOrGs
                            : ripRelative(p);
                    if (!ok) {
                        return null;
                    }
                    firstMatch = pc;
                } else {
                    int expect = state == 1 ? r1 : r2;
                    if (!p.writes(expect)) {
                        continue;
                    }
                    if ((state == 1 && !p.isLea64()) || (state == 2 && !p.isMovsx64FromMemory32())) {
                        return null;
                    }
                    if (p.reg != expect || !ripRelative(p)) {
                        return null;
                    }
                    return state == 1 ? new int[] {pc, -1} : new int[] {firstMatch, pc};
                }
            }
            return null;
        }

        private static boolean ripRelative(X86Operands p) {
            return p.base == X86Operands.RIP && p.index == X86Operands.NO_REGISTER && !p.fsOrGs;
        }
    }
}
