package dev.splice.patch;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

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

    /** SHA-256 from the JDK (every Java SE platform has it). */
    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java runtime has no SHA-256", e);
        }
    }
}
