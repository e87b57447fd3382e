package dev.splice.patch;

/**
 * Replace the machine code of {@code function} by the assembled {@code listing} text, which must
 * keep the function's length.
 *
 * @param function a FUNC symbol name, or {@code 0xADDRESS} of the function's start
 * @param listing the listing text (as {@code splice disasm} writes it)
 * @param listingName names the listing in messages
 */
public record Replacement(String function, String listing, String listingName) {}
