package dev.splice.isa;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The RV64 extensions Splice knows, in canonical ISA-string order. */
public enum Extension {
    /** The base integer instruction set. */
    I("i"),
    /** Integer multiplication and division. */
    M("m"),
    /** Atomic instructions. */
    A("a"),
    /** Single-precision floating point. */
    F("f"),
    /** Double-precision floating point. */
    D("d"),
    /** Compressed (16-bit) instructions. */
    C("c"),
    /** Cache-block management (cbo.clean, cbo.flush, cbo.inval). */
    ZICBOM("zicbom"),
    /** Cache-block zero (cbo.zero). */
    ZICBOZ("zicboz"),
    /** Integer conditional operations (czero.eqz, czero.nez). */
    ZICOND("zicond"),
    /** Control and status register instructions. */
    ZICSR("zicsr"),
    /** Instruction-fetch fence (fence.i). */
    ZIFENCEI("zifencei"),
    /** The pause hint (a fence encoding: no rows of its own). */
    ZIHINTPAUSE("zihintpause"),
    /** Address generation (sh1add, add.uw, ...). */
    ZBA("zba"),
    /** Basic bit manipulation. */
    ZBB("zbb"),
    /** Single-bit instructions. */
    ZBS("zbs"),
    // ---- vector (V 1.0 and the Zv* extensions)
    /** The vector extension, version 1.0. */
    V("v"),
    /** Vector basic bit manipulation (includes Zvkb: vandn, vbrev8, vrev8, vrol, vror). */
    ZVBB("zvbb"),
    /** Vector carry-less multiplication (vclmul, vclmulh). */
    ZVBC("zvbc"),
    /** Vector half-precision conversions (vfwcvt.f.f.v and vfncvt.f.f.w at SEW 16: no rows of its own). */
    ZVFHMIN("zvfhmin"),
    /** Vector GCM/GMAC (vghsh, vgmul). */
    ZVKG("zvkg"),
    /** Vector AES (vaes*). */
    ZVKNED("zvkned"),
    /** Vector SHA-256 (vsha2ms, vsha2ch, vsha2cl). */
    ZVKNHA("zvknha"),
    /** Vector SHA-256 and SHA-512: Zvknha's instructions at SEW 64 too (no rows of its own). */
    ZVKNHB("zvknhb"),
    /** Vector SM4 (vsm4k, vsm4r). */
    ZVKSED("zvksed"),
    /** Vector SM3 (vsm3me, vsm3c). */
    ZVKSH("zvksh"),
    /** Vector data-independent execution latency (a property: no rows of its own). */
    ZVKT("zvkt");

    private final String isaName;

    Extension(String isaName) {
        this.isaName = isaName;
    }

    /** {@return the lower-case name used in ISA strings ("m", "zba", ...)} */
    public String isaName() {
        return isaName;
    }

    /** The extensions that "g" stands for. */
    private static final Set<Extension> G = EnumSet.of(I, M, A, F, D, ZICSR, ZIFENCEI);

    /** {@return every extension Splice knows (a new, modifiable set)} */
    public static Set<Extension> all() {
        return EnumSet.allOf(Extension.class);
    }

    /**
     * Parses a target string such as "rv64gc" or "rv64gc_zba_zbb_zicond" (case-insensitive);
     * throws IllegalArgumentException naming the bad part.
     *
     * @param target the target string
     * @return the extensions it enables
     */
    public static Set<Extension> parseTarget(String target) {
        if (target == null) {
            throw new IllegalArgumentException("missing target");
        }
        String t = target.trim().toLowerCase(Locale.ROOT);
        if (!t.startsWith("rv64")) {
            throw new IllegalArgumentException("target '" + target + "' must start with rv64");
        }
        String[] parts = t.substring(4).split("_", -1);
        String letters = parts[0];
        if (letters.isEmpty() || (letters.charAt(0) != 'i' && letters.charAt(0) != 'g')) {
            throw new IllegalArgumentException("target '" + target + "': base must be i or g after rv64");
        }
        Set<Extension> set = EnumSet.of(I);
        for (int i = 0; i < letters.length(); i++) {
            char c = letters.charAt(i);
            switch (c) {
                case 'i' -> set.add(I);
                case 'g' -> set.addAll(G);
                case 'm' -> set.add(M);
                case 'a' -> set.add(A);
                case 'f' -> { set.add(F); set.add(ZICSR); }
                case 'd' -> { set.add(D); set.add(F); set.add(ZICSR); }
                case 'c' -> set.add(C);
                case 'v' -> { set.add(V); set.addAll(EnumSet.of(F, D, ZICSR)); }
                default -> throw new IllegalArgumentException(
                        "target '" + target + "': unknown single-letter extension '" + c + "'");
            }
        }
        for (int i = 1; i < parts.length; i++) {
            Extension e = byIsaName(parts[i]);
            if (e == null || e.isaName.length() == 1) {
                throw new IllegalArgumentException("target '" + target + "': unknown extension '" + parts[i] + "'");
            }
            set.add(e);
        }
        return set;
    }

    private static Extension byIsaName(String name) {
        for (Extension e : values()) {
            if (e.isaName.equals(name)) {
                return e;
            }
        }
        return null;
    }

    /**
     * The canonical target string: "rv64gc" (or "rv64i..."), then "_z..." suffixes in canonical order.
     *
     * @param extensions the enabled extensions
     * @return the target string
     */
    public static String targetName(Set<Extension> extensions) {
        StringBuilder sb = new StringBuilder("rv64");
        boolean g = extensions.containsAll(G);
        if (g) {
            sb.append('g');
        } else {
            sb.append('i');
            for (Extension e : EnumSet.of(M, A, F, D)) {
                if (extensions.contains(e)) {
                    sb.append(e.isaName);
                }
            }
        }
        if (extensions.contains(C)) {
            sb.append('c');
        }
        if (extensions.contains(V)) {
            sb.append('v');
        }
        for (Extension e : values()) {
            if (e.isaName.length() > 1 && extensions.contains(e) && !(g && G.contains(e))) {
                sb.append('_').append(e.isaName);
            }
        }
        return sb.toString();
    }
}
