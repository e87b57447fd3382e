#!/usr/bin/env bash
# The Splice tour: a listing that reassembles byte for byte, cycle probes inserted around a hot
# loop of a linked executable, the rewritten program run under QEMU next to the original, and a
# profile of the rewritten program translated back to the original's coordinates with BAT.
# Run by `make demo` (which builds the jar, the RISC-V test programs and the QEMU plugin first).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
splice=./splice
program=build/programs/rv64/loops.relocs   # tests/programs/loops.c, static -O2, --emit-relocs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Bold step titles on a terminal only: a log of `make demo` holds no terminal codes.
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
show() { local line="$*"; printf '$ %s\n' "${line//$work/\$work}"; "$@"; }   # $work: the temporary directory
fail() { echo "demo: $*" >&2; exit 1; }
[ -f "$program" ] || make -s programs

# Fields of a `splice disasm --format jsonl` line, as "address size target" (target -1 if none).
fields() { awk '
    function field(name,   v) { v = $0; if (index(v, "\"" name "\":") == 0) return -1
        sub(".*\"" name "\":", "", v); sub(/[,}].*/, "", v); return v + 0 }
    { print field("address"), field("size"), field("target") }'; }
hex() { printf '0x%x' "$1"; }

step "1. The bundled example (tests/programs/loops.c), its functions and the listing of hot_loop"
show $splice info "$program" | sed -n '1,6p'
show $splice disasm "$program" --function main --function hot_loop --function classify \
    --function fib --function apply_all -o "$work/functions.s"
grep '^\.function' "$work/functions.s"
show $splice disasm "$program" --function hot_loop -o "$work/hot_loop.s"
cat "$work/hot_loop.s"

step "2. The listing reassembles to the function's bytes (cut out with GNU objcopy and nm)"
show $splice asm "$work/hot_loop.s" -o "$work/hot_loop.bin"
riscv64-linux-gnu-objcopy -O binary --only-section=.text "$program" "$work/text.bin"
read -r address size < <(riscv64-linux-gnu-nm -S "$program" | awk '$4 == "hot_loop" { print $1, $2 }')
text_address=$(riscv64-linux-gnu-readelf -SW "$program" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 2) }')
dd if="$work/text.bin" of="$work/hot_loop.expected" bs=1 skip=$((0x$address - 0x$text_address)) \
    count=$((0x$size)) status=none
cmp "$work/hot_loop.bin" "$work/hot_loop.expected"
echo "hot_loop: $(stat -c %s "$work/hot_loop.bin") bytes, identical"

step "3. Cycle probes around the loop: begin at the loop head (chosen by pattern), end at the loop exit"
# `loop:hot_loop` selects every loop head of hot_loop (targets of back edges in its CFG); the begin
# probe goes there with --insert-branch-target original (falling in runs the probe, the back edge
# skips it). The end probe goes at the instruction after the back edge, read from the JSON listing.
show $splice points "$program" loop:hot_loop
begin=$($splice points "$program" loop:hot_loop --json | sed -n 's/.*"address" : "\(0x[0-9a-f]*\)".*/\1/p')
read -r branch branch_size head < <($splice disasm "$program" --function hot_loop --format jsonl \
    | fields | awk '$3 >= 0 && $3 < $1 { print; exit }')
[ -n "${head:-}" ] || fail "no loop found in hot_loop"
[ "$(hex "$head")" = "$begin" ] || fail "loop:hot_loop selected $begin, the back edge goes to $(hex "$head")"
end=$(hex $((branch + branch_size)))
echo "back edge $(hex "$branch") -> $begin: loop head $begin (as loop:hot_loop says), loop exit $end"
show $splice patch "$program" --at loop:hot_loop examples/cycle-probe-begin.s \
    --insert "$end" examples/cycle-probe-end-write.s --insert-branch-target original \
    -o "$work/loops.probed"
show $splice disasm "$work/loops.probed" --function hot_loop -o "$work/hot_loop.probed.s"
sed -n '2,$p' "$work/hot_loop.probed.s" | awk '/sd t1, 16\(sp\)/ { print "        ...    (cycle-probe-end-write.s: rdcycle, subtract, write(2, delta, 8), restore)"; skip = 1 }
    /c.jr ra/ { skip = 0 } !skip'

step "4. Original and rewritten under QEMU: same output; the probe's reading grows with n"
for n in 1000 100000; do
    status=0; $splice run "$program" "$n" > "$work/original.out" || status=$?
    probed=0; $splice run "$work/loops.probed" "$n" > "$work/probed.out" 2> "$work/probe.bin" || probed=$?
    cmp -s "$work/original.out" "$work/probed.out" || fail "outputs differ for n=$n"
    [ "$status" = "$probed" ] || fail "exit status $status vs $probed for n=$n"
    [ "$(stat -c %s "$work/probe.bin")" = 8 ] || fail "expected 8 probe bytes on stderr for n=$n"
    printf 'n=%-6s both print: %s (exit status %s)\n' "$n" "$(cat "$work/original.out")" "$status"
    cycles=$(od -An -t d8 "$work/probe.bin" | tr -d ' ')
    printf '         hot_loop took %s cycles\n' "$cycles"
    [ "$cycles" -gt "${previous:-0}" ] || fail "the reading did not grow with n"
    previous=$cycles
