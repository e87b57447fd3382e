package dev.splice.elf.dwarf;

import dev.splice.base.ByteWriter;
import dev.splice.elf.dwarf.LineProgram.Row;
import dev.splice.elf.dwarf.LineProgram.Sequence;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rewrites {@code .debug_line} for moved code: a sequence that covers no moved code keeps its
 * bytes; one that does is split into sequences of its own, the parts outside moved code at their
 * addresses and each moved part at its new place, every row at the new address of its
 * instruction (so code inserted before an instruction has that instruction's row). Headers
 * (directory and file tables, DWARF 5 forms) are copied as they are.
 */
final class LineTableRewriter {
    private final AddressMap map;
    /** Old unit offset to new, for DW_AT_stmt_list. */
    private final Map<Long, Long> unitOffsets = new HashMap<>();

    LineTableRewriter(AddressMap map) {
        this.map = map;
    }

    /** The new section, or null when no sequence covers moved code. */
    byte[] rewrite(byte[] section) {
        List<LineProgram> units = LineProgram.all(section);
        boolean touched = false;
        for (LineProgram u : units) {
            for (Sequence s : u.sequences()) {
                touched |= touches(s);
            }
        }
        if (!touched) {
            return null;
        }
        ByteWriter out = new ByteWriter();
        for (LineProgram u : units) {
            unitOffsets.put((long) u.offset(), (long) out.size());
            ByteWriter unit = new ByteWriter();
            unit.bytes(section, u.headerStart(), u.programStart() - u.headerStart());
            int copiedTo = u.programStart();
            for (Sequence s : u.sequences()) {
                if (!touches(s)) {
                    continue;
                }
                if (!s.plain()) {
                    throw new UnsupportedDwarfException(LineProgram.SECTION, s.byteStart(),
                            "a sequence over moved code uses an opcode the rewriter does not reproduce (DW_LNE_define_file or a vendor opcode)");
                }
                unit.bytes(section, copiedTo, s.byteStart() - copiedTo);
                for (List<Row> rows : split(s)) {
                    encode(u, rows, unit);
                }
                copiedTo = s.byteEnd();
            }
            unit.bytes(section, copiedTo, u.end() - copiedTo);
            out.u32(unit.size());
            out.bytes(unit.toByteArray());
        }
        return out.toByteArray();
    }

    /** Old unit offsets to new (empty until {@link #rewrite} changed the section). */
    Map<Long, Long> unitOffsets() {
        return unitOffsets;
    }

    private boolean touches(Sequence s) {
        return !s.rows().isEmpty() && map.moves(s.rows().get(0).address(), s.end());
    }

    /**
     * The new sequences of {@code s}: each a list of rows whose last element is the end_sequence
     * row (only its address counts).
     */
    private List<List<Row>> split(Sequence s) {
        List<Row> rows = s.rows();
        List<List<Row>> out = new ArrayList<>();
        long from = rows.get(0).address();
        int next = 0; // the first row not yet placed
        Row active = rows.get(0);
        while (from < s.end()) {
            long to = Math.min(s.end(), map.nextBoundary(from));
            boolean moved = map.moves(from, to);
            long[] span = newSpan(from, to);
            List<Row> piece = new ArrayList<>();
            while (next < rows.size() && rows.get(next).address() < from) {
                active = rows.get(next++);
            }
            if (next == rows.size() || rows.get(next).address() != from) {
                piece.add(active.at(span[0])); // the row in force at the start
            }
            while (next < rows.size() && rows.get(next).address() == from) {
                active = rows.get(next++); // every row at the start (their order numbers the views)
                piece.add(active.at(span[0]));
            }
            while (next < rows.size() && rows.get(next).address() < to) {
                Row r = rows.get(next++);
                long address = moved ? map.start(r.address()) : r.address();
                if (address < piece.get(piece.size() - 1).address() || address >= span[1]) {
                    throw new UnsupportedDwarfException(LineProgram.SECTION, s.byteStart(), "the row of 0x" + Long.toHexString(r.address())
                            + " does not keep its order in the moved code");
                }
                piece.add(r.at(address));
                active = r;
            }
            piece.add(active.at(span[1]));
            out.add(piece);
            from = to;
        }
        return out;
    }

    /** The new range of {@code [from, to)}, which is all moved or all in place. */
    private long[] newSpan(long from, long to) {
        long[] span = {Long.MAX_VALUE, Long.MIN_VALUE};
        map.ranges(from, to, (a, b) -> {
            span[0] = Math.min(span[0], a);
            span[1] = Math.max(span[1], b);
        });
        return span;
    }

    /** One sequence as opcodes: set_address, the rows, end_sequence (the last row's address). */
    private static void encode(LineProgram u, List<Row> rows, ByteWriter out) {
        boolean advance = u.minInstructionLength() == 1;
        long address = 0;
        long file = 1;
        long line = 1;
        long column = 0;
        boolean isStmt = u.defaultIsStmt();
        long isa = 0;
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            if (i == 0 || !advance || r.address() < address) {
                setAddress(out, r.address());
            } else if (r.address() > address) {
                out.u8(2); // DW_LNS_advance_pc
                out.uleb(r.address() - address);
            }
            address = r.address();
            if (i == rows.size() - 1) {
                out.u8(0); // DW_LNE_end_sequence
                out.uleb(1);
                out.u8(1);
                return;
            }
            if (r.file() != file) {
                out.u8(4);
                out.uleb(r.file());
                file = r.file();
            }
            if (r.column() != column) {
                out.u8(5);
                out.uleb(r.column());
                column = r.column();
            }
            if (r.isStmt() != isStmt) {
                out.u8(6);
                isStmt = r.isStmt();
            }
            if (r.isa() != isa) {
                out.u8(12);
                out.uleb(r.isa());
                isa = r.isa();
            }
            if (r.line() != line) {
                out.u8(3);
                out.sleb(r.line() - line);
                line = r.line();
            }
            if (r.discriminator() != 0) {
                ByteWriter operand = new ByteWriter();
                operand.uleb(r.discriminator());
                out.u8(0);
                out.uleb(1 + operand.size());
                out.u8(4);
                out.bytes(operand.toByteArray());
            }
            if (r.basicBlock()) {
                out.u8(7);
            }
            if (r.prologueEnd()) {
                out.u8(10);
            }
            if (r.epilogueBegin()) {
                out.u8(11);
            }
            out.u8(1); // DW_LNS_copy
        }
    }

    private static void setAddress(ByteWriter out, long address) {
        out.u8(0);
        out.uleb(9);
        out.u8(2);
        out.u64(address);
    }
}
