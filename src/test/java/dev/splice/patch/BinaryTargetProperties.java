package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The regex-free version stripping of arch string parts against the regex it replaces (the oracle). */
class BinaryTargetProperties {
    @Provide
    Arbitrary<String> parts() {
        // Letters, digits and 'p' in any order, as in "zicsr2p0", "i2p1", "2p", "p2", "zve32x1p0".
        return Arbitraries.strings().withChars("iz0123456789pxv_").ofMaxLength(12);
    }

    @Property(tries = 2000)
    void stripsTheVersionLikeTheRegex(@ForAll("parts") String part) {
        assertEquals(part.replaceFirst("\\d+(p\\d+)?$", ""), dev.splice.isa.Extension.withoutVersion(part), part);
    }
}