done

step "5. Exact instruction counts (QEMU plugin): the loop itself runs the same instructions"
count() { # BINARY N: instructions executed. Each runs as $work/run/loops: the C library's start-up
          # work depends on argv's size. The exit status is the program's, hence || true.
    mkdir -p "$work/run"; cp "$1" "$work/run/loops"
    "$splice" run --count "$work/run/loops" "$2" > /dev/null 2> "$work/count.err" || true
    grep -ao '[0-9]* instructions executed' "$work/count.err" | cut -d' ' -f1
}
o1=$(count "$program" 1000); p1=$(count "$work/loops.probed" 1000)
o2=$(count "$program" 2000); p2=$(count "$work/loops.probed" 2000)
echo "n=1000: original $o1, rewritten $p1 instructions ($((p1 - o1)) more)"
echo "n=2000: original $o2, rewritten $p2 instructions ($((p2 - o2)) more)"
echo "1000 more iterations: original +$((o2 - o1)), rewritten +$((p2 - p1)), exactly the same"
[ $((o2 - o1)) = $((p2 - p1)) ] || fail "the probes changed the loop's instruction count"
added=$(( $(grep -c '^        ' "$work/hot_loop.probed.s") - $(grep -c '^        ' "$work/hot_loop.s") ))
echo "(the constant difference: the probes' $added instructions, run once, and start-up code whose"
echo " work depends on the rewritten binary's memory layout)"
echo "the policy, exactly: a one-instruction fragment at the loop head, with and without"
echo "--insert-branch-target original, differs by one instruction per back edge (n - 1):"
echo "nop" > "$work/nop.s"
$splice patch "$program" --insert "$begin" "$work/nop.s" -o "$work/loops.nop-inserted"
$splice patch "$program" --insert "$begin" "$work/nop.s" --insert-branch-target original -o "$work/loops.nop-original"
i=$(count "$work/loops.nop-inserted" 1000); g=$(count "$work/loops.nop-original" 1000)
echo "n=1000: inserted $i, original $g: $((i - g)) = 999"
[ $((i - g)) = 999 ] || fail "expected 999 more instructions"

step "6. A profile of the rewritten binary, translated back to the original's coordinates (BAT)"
# The moved hot_loop's back edge, taken 999 times, in the rewritten binary's addresses, as a
# pre-aggregated (perf2bolt --pa) record: B from to count mispredictions (hexadecimal).
read -r new_branch _ new_head < <($splice disasm "$work/loops.probed" --function hot_loop --format jsonl \
    | fields | awk '$3 >= 0 && $3 < $1 { print; exit }')
printf 'B %x %x 999 0\n' "$new_branch" "$new_head" > "$work/profile.pa"
echo "rewritten hot_loop: back edge $(hex "$new_branch") -> $(hex "$new_head"); profile.pa:"
sed 's/^/    /' "$work/profile.pa"
show $splice bat translate --pa "$work/profile.pa" "$work/loops.probed" -o "$work/profile.fdata"
echo "\$work/profile.fdata (from: function offset, to: function offset, mispredictions, count):"
sed 's/^/    /' "$work/profile.fdata"
echo "the same branch on the original ($(hex "$branch") -> $begin), translated by perf2bolt-22:"
printf 'B %x %x 999 0\n' "$branch" "$head" > "$work/original.pa"
perf2bolt-22 --pa -p "$work/original.pa" -o "$work/original.fdata" "$program" > /dev/null 2>&1 \
    || fail "perf2bolt-22 failed"
sed 's/^/    /' "$work/original.fdata"
grep -v '^boltedcollection$' "$work/profile.fdata" | cmp -s - "$work/original.fdata" \
    || fail "the translated profile differs from perf2bolt's on the original"
echo "identical: the profile of the rewritten binary lands on the original's hot_loop offsets"

step "7. A counter at every basic block of hot_loop, read back after the run"
# examples/block-counter.s adds 1 to its own 8-byte slot ({counter}); the counters live in a new
# read-write segment and the runtime writes them to the counter file when the program exits.
show $splice patch "$program" --at block:hot_loop examples/block-counter.s \
    --counter-file "$work/blocks.counters" -o "$work/loops.blocks"
