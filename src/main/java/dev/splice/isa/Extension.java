package dev.splice.isa;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The RV64 extensions Splice knows; {@link #targetName} puts them in canonical ISA-string order. */
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

    // ---- scalar extensions of RVA23U64 and the common options (canonical order comes from
    // canonicalRank, not from the order of the constants)
    /** Half-precision floating point. */
    ZFH("zfh"),
    /** Minimal half precision: loads, stores, moves and conversions. */
    ZFHMIN("zfhmin"),
    /** Additional floating-point instructions (fli, fminm, fround, fleq, ...). */
    ZFA("zfa"),
    /** More compressed instructions (c.lbu, c.sh, c.zext.b, c.mul, ...). */
    ZCB("zcb"),
    /** May-be-operations (mop.r.N, mop.rr.N). */
    ZIMOP("zimop"),
    /** Compressed may-be-operations (c.mop.N). */
    ZCMOP("zcmop"),
    /** Wait on reservation set (wrs.nto, wrs.sto). */
    ZAWRS("zawrs"),
    /** Non-temporal locality hints (ntl.*: add HINTs, no rows of their own). */
    ZIHINTNTL("zihintntl"),
    /** Cache-block prefetch hints (prefetch.i, prefetch.r, prefetch.w). */
    ZICBOP("zicbop"),
    /** Carry-less multiplication. */
    ZBC("zbc"),
    /** Bit manipulation for cryptography (pack, brev8, rotations, ...). */
    ZBKB("zbkb"),
    /** Carry-less multiplication for cryptography. */
    ZBKC("zbkc"),
    /** Crossbar permutations (xperm4, xperm8). */
    ZBKX("zbkx"),
    /** AES decryption. */
    ZKND("zknd"),
    /** AES encryption. */
    ZKNE("zkne"),
    /** SHA-256 and SHA-512 hash functions. */
    ZKNH("zknh"),
    /** SM4 block cipher. */
    ZKSED("zksed"),
    /** SM3 hash function. */
    ZKSH("zksh"),
    /** Entropy source (the seed CSR: no rows of its own). */
    ZKR("zkr"),
    /** Atomic compare-and-swap (amocas.w, amocas.d, amocas.q). */
    ZACAS("zacas"),
    /** Byte and halfword atomics. */
    ZABHA("zabha"),
    /** Fine-grained address-translation cache invalidation (sinval.vma, ...). */
    SVINVAL("svinval"),
    /** The hypervisor extension's instructions (hfence.*, hlv.*, hsv.*). */
    H("h"),

    // ---- vector (V 1.0 and the Zv* extensions)
    /** The vector extension, version 1.0. */
    V("v"),
    /** Vector basic bit manipulation (includes Zvkb: vandn, vbrev8, vrev8, vrol, vror). */
    ZVBB("zvbb"),
    /** Vector carry-less multiplication (vclmul, vclmulh). */
    ZVBC("zvbc"),
    /** Vector cryptography bit manipulation: Zvbb's vandn, vbrev8, vrev8, vrol and vror (their rows name both). */
    ZVKB("zvkb"),
    /** Vector half-precision conversions (vfwcvt.f.f.v and vfncvt.f.f.w at SEW 16: no rows of its own). */
    ZVFHMIN("zvfhmin"),
    /** Vector GCM/GMAC (vghsh, vgmul). */
    ZVKG("zvkg"),
    /** Vector AES (vaes*). */
    ZVKNED("zvkned"),
    /** Vector SHA-256 (vsha2ms, vsha2ch, vsha2cl). */
    ZVKNHA("zvknha"),
    /** Vector SHA-256 and SHA-512: Zvknha's instructions at SEW 64 too (the vsha2* rows name both). */
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
    /** Single-letter extensions in canonical ISA-string order (the spec's table 27.1). */
    private static final String LETTER_ORDER = "iemafdqlcbkjtpvh";

    /**
     * Names of ratified extensions that have no instructions of their own in Splice's table
     * (memory-model, cache-size, counter and profile-only extensions; Zca is Splice's C), and the
     * embedded vector subsets (V's rows are enabled by V only): accepted in ISA strings and ignored.
     */
    private static final Set<String> WITHOUT_ROWS = Set.of("zicntr", "zihpm", "ziccif", "ziccrse", "ziccamoa",
            "zicclsm", "za64rs", "za128rs", "zic64b", "zkt", "zmmul", "zaamo", "zalrsc", "zama16b", "ziccamoc",
            "supm", "ssccptr", "sstvecd", "sstvala", "sscounterenw", "ssu64xl", "sha", "ssstateen", "ztso",
            "zve32x", "zve32f", "zve64x", "zve64f", "zve64d");

    /** What naming an extension also enables (the specification's "depends on"). */
    private static Set<String> implied(String name) {
        return switch (name) {
            case "f", "zkr", "h" -> Set.of("zicsr");
            case "d", "zfhmin", "zfa" -> Set.of("f");
            case "v" -> Set.of("d");
            case "zfh" -> Set.of("zfhmin");
            case "zca", "zcb", "zcmop" -> Set.of("c");
            case "zacas", "zabha" -> Set.of("a");
            case "b" -> Set.of("zba", "zbb", "zbs");
            case "zkn" -> Set.of("zbkb", "zbkc", "zbkx", "zkne", "zknd", "zknh");
            case "zks" -> Set.of("zbkb", "zbkc", "zbkx", "zksed", "zksh");
            case "zk" -> Set.of("zkn", "zkr", "zkt");
            // the vector crypto specification's shorthands, and Zvbb's subset (as llvm has them)
            case "zvbb" -> Set.of("zvkb");
            case "zvkn" -> Set.of("zvkned", "zvknhb", "zvkb", "zvkt");
            case "zvknc" -> Set.of("zvkn", "zvbc");
            case "zvkng" -> Set.of("zvkn", "zvkg");
            case "zvks" -> Set.of("zvksed", "zvksh", "zvkb", "zvkt");
            case "zvksc" -> Set.of("zvks", "zvbc");
            case "zvksg" -> Set.of("zvks", "zvkg");
            default -> Set.of();
        };
    }

    /** The mandatory extensions of the RVA22U64 profile (RISC-V profiles specification 1.0). */
    private static final String RVA22U64 = "rv64imafdc_zicsr_zicntr_zihpm_ziccif_ziccrse_ziccamoa_zicclsm_za64rs"
            + "_zihintpause_zba_zbb_zbs_zic64b_zicbom_zicbop_zicboz_zfhmin_zkt";
    /** RVA23U64's mandatory extensions: RVA22U64's and these (RVA23 profiles specification 1.0). */
    private static final String RVA23U64 = RVA22U64
            + "_v_zvfhmin_zvbb_zvkt_zihintntl_zicond_zimop_zcmop_zcb_zfa_zawrs_supm";

    /**
     * {@return what Splice decoded before it knew the extensions of session 6, and still decodes
     * raw code and ELF files without Tag_RISCV_arch with: rv64gc, Zicbom, Zicboz, Zicond,
     * Zihintpause, Zba, Zbb, Zbs (a new, modifiable set)}
     */
    public static Set<Extension> classic() {
        return EnumSet.of(I, M, A, F, D, C, ZICSR, ZIFENCEI, ZICBOM, ZICBOZ, ZICOND, ZIHINTPAUSE, ZBA, ZBB, ZBS);
    }

    /** {@return every extension Splice knows (a new, modifiable set)} */
    public static Set<Extension> all() {
        return EnumSet.allOf(Extension.class);
    }

    /**
     * Parses a target as {@code -march} spells it: an ISA string such as "rv64gc",
     * "rv64gcv_zfh_zbc" or "rv64i2p1_m2p0_zfh1p0" (versions are allowed and ignored: the table has
     * one version of each extension) or a profile name ("rva22u64", "rva23u64", optionally
     * followed by "_ext" additions), case-insensitive. Implied extensions are added ("d": F and
     * Zicsr, "zfh": Zfhmin, "zcb": C). Throws IllegalArgumentException naming the bad part.
     *
     * @param target the target string
     * @return the extensions it enables
     */
    public static Set<Extension> parseTarget(String target) {
        return parse(target, true);
    }

    /**
     * The extensions of a Tag_RISCV_arch string ("rv64i2p1_m2p0_..._c2p0_zicsr2p0"), leniently:
     * names Splice does not know (vendor extensions, newer ones) are ignored, as no listing can
     * name them; a string that is not RV64 gives just I.
     *
     * @param arch the attribute's string
     * @return the extensions it enables that Splice knows
     */
    public static Set<Extension> parseArch(String arch) {
        try {
            return parse(arch, false);
        } catch (IllegalArgumentException e) {
            return EnumSet.of(I);
        }
    }

    private static Set<Extension> parse(String target, boolean strict) {
        if (target == null) {
            throw new IllegalArgumentException("missing target");
        }
        String t = target.trim().toLowerCase(Locale.ROOT);
        String[] parts;
        if (t.startsWith("rva22u64") || t.startsWith("rva23u64")) {
            String rest = t.substring(8);
            if (!rest.isEmpty() && !rest.startsWith("_")) {
                throw new IllegalArgumentException("target '" + target + "': unknown profile");
            }
            parts = ((t.startsWith("rva22") ? RVA22U64 : RVA23U64).substring(4) + rest).split("_", -1);
        } else if (t.startsWith("rv64")) {
            parts = t.substring(4).split("_", -1);
        } else {
            throw new IllegalArgumentException("target '" + target
                    + "' must start with rv64 or name a profile (rva22u64, rva23u64)");
        }
        String letters = parts[0];
        if (letters.isEmpty() || (letters.charAt(0) != 'i' && letters.charAt(0) != 'g')) {
            throw new IllegalArgumentException("target '" + target + "': base must be i or g after rv64");
        }
        Set<Extension> set = EnumSet.of(I);
        for (int i = 0; i < letters.length(); i++) {
            char c = letters.charAt(i);
            if (isDigit(c) && i > 0) { // a version: "i2p1", "m2p0"
                while (i + 1 < letters.length() && (isDigit(letters.charAt(i + 1))
                        || letters.charAt(i + 1) == 'p' && i + 2 < letters.length() && isDigit(letters.charAt(i + 2)))) {
                    i++;
                }
                continue;
            }
            if (!add(String.valueOf(c), set) && strict) {
                throw new IllegalArgumentException(
                        "target '" + target + "': unknown single-letter extension '" + c + "'");
            }
        }
        for (int i = 1; i < parts.length; i++) {
            String name = withoutVersion(parts[i]);
            if (name.length() == 1 && Character.isLetter(name.charAt(0))) {
                if (!add(name, set) && strict) {
                    throw new IllegalArgumentException("target '" + target + "': unknown extension '" + parts[i] + "'");
                }
            } else if (name.isEmpty() || !add(name, set)) {
                if (strict) {
                    throw new IllegalArgumentException("target '" + target + "': unknown extension '" + parts[i] + "'");
                }
            }
        }
        return set;
    }

    /** Adds the extension named {@code name} and what it implies; false if the name is unknown. */
    private static boolean add(String name, Set<Extension> set) {
        boolean known = false;
        if (name.equals("g")) {
            set.addAll(G);
            return true;
        }
        Extension e = byIsaName(name);
        if (e != null) {
            set.add(e);
            known = true;
        }
        Set<String> more = implied(name);
        for (String m : more) {
            add(m, set);
        }
        return known || !more.isEmpty() || WITHOUT_ROWS.contains(name) || isVectorLength(name);
    }

    /** "zvl128b", "zvl256b", ...: minimum vector lengths, which no instruction depends on. */
    private static boolean isVectorLength(String name) {
        return name.length() > 4 && name.startsWith("zvl") && name.endsWith("b")
                && name.chars().skip(3).limit(name.length() - 4L).allMatch(Extension::isDigit);
    }

    /**
     * The extension with this ISA-string name.
     *
     * @param name the lower-case name ("zfh", "v")
     * @return the extension, or null if Splice has no such constant
     */
    public static Extension byIsaName(String name) {
        for (Extension e : values()) {
            if (e.isaName.equals(name)) {
                return e;
            }
        }
        return null;
    }

    /**
     * An ISA-string part without its trailing version ("zfh1p0" is "zfh", "m2" is "m").
     *
     * @param part one underscore-separated part of an ISA string
     * @return the part without the version
     */
    public static String withoutVersion(String part) {
        int end = part.length();
        while (end > 0 && isDigit(part.charAt(end - 1))) {
            end--;
        }
        if (end == part.length()) {
            return part;
        }
        if (end >= 2 && part.charAt(end - 1) == 'p' && isDigit(part.charAt(end - 2))) {
            end -= 1;
            while (end > 0 && isDigit(part.charAt(end - 1))) {
                end--;
            }
        }
        return part.substring(0, end);
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Position in canonical ISA-string order: single letters in the specification's order, then
     * Z extensions by the category of their second letter, then S extensions; alphabetical within
     * a category.
     */
    private static int categoryRank(Extension e) {
        String n = e.isaName;
        if (n.length() == 1) {
            return LETTER_ORDER.indexOf(n.charAt(0));
        }
        if (n.charAt(0) == 'z') {
            int c = LETTER_ORDER.indexOf(n.charAt(1));
            return 100 + (c < 0 ? 99 : c);
        }
        return 300;
    }

    /**
     * Canonical order. A class, not {@code Comparator.comparingInt(...)}: the table reader loads
     * this enum at every start-up, and a method reference's bootstrap cost milliseconds there.
     */
    private static final class Canonical implements Comparator<Extension> {
        @Override
        public int compare(Extension a, Extension b) {
            int byCategory = Integer.compare(categoryRank(a), categoryRank(b));
            return byCategory != 0 ? byCategory : a.isaName.compareTo(b.isaName);
        }
    }

    private static final Comparator<Extension> CANONICAL = new Canonical();

    /**
     * The canonical target string: "rv64gc" (or "rv64i..."), other single letters, then "_z..."
     * and "_s..." suffixes in canonical order.
     *
     * @param extensions the enabled extensions
     * @return the target string
     */
    public static String targetName(Set<Extension> extensions) {
        StringBuilder sb = new StringBuilder("rv64");
        boolean g = extensions.containsAll(G);
        List<Extension> sorted = new ArrayList<>(extensions);
        sorted.sort(CANONICAL);
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
        for (Extension e : sorted) {
            if (e.isaName.length() == 1 && !EnumSet.of(I, M, A, F, D).contains(e)) {
                sb.append(e.isaName);
            }
        }
        for (Extension e : sorted) {
            if (e.isaName.length() > 1 && !(g && G.contains(e))) {
                sb.append('_').append(e.isaName);
            }
        }
        return sb.toString();
    }
}
