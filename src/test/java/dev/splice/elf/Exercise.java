package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.splice.base.BadInputException;
import java.util.regex.Pattern;

/** Parses bytes and touches everything the reader offers; returns the refusal, or null when the bytes were accepted. */
final class Exercise {
    private static final Pattern OFFSET = Pattern.compile("offset 0x[0-9a-f]+: ");

    private Exercise() {}

    static ElfFormatException run(byte[] bytes, String name) {
        try {
            ElfFile elf = ElfFile.parse(bytes, name);
            for (Section s : elf.sections()) {
                elf.contents(s);
                elf.buffer(s);
                elf.sectionContaining(s.address());
            }
            elf.symbols();
            elf.dynamicSymbols();
            for (Function f : elf.functions()) {
                elf.functionContaining(f.address());
            }
            elf.notes();
            elf.buildId();
            elf.relocations();
            elf.toBytes();
            elf.edit().toBytes();
            return null;
        } catch (ElfFormatException e) {
            assertTrue(e.getMessage().startsWith(name + ": "), e.getMessage());
            assertTrue(OFFSET.matcher(e.getMessage()).find(), e.getMessage());
            assertTrue(e.offset() >= 0 && e.offset() <= bytes.length, e.getMessage());
            assertTrue(!e.reason().isBlank());
            return e;
        } catch (BadInputException e) {
            fail("a format error must be an ElfFormatException with an offset: " + e.getMessage());
            return null;
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            throw new AssertionError("unexpected " + e + " for " + name, e);
        }
    }
}
