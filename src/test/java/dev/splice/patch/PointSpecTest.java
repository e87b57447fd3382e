package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The spec syntax: every kind, numbers, globs and regular expressions, and errors that name the spec and column. */
class PointSpecTest {
    @Test
    void parsesEveryKind() {
        assertEquals(new PointSpec.Address("0x10702", 0x10702), PointSpec.parse("0x10702"));
        assertEquals(new PointSpec.Address("67330", 67330), PointSpec.parse("67330"));
        assertEquals(new PointSpec.Address("1a702", 0x1a702), PointSpec.parse("1a702"), "bare hex as objdump prints it");
        assertEquals(new PointSpec.SymbolOffset("main+0x1a", "main", 0x1a), PointSpec.parse("main+0x1a"));
        assertEquals(new PointSpec.SymbolOffset("main+26", "main", 26), PointSpec.parse("main+26"));
        assertEquals(new PointSpec.SymbolOffset("hot_loop", "hot_loop", 0), PointSpec.parse("hot_loop"));
        assertEquals(new PointSpec.SymbolOffset(".L1070c+2", ".L1070c", 2), PointSpec.parse(".L1070c+2"));
        for (PointKind kind : PointKind.values()) {
            if (kind.isExplicit()) {
                continue;
            }
            String text = kind.word() + ":hot_*" + (kind == PointKind.INSN ? ":c\\.add.*" : "");
            PointSpec.Patterned p = (PointSpec.Patterned) PointSpec.parse(text);
            assertEquals(kind, p.kind());
            assertEquals(text, p.text());
            assertTrue(p.functions().matcher("hot_loop").matches());
            assertFalse(p.functions().matcher("a_hot_loop").matches(), "the whole name");
            if (kind == PointKind.INSN) {
                assertTrue(p.mnemonics().matcher("c.addi").matches());
                assertFalse(p.mnemonics().matcher("addi").matches());
            } else {
                assertNull(p.mnemonics());
            }
        }
    }

    @Test
    void globsAreShellGlobs() {
        assertTrue(glob("*").matcher("").matches());
        assertTrue(glob("f?b").matcher("fib").matches());
        assertFalse(glob("f?b").matcher("fiib").matches());
        assertTrue(glob("[a-c]x").matcher("bx").matches());
        assertFalse(glob("[!a-c]x").matcher("bx").matches());
        assertTrue(glob("[!a-c]x").matcher("dx").matches());
        assertTrue(glob("a.b").matcher("a.b").matches());
        assertFalse(glob("a.b").matcher("axb").matches(), "a dot is a dot");
        assertTrue(glob("a\\*").matcher("a*").matches());
        assertFalse(glob("a\\*").matcher("ab").matches(), "a quoted star is a star");
        assertTrue(glob("x[.$]y").matcher("x$y").matches());
        assertTrue(glob("_Z*3fooi").matcher("_ZN1A3fooi").matches());
        assertTrue(glob("op+").matcher("op+").matches(), "regex characters stand for themselves");
    }

    private static java.util.regex.Pattern glob(String g) {
        return ((PointSpec.Patterned) PointSpec.parse("entry:" + g)).functions();
    }

    @Test
    void badSpecsNameTheSpecAndTheColumn() {
        bad("", 1, "empty");
        bad("0x1g", 1, "'0x1g' is no number");
        bad("12xyz", 1, "is no number");
        bad("main+0xzz", 6, "'0xzz' is no number");
        bad("+4", 1, "no symbol before '+'");
        bad("blocks:main", 1, "unknown point kind 'blocks'");
        bad("address:main", 1, "unknown point kind 'address'");
        bad("entry:", 7, "empty function glob");
        bad("loop:ab[c", 8, "'[' opens a class");
        bad("exit:x\\", 7, "a backslash ends the glob");
        bad("insn:*", 7, "insn needs a mnemonic pattern");
        bad("insn:*:", 8, "empty mnemonic pattern");
        bad("insn:main:c.(add", 17, "bad regular expression"); // Java reports an unclosed group at the pattern's end
        bad("insn::add", 6, "empty function glob");
    }

    private static void bad(String text, int column, String problem) {
        PointSpecException e = assertThrows(PointSpecException.class, () -> PointSpec.parse(text), text);
        assertTrue(e.getMessage().startsWith("point spec '" + text + "', column "), e.getMessage());
        assertTrue(e.problem().contains(problem), text + ": " + e.problem());
        assertEquals(column, e.column(), text);
    }
}
