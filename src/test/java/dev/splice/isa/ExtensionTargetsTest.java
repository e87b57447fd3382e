package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** ISA strings as -march spells them, profiles, Tag_RISCV_arch strings, and the canonical order. */
class ExtensionTargetsTest {
    @Test
    void marchStringsWithVersionsAndImpliedExtensions() {
        Set<Extension> s = Extension.parseTarget("rv64gcv_zfh_zbc");
        assertTrue(s.containsAll(EnumSet.of(Extension.I, Extension.M, Extension.A, Extension.F, Extension.D,
                Extension.C, Extension.ZICSR, Extension.ZIFENCEI, Extension.ZFH, Extension.ZFHMIN, Extension.ZBC)), s.toString());
        assertEquals(Extension.parseTarget("rv64imafdc_zicsr_zifencei_zfh_zfhmin_zbc"), Extension.parseTarget("rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0_zfh1p0_zbc1p0"));
        assertEquals(Extension.parseTarget("rv64gc_zfh"), Extension.parseTarget("RV64GC_ZFH1P0"));
        assertTrue(Extension.parseTarget("rv64i_zfa").containsAll(EnumSet.of(Extension.F, Extension.ZICSR)), "zfa needs f");
        assertTrue(Extension.parseTarget("rv64i_zcb").contains(Extension.C), "Splice's C is Zca");
        assertTrue(Extension.parseTarget("rv64i_zabha").contains(Extension.A));
        assertEquals(EnumSet.of(Extension.I, Extension.ZBA, Extension.ZBB, Extension.ZBS), Extension.parseTarget("rv64ib"));
        assertTrue(Extension.parseTarget("rv64gch").contains(Extension.H));
        assertTrue(Extension.parseTarget("rv64g_zkn").containsAll(EnumSet.of(Extension.ZBKB, Extension.ZBKC, Extension.ZBKX,
                Extension.ZKND, Extension.ZKNE, Extension.ZKNH)));
        // Ratified names without rows of their own are accepted and enable nothing.
        assertEquals(Extension.parseTarget("rv64gc"), Extension.parseTarget("rv64gc_zmmul_zicntr_zihpm_zvl128b_zkt"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Extension.parseTarget("rv64gc_zfoo"));
        assertTrue(e.getMessage().contains("'zfoo'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Extension.parseTarget("rva24u64"));
        assertTrue(e.getMessage().contains("rv64 or name a profile"), e.getMessage());
    }

    @Test
    void profilesHaveTheirMandatoryExtensions() {
        Set<Extension> rva22 = Extension.parseTarget("rva22u64");
        assertEquals(EnumSet.of(Extension.I, Extension.M, Extension.A, Extension.F, Extension.D, Extension.C,
                Extension.ZICSR, Extension.ZIHINTPAUSE, Extension.ZBA, Extension.ZBB, Extension.ZBS, Extension.ZICBOM,
                Extension.ZICBOP, Extension.ZICBOZ, Extension.ZFHMIN), rva22);
        Set<Extension> rva23 = Extension.parseTarget("rva23u64");
        Set<Extension> added = EnumSet.copyOf(rva23);
        added.removeAll(rva22);
        Set<Extension> expected = EnumSet.of(Extension.ZIHINTNTL, Extension.ZICOND, Extension.ZIMOP,
                Extension.ZCMOP, Extension.ZCB, Extension.ZFA, Extension.ZAWRS);
        for (String vector : new String[] {"v", "zvfhmin", "zvbb", "zvkt"}) {
            Extension v = Extension.byIsaName(vector); // the vector constants, once they are in Extension
            if (v != null) {
                expected.add(v);
            }
        }
        assertTrue(added.containsAll(expected), added.toString());
        assertFalse(rva23.contains(Extension.ZFH), "Zfh is optional in RVA23U64");
        assertTrue(Extension.parseTarget("rva23u64_zfh_zbc").containsAll(EnumSet.of(Extension.ZFH, Extension.ZBC)));
    }

    @Test
    void archAttributesAreReadLeniently() {
        assertEquals(Extension.parseTarget("rv64gc_zba"),
                Extension.parseArch("rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0_zifencei2p0_zmmul1p0_zba1p0_xtheadba1p0"));
        assertEquals(EnumSet.of(Extension.I), Extension.parseArch("rv32imac"));
    }

    @Test
    void targetNamesAreCanonical() {
        assertEquals("rv64gch_zicbop_zihintntl_zimop_zabha_zacas_zfa_zfh_zfhmin_zcb_zbkb_zknd_svinval",
                Extension.targetName(Extension.parseTarget("rv64gc_svinval_zknd_zbkb_zcb_zfh_zfa_zacas_zabha_zimop_zihintntl_zicbop_h")));
        for (Extension e : Extension.values()) {
            Set<Extension> one = Extension.parseTarget("rv64gc" + (e.isaName().length() == 1 ? "" : "_") + e.isaName());
            assertTrue(one.contains(e), e.toString());
            assertEquals(one, Extension.parseTarget(Extension.targetName(one)), e.toString());
        }
    }
}
