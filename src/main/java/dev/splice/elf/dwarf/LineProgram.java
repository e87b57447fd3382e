package dev.splice.elf.dwarf;

import dev.splice.base.ByteReader;
import java.util.ArrayList;
import java.util.List;

/**
 * One unit of {@code .debug_line} (DWARF 2 to 5, 32-bit format): the header as bytes (kept
 * intact by a rewrite), the parameters the program's opcodes need, and the program decoded into
 * sequences of rows, each with the byte span it was encoded in.
 *
 * @param offset the unit's offset in the section
 * @param end the offset after the unit
 * @param version the unit's version
 * @param headerStart the offset of the version field (the header's first byte after unit_length)
 * @param programStart the offset of the program's first opcode
 * @param minInstructionLength minimum_instruction_length
 * @param defaultIsStmt default_is_stmt
 * @param lineBase line_base
 * @param lineRange line_range
 * @param opcodeBase opcode_base
 * @param sequences the program's sequences, in order
 */
record LineProgram(int offset, int end, int version, int headerStart, int programStart, int minInstructionLength,
                   boolean defaultIsStmt, int lineBase, int lineRange, int opcodeBase, List<Sequence> sequences) {
    static final String SECTION = ".debug_line";

    /**
     * One row of the line table.
     *
     * @param address the row's address
     * @param file the file register
     * @param line the line register
     * @param column the column register
     * @param isStmt is_stmt
     * @param basicBlock basic_block
     * @param prologueEnd prologue_end
     * @param epilogueBegin epilogue_begin
     * @param isa the isa register
     * @param discriminator the discriminator register
     */
    record Row(long address, long file, long line, long column, boolean isStmt, boolean basicBlock,
               boolean prologueEnd, boolean epilogueBegin, long isa, long discriminator) {
        Row at(long newAddress) {
            return new Row(newAddress, file, line, column, isStmt, basicBlock, prologueEnd, epilogueBegin, isa, discriminator);
        }
    }

    /**
     * A sequence: its rows (the end_sequence row's address as {@code end}) and its opcodes' bytes.
     *
     * @param rows the rows, without the end_sequence row
     * @param end the end_sequence row's address (exclusive end of the sequence)
     * @param byteStart the offset of its first opcode in the section
     * @param byteEnd the offset after its end_sequence opcode
     * @param plain whether it uses only opcodes a rewrite can reproduce
     */
    record Sequence(List<Row> rows, long end, int byteStart, int byteEnd, boolean plain) {}

    /** Every unit of a {@code .debug_line} section. */
    static List<LineProgram> all(byte[] section) {
        List<LineProgram> units = new ArrayList<>();
        int at = 0;
        while (at < section.length) {
            LineProgram unit = read(section, at);
            units.add(unit);
            at = unit.end;
        }
        return units;
    }

    /** The unit at {@code offset}. */
    static LineProgram read(byte[] section, int offset) {
        ByteReader r = UnitLength.unit(section, offset, SECTION);
        int headerStart = r.position();
        int end = headerStart + r.remaining();
        int version = r.u16();
        if (version < 2 || version > 5) {
            throw new UnsupportedDwarfException(SECTION, offset, "line table version " + version + " is not handled");
        }
        if (version >= 5) {
            int addressSize = r.u8();
            r.u8(); // segment_selector_size
            if (addressSize != 8) {
                throw new UnsupportedDwarfException(SECTION, offset, "address size " + addressSize + " (expected 8)");
            }
        }
        long headerLength = r.u32() & 0xffffffffL;
        if (headerLength > r.remaining()) {
            throw r.error(offset, "header length " + headerLength + " runs past the unit's end");
        }
        int programStart = r.position() + (int) headerLength;
        int minInstructionLength = r.u8();
        int maxOps = version >= 4 ? r.u8() : 1;
        boolean defaultIsStmt = r.u8() != 0;
        int lineBase = (byte) r.u8();
        int lineRange = r.u8();
        int opcodeBase = r.u8();
        if (maxOps != 1) {
            throw new UnsupportedDwarfException(SECTION, offset, "maximum_operations_per_instruction " + maxOps + " (VLIW) is not handled");
        }
        if (lineRange == 0 || opcodeBase == 0) {
            throw r.error(offset, "line_range and opcode_base must not be 0");
        }
        int[] standardLengths = new int[opcodeBase];
        for (int i = 1; i < opcodeBase; i++) {
            standardLengths[i] = r.u8();
        }
        LineProgram shape = new LineProgram(offset, end, version, headerStart, programStart, minInstructionLength,
                defaultIsStmt, lineBase, lineRange, opcodeBase, List.of());
        return new LineProgram(offset, end, version, headerStart, programStart, minInstructionLength, defaultIsStmt,
                lineBase, lineRange, opcodeBase, shape.decode(section, standardLengths));
    }

    /** The program's sequences (the state machine of DWARF 5 section 6.2.2). */
    private List<Sequence> decode(byte[] section, int[] standardLengths) {
        ByteReader r = new ByteReader(section, programStart, end, SECTION);
        List<Sequence> sequences = new ArrayList<>();
        State s = new State(defaultIsStmt);
        List<Row> rows = new ArrayList<>();
        int sequenceStart = programStart;
        boolean plain = true;
        while (!r.atEnd()) {
            int at = r.position();
            int op = r.u8();
            if (op >= opcodeBase) {
                int adjusted = op - opcodeBase;
                s.address += (long) (adjusted / lineRange) * minInstructionLength;
                s.line += lineBase + adjusted % lineRange;
                rows.add(s.row());
                continue;
            }
            switch (op) {
                case 0 -> {
                    long length = r.uleb();
                    if (length == 0 || length > r.remaining()) {
                        throw r.error(at, "extended opcode of length " + length);
                    }
                    int next = r.position() + (int) length;
                    int sub = r.u8();
                    switch (sub) {
                        case 1 -> { // end_sequence
                            sequences.add(new Sequence(List.copyOf(rows), s.address, sequenceStart, next, plain));
                            rows.clear();
                            s = new State(defaultIsStmt);
                            sequenceStart = next;
                            plain = true;
                        }
                        case 2 -> {
                            if (length != 9) {
                                throw new UnsupportedDwarfException(SECTION, at, "DW_LNE_set_address of " + (length - 1) + " bytes");
                            }
                            s.address = r.u64();
                        }
                        case 4 -> s.discriminator = r.uleb();
                        default -> plain = false; // DW_LNE_define_file, vendor opcodes: kept only where nothing moves
                    }
                    r = new ByteReader(section, next, end, SECTION);
                }
                case 1 -> rows.add(s.row());
                case 2 -> s.address += r.uleb() * minInstructionLength;
                case 3 -> s.line += r.sleb();
                case 4 -> s.file = r.uleb();
                case 5 -> s.column = r.uleb();
                case 6 -> s.isStmt = !s.isStmt;
                case 7 -> s.basicBlock = true;
                case 8 -> s.address += (long) ((255 - opcodeBase) / lineRange) * minInstructionLength;
                case 9 -> s.address += r.u16();
                case 10 -> s.prologueEnd = true;
                case 11 -> s.epilogueBegin = true;
                case 12 -> s.isa = r.uleb();
                default -> { // a standard opcode this reader does not know: skip its operands
                    for (int i = 0; i < standardLengths[op]; i++) {
                        r.uleb();
                    }
                    plain = false;
                }
            }
        }
        if (!rows.isEmpty()) {
            throw new UnsupportedDwarfException(SECTION, sequenceStart, "a sequence without DW_LNE_end_sequence");
        }
        return sequences;
    }

    /** The state machine's registers. */
    private static final class State {
        long address;
        long file = 1;
        long line = 1;
        long column;
        boolean isStmt;
        boolean basicBlock;
        boolean prologueEnd;
        boolean epilogueBegin;
        long isa;
        long discriminator;

        State(boolean defaultIsStmt) {
            isStmt = defaultIsStmt;
        }

        Row row() {
            Row row = new Row(address, file, line, column, isStmt, basicBlock, prologueEnd, epilogueBegin, isa, discriminator);
            discriminator = 0;
            basicBlock = false;
            prologueEnd = false;
            epilogueBegin = false;
            return row;
        }
    }
}
