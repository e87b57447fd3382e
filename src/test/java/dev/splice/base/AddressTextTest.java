package dev.splice.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AddressTextTest {
    @Test
    void numbersAreHexWithPrefixOrLetterAndDecimalOtherwise() {
        assertEquals(0x10a2cL, AddressText.number("0x10a2c"));
        assertEquals(0x10a2cL, AddressText.number("10a2c"), "bare hex as objdump prints it");
        assertEquals(0x10A2CL, AddressText.number("10A2C"));
        assertEquals(10420L, AddressText.number("10420"), "digits alone are decimal, as objdump's options read them");
        assertEquals(-1L, AddressText.number("0xffffffffffffffff"), "unsigned 64-bit");
        assertThrows(IllegalArgumentException.class, () -> AddressText.number("0x1ffffffffffffffff"));
        assertThrows(IllegalArgumentException.class, () -> AddressText.number("18446744073709551616"));
        assertThrows(IllegalArgumentException.class, () -> AddressText.number("12zz"));
        assertThrows(IllegalArgumentException.class, () -> AddressText.number(""));
    }

    @Test
    void symbolsTakeAnOffsetInAnyNumberForm() {
        assertEquals(new AddressText.Parsed("main", 0), AddressText.parse("main"));
        assertEquals(new AddressText.Parsed("main", 0x1e), AddressText.parse("main+0x1e"));
        assertEquals(new AddressText.Parsed("main", 30), AddressText.parse("main+30"));
        assertEquals(new AddressText.Parsed("_ZN1a1bEv.cold", 0xc), AddressText.parse("_ZN1a1bEv.cold+0xc"));
        assertTrue(AddressText.parse("0x100").isNumber());
        assertEquals("'+4': no symbol before '+'", assertThrows(IllegalArgumentException.class, () -> AddressText.parse("+4")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> AddressText.parse("main+"));
        assertThrows(IllegalArgumentException.class, () -> AddressText.parse("  "));
    }
}
