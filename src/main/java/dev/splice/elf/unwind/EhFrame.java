package dev.splice.elf.unwind;

import dev.splice.base.ByteReader;
import dev.splice.elf.ElfFile;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The records of an {@code .eh_frame} section, parsed once for every reader and for the rewriter:
 * CIEs and FDEs in section order, up to the zero terminator (or the section's end), with the
 * offsets of the fields a rewriter changes. The layout is the LSB's ("Linux Standard Base Core
 * Specification", ".eh_frame section"): a 32-bit length, a 32-bit CIE id (0) or CIE pointer (the
 * distance back to the CIE), then the CIE's version, augmentation string ("zPLR", ...), alignment
 * factors, return-address register and augmentation data, or the FDE's pc_begin, pc_range and
 * augmentation data; then the CFA instructions ({@link CfaReader}).
 *
 * <p>Refused, with the offset: 64-bit records, records past the section's end, an FDE whose CIE
 * does not precede it, augmentation letters other than z, R, L, P, S, B, G and "eh", and pc_begin
 * pointers that are neither absolute nor pc-relative.
 */
public final class EhFrame {
    private final byte[] bytes;
    private final long address;
    private final String source;
    private final List<Entry> records;
    private final int terminator;

    private EhFrame(byte[] bytes, long address, String source, List<Entry> records, int terminator) {
        this.bytes = bytes;
        this.address = address;
        this.source = source;
        this.records = records;
        this.terminator = terminator;
    }

    /** A CIE or an FDE, at {@code [offset, end)} of the section (its length field included). */
    public sealed interface Entry permits Cie, Fde {
        /** {@return the offset of the record's length field} */
        int offset();

        /** {@return the offset just past the record} */
        int end();

        /** {@return the offset of the record's CFA instructions (they run to {@link #end()})} */
        int instructions();
    }

    /**
     * A Common Information Entry.
     *
     * @param offset the offset of its length field
     * @param end the offset just past it
     * @param version the version (1 or 3)
     * @param augmentation the augmentation string ("zR", "zPLR", ...)
     * @param codeAlignment the factor of advance_loc deltas
     * @param dataAlignment the factor of offsets
     * @param returnAddressRegister the return-address column
     * @param fdeEncoding the encoding of its FDEs' pc_begin ('R'; absolute 8 bytes without one)
     * @param lsdaEncoding the encoding of its FDEs' LSDA pointers ('L'; omitted without one)
     * @param personalityEncoding the encoding of the personality pointer ('P'; omitted without one)
     * @param personalityField the offset of the personality pointer, or -1 without one
     * @param instructions the offset of its initial CFA instructions
     */
    public record Cie(int offset, int end, int version, String augmentation, long codeAlignment, long dataAlignment,
                      long returnAddressRegister, int fdeEncoding, int lsdaEncoding, int personalityEncoding,
                      int personalityField, int instructions) implements Entry {
        /** {@return true when the augmentation starts with 'z': the CIE and its FDEs have augmentation data} */
        public boolean hasAugmentationData() {
            return augmentation.startsWith("z");
        }
    }

    /**
     * A Frame Description Entry.
     *
     * @param offset the offset of its length field
     * @param end the offset just past it
     * @param cie its CIE
     * @param pcBeginField the offset of its pc_begin field (pc_range follows)
     * @param pcBegin the first address it describes
     * @param pcRange the number of bytes it describes
     * @param lsdaField the offset of its LSDA pointer, or -1 without one
     * @param instructions the offset of its CFA instructions
     */
    public record Fde(int offset, int end, Cie cie, int pcBeginField, long pcBegin, long pcRange, int lsdaField,
                      int instructions) implements Entry {}

    /**
     * The file's {@code .eh_frame}, parsed.
     *
     * @param elf the file
     * @return its records; empty when it has no {@code .eh_frame} with contents
     */
    public static Optional<EhFrame> of(ElfFile elf) {
        return elf.section(".eh_frame")
                .filter(s -> !s.isNobits() && s.size() > 0)
                .map(s -> parse(elf.contents(s), s.address(), elf.name() + ": .eh_frame"));
    }

    /**
     * Parses a section's records.
     *
     * @param bytes the section's contents (kept, not copied)
     * @param address the section's address, to apply pc-relative pointers
     * @param source what the bytes are, for messages
     * @return the records
     * @throws dev.splice.base.BadInputException naming the source and the offset of what is malformed or unsupported
     */
    public static EhFrame parse(byte[] bytes, long address, String source) {
        Map<Integer, Cie> cies = new HashMap<>();
        List<Entry> records = new ArrayList<>();
        int offset = 0;
        while (bytes.length - offset >= 4) {
            ByteReader r = new ByteReader(bytes, offset, bytes.length, source);
            long length = r.u32() & 0xffffffffL;
            if (length == 0) {
                break;
            }
            if (length == 0xffffffffL) {
                throw new UnwindFormatException(source, offset, "64-bit .eh_frame records are not supported");
            }
            int start = r.position();
            if (length > bytes.length - start) {
                throw new UnwindFormatException(source, offset, "record length " + length + " runs past the end of the section");
            }
            int end = (int) (start + length);
            ByteReader body = new ByteReader(bytes, start, end, source);
            long id = body.u32() & 0xffffffffL;
            if (id == 0) {
                Cie cie = cie(body, offset, end, source);
                cies.put(offset, cie);
                records.add(cie);
            } else {
                long cieOffset = start - id;
                Cie cie = cies.get((int) cieOffset);
                if (cie == null || cieOffset != (int) cieOffset) {
                    throw new UnwindFormatException(source, offset, "FDE refers to no CIE at offset " + cieOffset);
                }
                records.add(fde(body, offset, end, cie, address, source));
            }
            offset = end;
        }
        return new EhFrame(bytes, address, source, Collections.unmodifiableList(records), offset);
    }

