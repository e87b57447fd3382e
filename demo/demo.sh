#!/usr/bin/env bash
# The Splice tour, for now: machine code in and out of an editable listing, byte-exact.
# Run by `make demo` (which builds the jar and the RISC-V test programs first).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
splice=./splice
program=build/programs/rv64/loops
work=build/demo
rm -rf "$work"
mkdir -p "$work"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "1. The bundled example, tests/programs/loops.c, built static -O2 for RISC-V64 and run under QEMU"
[ -f "$program" ] || make -s programs
show qemu-riscv64 "$program" 1000 || echo "(exit status $?: main returns part of a checksum)"

step "2. Its functions (one listing per function; these are the ones loops.c defines)"
show $splice export "$program" --output-dir "$work/functions"
for f in main hot_loop classify fib apply_all twice square negate; do
    [ -f "$work/functions/$f.s" ] && sed -n 2p "$work/functions/$f.s"
done

step "3. The listing of hot_loop: exact instructions (c.* stays c.*), labels for branch targets"
show $splice disasm "$program" --function hot_loop -o "$work/hot_loop.s"
cat "$work/hot_loop.s"

step "4. The listing reassembles to the same bytes"
show $splice asm "$work/hot_loop.s" -o "$work/hot_loop.bin"
# The function's bytes as GNU objcopy and the symbol table give them, independently of Splice.
riscv64-linux-gnu-objcopy -O binary --only-section=.text "$program" "$work/text.bin"
read -r address size < <(riscv64-linux-gnu-nm -S "$program" | awk '$4 == "hot_loop" { print $1, $2 }')
text_address=$(riscv64-linux-gnu-readelf -SW "$program" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 2) }')
dd if="$work/text.bin" of="$work/hot_loop.expected" bs=1 skip=$((0x$address - 0x$text_address)) count=$((0x$size)) status=none
cmp "$work/hot_loop.bin" "$work/hot_loop.expected" && echo "hot_loop: $(stat -c %s "$work/hot_loop.bin") bytes, identical to the program's"

show $splice disasm "$program" --section .text -o "$work/text.s"
show $splice asm "$work/text.s" -o "$work/text.reassembled"
cmp "$work/text.reassembled" "$work/text.bin" && echo ".text: $(stat -c %s "$work/text.bin") bytes ($(grep -c '^        ' "$work/text.s") lines), identical"

step "5. Edit the listing: a c.nop after every instruction; the labels keep the loop right"
awk '{ print } /^        / { print "        c.nop" }' "$work/hot_loop.s" > "$work/hot_loop.edited.s"
show $splice asm "$work/hot_loop.edited.s" -o "$work/hot_loop.edited.bin"
echo "hot_loop grew from $(stat -c %s "$work/hot_loop.bin") to $(stat -c %s "$work/hot_loop.edited.bin") bytes; run both on the same data:"
show qemu-riscv64 build/programs/rv64/runcode "$work/hot_loop.bin" hot_loop 1000
show qemu-riscv64 build/programs/rv64/runcode "$work/hot_loop.edited.bin" hot_loop 1000
