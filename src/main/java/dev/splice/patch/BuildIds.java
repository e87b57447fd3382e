package dev.splice.patch;

import dev.splice.base.Le;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The new GNU build-id of a rewritten binary: SHA-256(old id || new content) truncated to the old
 * id's length, as seed 000 derives fingerprints. Same edit, same id; different edit, different id.
 */
final class BuildIds {
    private BuildIds() {}

    static byte[] derive(byte[] oldId, byte[]... newContent) {
        return finish(start(oldId, newContent), oldId.length);
    }

    /** The hash of the old id and the first parts of the new content (the rest may follow with {@link #finish}). */
    static MessageDigest start(byte[] oldId, byte[]... newContent) {
        MessageDigest sha = sha256();
        sha.update(oldId);
        for (byte[] part : newContent) {
            sha.update(part);
        }
        return sha;
    }

    /** The id from a hash begun with {@link #start}, after the remaining parts of the new content. */
    static byte[] finish(MessageDigest sha, int idLength, byte[]... moreContent) {
        for (byte[] part : moreContent) {
            sha.update(part);
        }
        byte[] digest = sha.digest();
        if (idLength <= digest.length) {
            return Arrays.copyOf(digest, idLength);
        }
        // A longer id than SHA-256 gives: repeat the digest (deterministic; never seen in practice).
        byte[] out = new byte[idLength];
        for (int i = 0; i < out.length; i++) {
            out[i] = digest[i % digest.length];
        }
        return out;
    }

    /**
     * The patched words of the input image, as the build-id of an insertion hashes them: in address
     * order (patches at one address in the order made), each as its address (8 bytes LE) and bytes.
     */
    static byte[] patchedWords(List<Patch> patches) {
        List<Patch> sorted = new ArrayList<>(patches);
        sorted.sort(Comparator.comparingLong(Patch::address));
        int size = 0;
        for (Patch p : sorted) {
            size += 8 + p.bytes().length;
        }
        byte[] out = new byte[size];
        int at = 0;
        for (Patch p : sorted) {
            Le.putU32(out, at, (int) p.address());
            Le.putU32(out, at + 4, (int) (p.address() >>> 32));
            System.arraycopy(p.bytes(), 0, out, at + 8, p.bytes().length);
            at += 8 + p.bytes().length;
        }
        return out;
    }

    /** SHA-256 from the JDK (every Java SE platform has it). */
    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java runtime has no SHA-256", e);
        }
    }
}
