package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.security.MessageDigest;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The build-id derivation against a direct SHA-256 of the old id and the content, split into parts at random. */
class BuildIdsProperties {
    @Provide
    Arbitrary<List<byte[]>> parts() {
        // Lengths around the 64-byte block and the 56-byte padding boundary, and some long ones.
        Arbitrary<Integer> length = Arbitraries.oneOf(Arbitraries.integers().between(0, 130),
                Arbitraries.integers().between(0, 5000));
        return length.flatMap(n -> Arbitraries.bytes().array(byte[].class).ofSize(n)).list().ofMaxSize(5);
    }

    @Property(tries = 100)
    void derivesTheIdFromOneHashOfOldIdAndContent(@ForAll("parts") List<byte[]> parts) throws Exception {
        byte[] oldId = new byte[20];
        MessageDigest jdk = MessageDigest.getInstance("SHA-256");
        jdk.update(oldId);
        for (byte[] p : parts) {
            jdk.update(p);
        }
        byte[] expected = java.util.Arrays.copyOf(jdk.digest(), 20);
        assertArrayEquals(expected, BuildIds.derive(oldId, parts.toArray(new byte[0][])));
    }
}