    private static Cie cie(ByteReader r, int offset, int end, String source) {
        int version = r.u8();
        String augmentation = r.cstring();
        if (augmentation.contains("eh")) {
            r.u64(); // the eh_ptr of old GCC
        }
        long codeAlignment = r.uleb();
        long dataAlignment = r.sleb();
        long returnAddress = version == 1 ? r.u8() : r.uleb();
        int fdeEncoding = PointerEncoding.DW_EH_PE_ABSPTR;
        int lsdaEncoding = PointerEncoding.DW_EH_PE_OMIT;
        int personalityEncoding = PointerEncoding.DW_EH_PE_OMIT;
        int personalityField = -1;
        int instructions = r.position();
        if (augmentation.startsWith("z")) {
            long length = r.uleb();
            if (length > r.remaining()) {
                throw new UnwindFormatException(source, offset, "CIE augmentation data runs past the end of its record");
            }
            instructions = r.position() + (int) length;
            for (int i = 1; i < augmentation.length(); i++) {
                switch (augmentation.charAt(i)) {
                    case 'R' -> fdeEncoding = r.u8();
                    case 'L' -> lsdaEncoding = r.u8();
                    case 'P' -> {
                        personalityEncoding = r.u8();
                        personalityField = r.position();
                        PointerEncoding.readValue(r, personalityEncoding & 0x7f);
                    }
                    case 'S', 'B', 'G' -> { }
                    default -> throw new UnwindFormatException(source, offset,
                            "unknown CIE augmentation '" + augmentation + "'");
                }
            }
            if (r.position() > instructions) {
                throw new UnwindFormatException(source, offset, "CIE augmentation runs past its augmentation data");
            }
        }
        return new Cie(offset, end, version, augmentation, codeAlignment, dataAlignment, returnAddress, fdeEncoding,
                lsdaEncoding, personalityEncoding, personalityField, instructions);
    }

    private static Fde fde(ByteReader r, int offset, int end, Cie cie, long address, String source) {
        int pcBeginField = r.position();
        long pcBegin = PointerEncoding.read(r, cie.fdeEncoding(), address);
        long pcRange = PointerEncoding.readValue(r, cie.fdeEncoding() & 0x0f);
        int lsdaField = -1;
        int instructions = r.position();
        if (cie.hasAugmentationData()) {
            long length = r.uleb();
            if (length > r.remaining()) {
                throw new UnwindFormatException(source, offset, "FDE augmentation data runs past the end of its record");
            }
            if (cie.lsdaEncoding() != PointerEncoding.DW_EH_PE_OMIT) {
                lsdaField = r.position();
            }
            instructions = r.position() + (int) length;
        }
        return new Fde(offset, end, cie, pcBeginField, pcBegin, pcRange, lsdaField, instructions);
    }

    /** {@return the CIEs and FDEs, in section order} */
    public List<Entry> records() {
        return records;
    }

    /** {@return the offset where the records stop: the zero terminator, or the section's end} */
    public int terminator() {
        return terminator;
    }

    /**
     * A reader of a record's CFA instructions.
     *
     * @param record a CIE (its initial instructions) or an FDE of this section
     * @return a reader positioned before the first instruction
     */
    public CfaReader cfaReader(Entry record) {
        Cie cie = record instanceof Fde f ? f.cie() : (Cie) record;
        return new CfaReader(bytes, record.instructions(), record.end(), cie.fdeEncoding(), source);
    }

    /**
     * Reads a pointer field of a record and applies it (see {@link PointerEncoding#read}).
     *
     * @param record the record that holds the field
     * @param field the field's offset ({@link Fde#lsdaField()}, {@link Cie#personalityField()}, ...)
     * @param encoding the field's encoding
     * @return the address (for an indirect pointer: the address of the cell that holds it)
     * @throws dev.splice.base.BadInputException when the field runs past the record or its encoding is not applied
     */
    public long pointer(Entry record, int field, int encoding) {
        return PointerEncoding.read(new ByteReader(bytes, field, record.end(), source), encoding, address);
    }

    /**
     * The address of an FDE's LSDA.
     *
     * @param fde an FDE of this section with an LSDA ({@link Fde#lsdaField()} &gt;= 0)
     * @return the LSDA's address (for an indirect pointer: the address of the cell that holds it)
     */
    public long lsda(Fde fde) {
        return pointer(fde, fde.lsdaField(), fde.cie().lsdaEncoding());
    }
}
