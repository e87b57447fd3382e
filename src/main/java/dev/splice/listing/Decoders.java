package dev.splice.listing;

import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import java.util.Set;

/**
 * The decoders of the listings: one per set of extensions, built once per process by the isa
 * package (building one costs far more than decoding a typical function).
 */
final class Decoders {
    private Decoders() {}

    static Decoder of(Set<Extension> extensions) {
        return Isa.rv64().decoder(extensions);
    }
}
