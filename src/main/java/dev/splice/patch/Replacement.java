package dev.splice.patch;

/**
 * Replace the machine code of {@code function} (a FUNC symbol name, or {@code 0xADDRESS} of its
 * start) by the assembled {@code listing} text; {@code listingName} names it in messages.
 */
public record Replacement(String function, String listing, String listingName) {}
