package dev.splice.listing;

import dev.splice.isa.Decoder;
import dev.splice.isa.Isa;

/**
 * The one decoder for every extension the listings know, built once per process (building it
 * costs far more than decoding a typical function).
 */
final class Decoders {
    private Decoders() {}

    private static final class Holder {
        static final Decoder ALL = Isa.rv64().decoder(ListingWriter.ALL_EXTENSIONS);
    }

    static Decoder all() {
        return Holder.ALL;
    }
}
