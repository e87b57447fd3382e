package dev.splice.listing;

import dev.splice.isa.TextBuffer;

/**
 * The start of the listing line (indent, "mnemonic operands", padding to the comment column) of
 * recently seen instruction words whose text depends on the word alone (no pc-relative operand). Compiled code repeats words a lot (stack frames,
 * moves, returns, loads of the same slots: in a static C++ program about two thirds of the
 * instructions repeat an earlier word), and copying the text is cheaper than printing it again.
 * Direct-mapped, fixed size, one per rendering thread: no allocation, no locking, and the output
 * does not depend on what is cached.
 */
final class TextCache {
    private static final int SLOT_BITS = 12;
    /** Longest text cached; longer ones are printed every time. */
    private static final int WIDTH = 64;

    /** The word in each slot, and the length of its text: 0 for an empty slot (no text is empty). */
    private final int[] words = new int[1 << SLOT_BITS];
    private final byte[] lengths = new byte[1 << SLOT_BITS];
    private final byte[] texts = new byte[WIDTH << SLOT_BITS];

    private static int slot(int word) {
        return (word * 0x9e3779b1) >>> (32 - SLOT_BITS);
    }

    /** Appends the cached text of {@code word} and returns true, or returns false. */
    boolean appendTo(TextBuffer out, int word) {
        int slot = slot(word);
        int length = lengths[slot];
        if (words[slot] != word || length == 0) {
            return false;
        }
        out.append(texts, slot * WIDTH, length);
        return true;
    }

    /** Remembers the text of {@code word}: the bytes of {@code text} from {@code start} to its end. */
    void put(int word, TextBuffer text, int start) {
        int length = text.length() - start;
        if (length > WIDTH || length == 0) {
            return;
        }
        int slot = slot(word);
        words[slot] = word;
        lengths[slot] = (byte) length;
        text.copyTo(start, texts, slot * WIDTH, length);
    }
}