status=0; $splice run "$work/loops.blocks" 1000 > "$work/blocks.out" || status=$?
cmp -s "$work/blocks.out" <($splice run "$program" 1000 || true) || fail "the counted program printed something else"
mapfile -t counts < <(od -An -t d8 -v "$work/blocks.counters" | tr -s ' ' '\n' | grep -v '^$')
mapfile -t blocks < <($splice points "$program" block:hot_loop | awk '{ print $1, $2 }')
[ "${#counts[@]}" = "${#blocks[@]}" ] || fail "${#counts[@]} counters for ${#blocks[@]} blocks"
echo "n=1000 (exit status $status, output as the original's); counter file: ${#counts[@]} counters"
for i in "${!blocks[@]}"; do printf '    %-24s %8s\n' "${blocks[$i]}" "${counts[$i]}"; done
for i in "${!blocks[@]}"; do
    [ "${blocks[$i]%% *}" = "$begin" ] && { [ "${counts[$i]}" = 1000 ] || fail "loop head counted ${counts[$i]}, not 1000"; }
done
echo "the loop head ran 1000 times, the entry once"

step "8. splice instrument -> run -> fdata -> llvm-bolt-22: a BOLT profile for RISC-V without LBR"
# Edge counters on the complement of a spanning tree of every function's CFG; the run writes raw
# counters; 'profile convert' recovers every edge count and writes fdata in the input's addresses.
show $splice instrument "$program" -o "$work/loops.inst" --profile-file "$work/prof.counters"
$splice run "$work/loops.inst" 100000 > "$work/inst.out" || true
$splice run "$program" 100000 > "$work/orig.out" || true
cmp -s "$work/inst.out" "$work/orig.out" || fail "the instrumented program printed something else"
show $splice profile convert "$work/loops.inst" "$work/prof.counters" -o "$work/prof.fdata"
echo "\$work/prof.fdata: $(wc -l < "$work/prof.fdata") lines, e.g.:"
grep ' hot_loop ' "$work/prof.fdata" | head -3 | sed 's/^/    /'
echo "$ llvm-bolt-22 $program --data \$work/prof.fdata --reorder-blocks=ext-tsp --reorder-functions=cdsort --dyno-stats --enable-bat -o \$work/loops.bolt"
llvm-bolt-22 "$program" --data "$work/prof.fdata" --reorder-blocks=ext-tsp --reorder-functions=cdsort \
    --dyno-stats --enable-bat -o "$work/loops.bolt" > "$work/bolt.log" 2>&1 || { cat "$work/bolt.log"; fail "llvm-bolt-22 failed"; }
grep -E 'have (invalid|non-empty)|taken branches' "$work/bolt.log" | sed 's/^/    /'
if grep -q 'invalid (possibly stale) profile' "$work/bolt.log"; then fail "llvm-bolt-22 found stale profiles"; fi
read -r before after < <(awk '/: taken branches/ { v[n++] = $1 } END { print v[0], v[1] }' "$work/bolt.log")
[ "$after" -lt "$before" ] || fail "BOLT's layout did not reduce taken branches ($before -> $after)"
$splice run "$work/loops.bolt" 100000 > "$work/bolt.out" || true
cmp -s "$work/bolt.out" "$work/orig.out" || fail "the BOLTed program printed something else"
echo "taken branches $before -> $after; the BOLTed program prints what the original prints"

step "9. Instruction weights: a quick campaign of hot_loop's instructions, the model, the map onto a run"
# Each context runs a probe kernel against a same-shape baseline under qemu-riscv64 (6 runs x 4
# rounds here; the formal profile runs every context 12 x 10); the model publishes the marginal cost
# per instruction with a simultaneous 95% band and quality gates; the map prices a program's catalog.
contexts='c.lw.hot-load,andi.dependency,c.addiw.dependency,mul.dependency,c.srai.dependency,c.addi.dependency,c.add.dependency,bne.taken'
show $splice weigh measure --profile quick --runs 6 --contexts "$contexts" -o "$work/campaign"
show $splice weigh model "$work/campaign" -o "$work/weights"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; printf "    %-20s %11s  %-21s %s\n", "context", "weight", "95% band (ns)", "quality"; next }
         { w = $c["weight_ns"] == "" ? "unpublished" : sprintf("%6.3f ns", $c["weight_ns"])
           printf "    %-20s %11s  [%6.3f, %6.3f]      %s\n", $c["context"], w, $c["ci_low_ns"], $c["ci_high_ns"], $c["quality"] }' \
    "$work/weights/weights.csv"
echo "\$ $splice weigh catalog -o \$work/catalog.json -- $program 1000 > /dev/null"
status=0; $splice weigh catalog -o "$work/catalog.json" -- "$program" 1000 > /dev/null || status=$?
[ "$status" = "$(status=0; $splice run "$program" 1000 > /dev/null || status=$?; echo $status)" ] || fail "weigh catalog ended with status $status, not the program's"
show $splice weigh map "$work/weights/weights.json" "$work/catalog.json" -o "$work/map"
echo "hot_loop's classes in the run of loops 1000 (executed count, status, weight):"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         $c["key"] ~ /^(c\.lw|andi|c\.addiw|mul|c\.srai|c\.addi|c\.add|bne)$/ {
             printf "    %-10s %8s  %-17s %s\n", $c["key"], $c["executed"], $c["status"], ($c["measured_ns"] == "" ? "-" : sprintf("%.3f ns", $c["measured_ns"])) }' \
    "$work/map/mapping.csv"
