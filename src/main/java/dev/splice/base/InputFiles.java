package dev.splice.base;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The one way a command opens a file argument. The type is checked before the file is opened, so
 * a device ({@code /dev/zero}) is refused instead of read forever and a FIFO with no writer is
 * refused instead of blocking in {@code open}; the size is checked against a limit before anything
 * is allocated. Streams ({@link #openStream}) also accept the descriptors a shell has already
 * opened ({@code /dev/stdin}, {@code /dev/fd/N}), where reading a pipe is the point; their
 * consumers bound what they keep (a profile line, for instance).
 */
public final class InputFiles {
    /** The largest file read into memory whole: 1 GiB (Java arrays stop at 2 GiB; no input of Splice needs more). */
    public static final long SIZE_LIMIT = 1L << 30;

    private InputFiles() {}

    /**
     * Refuses a path that is missing, a directory, or not a regular file, without opening it.
     *
     * @param path the file argument
     * @return its size in bytes
     * @throws BadInputException naming the path and the reason
     */
    public static long requireRegular(Path path) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (IOException e) {
            throw unreadable(path, e);
        }
        if (attributes.isDirectory()) {
            throw new BadInputException(path + ": is a directory, not a file");
        }
        if (!attributes.isRegularFile()) {
            throw new BadInputException(path + ": not a regular file (a device, FIFO or socket): Splice reads files");
        }
        return attributes.size();
    }

    /**
     * Reads a whole regular file of at most {@link #SIZE_LIMIT} bytes.
     *
     * @param path the file argument
     * @return its bytes
     * @throws BadInputException if it is not a regular file, is larger than the limit or cannot be read
     */
    public static byte[] readBytes(Path path) {
        return readBytes(path, SIZE_LIMIT);
    }

    /**
     * Reads a whole regular file of at most {@code limit} bytes.
     *
     * @param path the file argument
     * @param limit the largest size accepted
     * @return its bytes
     * @throws BadInputException if it is not a regular file, is larger than the limit or cannot be read
     */
    public static byte[] readBytes(Path path, long limit) {
        long size = requireRegular(path);
        if (size > limit) {
            throw tooLarge(path, size, limit);
        }
        try (InputStream in = Files.newInputStream(path)) {
            // Read at most one byte past the limit: a file that grows while it is read is refused too.
            byte[] bytes = in.readNBytes((int) Math.min(limit + 1, Integer.MAX_VALUE - 16));
            if (bytes.length > limit) {
                throw tooLarge(path, bytes.length, limit);
            }
            return bytes;
        } catch (IOException e) {
            throw unreadable(path, e);
        }
    }

    /**
     * Reads a whole regular file as UTF-8 text (at most {@link #SIZE_LIMIT} bytes).
     *
     * @param path the file argument
     * @return its text
     * @throws BadInputException if it is not a regular file, is too large, cannot be read or is not UTF-8
     *     (the message gives the byte offset of the first bad byte)
     */
    public static String readString(Path path) {
        byte[] bytes = readBytes(path);
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return decoder.decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new BadInputException(path + ": offset 0x" + Long.toHexString(firstBadUtf8(bytes))
                    + ": not UTF-8 text", e);
        }
    }

    /**
     * Opens a file argument for streaming: a regular file, or a descriptor the shell has already
     * opened ({@code -}, {@code /dev/stdin}, {@code /dev/fd/N}, {@code /proc/self/fd/N}: a pipe is
     * read as it comes). Devices and named FIFOs are refused before they are opened.
     *
     * @param path the file argument
     * @return an open stream (the caller closes it)
     * @throws BadInputException if the path is refused or cannot be opened
     */
    public static InputStream openStream(Path path) {
        if (path.toString().equals("-")) {
            return System.in;
        }
        if (!isOpenDescriptor(path)) {
            requireRegular(path);
        }
        try {
            return Files.newInputStream(path);
        } catch (IOException e) {
            throw unreadable(path, e);
        }
    }

    /**
     * Whether the path names a descriptor this process already holds open, read as a stream.
     *
     * @param path a file argument
     * @return true for {@code /dev/stdin}, {@code /dev/fd/N} and {@code /proc/self/fd/N}
     */
    public static boolean isOpenDescriptor(Path path) {
        String s = path.toString();
        return s.equals("/dev/stdin") || s.matches("/dev/fd/[0-9]+|/proc/self/fd/[0-9]+");
    }

    private static BadInputException tooLarge(Path path, long size, long limit) {
        return new BadInputException(path + ": file of " + size + " bytes is larger than the limit of " + limit + " bytes");
    }

    private static int firstBadUtf8(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(Math.max(16, bytes.length));
        decoder.decode(in, out, true);
        return in.position();
    }

    /**
     * The refusal for a file that could not be read: missing, not permitted, or another I/O error.
     *
     * @param file the file, as the message should name it
     * @param e what reading it threw
     * @return the exception to throw
     */
    public static BadInputException unreadable(Object file, IOException e) {
        if (e instanceof NoSuchFileException) {
            return new BadInputException(file + ": no such file", e);
        }
        if (e instanceof AccessDeniedException) {
            return new BadInputException(file + ": permission denied", e);
        }
        return new BadInputException(file + ": cannot read: " + e.getMessage(), e);
    }
}
