package dev.splice.isa;

import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The RV64 instruction set, built once from the declarative table {@code rv64.tbl}. */
public final class Isa {
    private static final class Holder {
        static final Isa RV64 = TableReader.load("rv64.tbl");
    }

    /** Table rows fit in 11 bits: {@link Decoder}'s packed results are 16-bit. */
    static final int MAX_OPCODES = 2000;

    private final List<Opcode> opcodes;
    private final Map<Set<Extension>, Decoder> decoders = new ConcurrentHashMap<>();
    private final Map<String, Opcode> byMnemonic = new HashMap<>();
    private final Map<Integer, String> csrNames;
    /** CSR names by number, for allocation-free printing. */
    private final String[] csrByNumber = new String[4096];
    private final byte[][] csrBytesByNumber = new byte[4096][];
    private final Map<String, Integer> csrNumbers = new HashMap<>();
    private final Map<String, Field> fields;
    private final Set<Extension> extensions;

    Isa(List<Opcode> opcodes, Map<Integer, String> csrNames, Map<String, Integer> csrAliases, Map<String, Field> fields) {
        this.opcodes = List.copyOf(opcodes);
        if (opcodes.size() > MAX_OPCODES) {
            throw new IllegalStateException("table has more than " + MAX_OPCODES + " rows");
        }
        for (int i = 0; i < this.opcodes.size(); i++) {
            this.opcodes.get(i).setId(i);
        }
        for (Opcode op : opcodes) {
            if (byMnemonic.putIfAbsent(op.mnemonic(), op) != null) {
                throw new IllegalStateException("duplicate mnemonic in table: " + op.mnemonic());
            }
        }
        this.fields = Map.copyOf(fields);
        EnumSet<Extension> used = EnumSet.noneOf(Extension.class);
        for (Opcode op : opcodes) {
            used.addAll(op.requires());
            used.addAll(op.anyOf());
        }
        this.extensions = Collections.unmodifiableSet(used);
        this.csrNames = Map.copyOf(csrNames);
        for (Map.Entry<Integer, String> e : csrNames.entrySet()) {
            int number = e.getKey();
            String name = e.getValue();
            csrNumbers.put(name, number);
            csrByNumber[number] = name;
            csrBytesByNumber[number] = TextBuffer.ascii(name);
        }
        csrNumbers.putAll(csrAliases);
    }

    /** {@return the whole RV64 table (read once, then shared)} */
    public static Isa rv64() {
        return Holder.RV64;
    }

    /**
     * The row with this exact mnemonic.
     *
     * @param mnemonic as the exact printer prints it ("c.addi", "lr.w.aq")
     * @return the opcode, or null
     */
    public Opcode opcode(String mnemonic) {
        return byMnemonic.get(mnemonic);
    }

    /** {@return every row of the table, in table order; a row's position is its {@link Opcode#id()}} */
    public List<Opcode> opcodes() {
        return opcodes;
    }

    /**
     * The extensions the table has instructions of, in canonical order: a decoder for these
     * decodes every row. (Zihintpause is no such extension: its pause is a fence hint.)
     *
     * @return an unmodifiable set
     */
    public Set<Extension> extensions() {
        return extensions;
    }

    /**
     * The operand field of the table with this name ("rd", "imm12", "simm12s", "uimm20", ...), for
     * reading or writing that field of any instruction word that has it.
     *
     * @param name a field name of the table
     * @return the field, or null if the table has none of that name
     */
    public Field field(String name) {
        return fields.get(name);
    }

    /**
     * A decoder for the enabled extensions (built once per set of extensions that the table has
     * instructions of, then shared).
     *
     * @param enabled the extensions whose instructions decode
     * @return the decoder
     */
    public Decoder decoder(Set<Extension> enabled) {
        EnumSet<Extension> key = EnumSet.noneOf(Extension.class);
        key.addAll(enabled);
        key.retainAll(extensions);
        return decoders.computeIfAbsent(key, k -> new Decoder(opcodes, k));
    }

    /**
     * The name of a CSR.
     *
     * @param number the CSR number
     * @return its name, or null if it has none
     */
    public String csrName(int number) {
        return number >= 0 && number < csrByNumber.length ? csrByNumber[number] : null;
    }

    /** The name of a CSR number (0..4095) as ASCII bytes, or null if it has none. */
    byte[] csrNameBytes(int number) {
        return number >= 0 && number < csrBytesByNumber.length ? csrBytesByNumber[number] : null;
    }

    /**
     * The number of a named CSR; also takes the other names of {@code csr-alias} lines (such as {@code dscratch}).
     *
     * @param name the CSR's name
     * @return its number, or -1
     */
    public int csrNumber(String name) {
        return csrNumbers.getOrDefault(name, -1);
    }

    /** {@return every named CSR by number} */
    public Map<Integer, String> csrNames() {
        return Collections.unmodifiableMap(csrNames);
    }
}
