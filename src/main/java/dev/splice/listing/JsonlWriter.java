package dev.splice.listing;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.splice.base.Hex;
import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;
import dev.splice.isa.Printer;
import dev.splice.isa.TargetNamer;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * Writes one JSON object per line and per instruction: {@code address} (number), {@code size},
 * {@code encoding} (the instruction word in hex, as in the listing comments), {@code mnemonic}
 * (exact form), {@code operands} (exact form, absolute targets), {@code text} (in the chosen
 * style), {@code valid} (false for raw words and loose bytes), and, for branches, {@code target}
 * and {@code symbol} (the target as symbol+offset, when known); {@code region} names the region.
 */
public final class JsonlWriter {
    private static final JsonFactory JSON = new JsonFactory();

    private final Decoder decoder;
    private final Printer printer;
    private final SymbolMap symbols;

    /**
     * A writer with the chosen text style and symbols.
     *
     * @param aliases write {@code text} with readable aliases (li, mv, ret, ...) instead of the
     *     exact form; {@code mnemonic} and {@code operands} stay exact
     * @param symbols names for the {@code symbol} field of branches (null: none)
     */
    public JsonlWriter(boolean aliases, SymbolMap symbols) {
        this(aliases, symbols, ListingWriter.ALL_EXTENSIONS);
    }

    /**
     * A writer that decodes only the instructions of the given extensions (the others are
     * {@code valid: false}, as llvm-objdump with {@code --mattr}).
     *
     * @param aliases as {@link #JsonlWriter(boolean, SymbolMap)}
     * @param symbols as {@link #JsonlWriter(boolean, SymbolMap)}
     * @param extensions the extensions whose instructions are decoded
     */
    public JsonlWriter(boolean aliases, SymbolMap symbols, java.util.Set<dev.splice.isa.Extension> extensions) {
        this.decoder = Decoders.of(extensions);
        this.printer = aliases ? Printer.ALIASES : Printer.EXACT;
        this.symbols = symbols == null ? SymbolMap.EMPTY : symbols;
    }

    /**
     * Writes one JSON line per decoded item of the regions, in region and address order (UTF-8).
     *
     * @param regions the code to describe
     * @param out where the lines go; left open
     * @throws IOException if {@code out} fails
     */
    public void write(List<Region> regions, OutputStream out) throws IOException {
        try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            json.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
            json.setRootValueSeparator(new com.fasterxml.jackson.core.io.SerializedString("\n"));
            StringBuilder exact = new StringBuilder(128);
            StringBuilder text = new StringBuilder(128);
            StringBuilder scratch = new StringBuilder(64);
            TargetRecorder recorder = new TargetRecorder();
            for (Region region : regions) {
                InstructionCursor cursor = new InstructionCursor(region.bytes(), decoder);
                while (cursor.advance()) {
                    long pc = region.address() + cursor.offset;
                    exact.setLength(0);
                    text.setLength(0);
                    recorder.seen = false;
                    boolean valid = cursor.kind == InstructionCursor.Kind.INSTRUCTION;
                    if (valid) {
                        Printer.EXACT.print(cursor.opcode, (int) cursor.bits, pc, exact, recorder);
                        if (printer == Printer.EXACT) {
                            text.append(exact);
                        } else {
                            printer.print(cursor.opcode, (int) cursor.bits, pc, text, TargetNamer.ABSOLUTE);
                        }
                    } else {
                        raw(cursor, exact);
                        text.append(exact);
                    }
                    json.writeStartObject();
                    json.writeStringField("region", region.name());
                    json.writeNumberField("address", pc);
                    json.writeNumberField("size", cursor.size);
                    scratch.setLength(0);
                    if (cursor.kind == InstructionCursor.Kind.BYTES) {
                        for (int i = 0; i < cursor.size; i++) {
                            Hex.appendFixed(scratch, cursor.byteAt(cursor.offset + i), 2);
                        }
                    } else {
                        Hex.appendFixed(scratch, cursor.bits, cursor.size * 2);
                    }
                    json.writeStringField("encoding", scratch.toString());
                    int space = exact.indexOf(" ");
                    json.writeStringField("mnemonic", space < 0 ? exact.toString() : exact.substring(0, space));
                    json.writeStringField("operands", space < 0 ? "" : exact.substring(space + 1));
                    json.writeStringField("text", text.toString());
                    json.writeBooleanField("valid", valid);
                    if (recorder.seen) {
                        json.writeNumberField("target", recorder.target);
                        String name = symbols.describe(recorder.target);
                        if (name != null) {
                            json.writeStringField("symbol", name);
                        }
                    }
                    json.writeEndObject();
                }
            }
            json.writeRaw('\n');
        }
    }

    private static void raw(InstructionCursor cursor, StringBuilder out) {
        if (cursor.kind == InstructionCursor.Kind.RAW) {
            out.append(".insn ").append(cursor.size).append(", 0x");
            Hex.appendFixed(out, cursor.bits, cursor.size * 2);
        } else {
            out.append(".byte ");
            for (int i = 0; i < cursor.size; i++) {
                out.append(i == 0 ? "0x" : ", 0x");
                Hex.appendFixed(out, cursor.byteAt(cursor.offset + i), 2);
            }
        }
    }

    /** Prints targets as absolute addresses and remembers the last one. */
    private static final class TargetRecorder implements TargetNamer {
        boolean seen;
        long target;

        @Override
        public void append(StringBuilder out, long pc, long target) {
            TargetNamer.ABSOLUTE.append(out, pc, target);
            this.seen = true;
            this.target = target;
        }
    }
}
