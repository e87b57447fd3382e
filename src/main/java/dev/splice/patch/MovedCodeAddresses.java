package dev.splice.patch;

import dev.splice.elf.dwarf.AddressMap;
import dev.splice.patch.MovedFunction.Item;

/**
 * The moved code's address map as the DWARF rewriter asks for it: an instruction's new address
 * (code inserted before it counts as its own), the new end of the instruction before an address
 * (a return address: also at the function's end, before the jump back), and a moved function's
 * whole new copy for a range that reaches its end.
 */
final class MovedCodeAddresses implements AddressMap {
    /** The longest instruction of an input (a compressed or a 32-bit one). */
    private static final int MAX_INSTRUCTION = 4;

    private final MovedCode moved;
    private final String file;

    MovedCodeAddresses(MovedCode moved, String file) {
        this.moved = moved;
        this.file = file;
    }

    @Override
    public long start(long address) {
        MovedFunction m = moved.find(address);
        if (m == null) {
            return address;
        }
        if (address == m.function.address()) {
            return m.newStart;
        }
        Item i = m.instructions.get(address);
        if (i != null) {
            return i.fragment != null ? i.fragment.newAddress : i.newAddress;
        }
        Item within = containing(m, address);
        return within.newAddress + (address - within.oldAddress);
    }

    @Override
    public long end(long address) {
        MovedFunction m = moved.find(address - 1);
        if (m == null) {
            return address;
        }
        Item last = containing(m, address - 1);
        long into = address - last.oldAddress;
        return into < last.oldSize ? last.newAddress + into : last.newAddress + last.size();
    }

    @Override
    public void ranges(long from, long to, RangeSink out) {
        long at = from;
        while (at < to) {
            MovedFunction m = moved.find(at);
            if (m == null) {
                MovedFunction next = moved.after(at);
                long end = next == null ? to : Math.min(to, next.function.address());
                out.range(at, end);
                at = end;
            } else {
                long end = Math.min(to, m.function.endAddress());
                // To the function's end: the whole copy, with the jump back after it.
                out.range(start(at), end == m.function.endAddress() ? m.newStart + m.newSize : end(end));
                at = end;
            }
        }
    }

    @Override
    public boolean moves(long from, long to) {
        if (from >= to) {
            return false;
        }
        if (moved.find(from) != null) {
            return true;
        }
        MovedFunction next = moved.after(from);
        return next != null && next.function.address() < to;
    }

    @Override
    public long nextBoundary(long address) {
        MovedFunction m = moved.find(address);
        if (m != null) {
            return m.function.endAddress();
        }
        MovedFunction next = moved.after(address);
        return next == null ? Long.MAX_VALUE : next.function.address();
    }

    /** The original instruction of {@code m} whose bytes hold {@code address}. */
    private Item containing(MovedFunction m, long address) {
        for (int back = 1; back < MAX_INSTRUCTION; back++) {
            Item i = m.instructions.get(address - back);
            if (i != null) {
                if (back < i.oldSize) {
                    return i;
                }
                break;
            }
        }
        Item i = m.instructions.get(address);
        if (i != null) {
            return i;
        }
        throw new PatchException(PatchException.Reason.DEBUG_INFO, file + ": debug information names 0x" + Long.toHexString(address)
                + " inside function '" + m.function.name() + "', which is no instruction of it");
    }
}
