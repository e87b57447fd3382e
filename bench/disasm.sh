#!/usr/bin/env bash
# Disassembly throughput: `splice disasm` against `riscv64-linux-gnu-objdump -d` and
# `llvm-objdump-22 -d` on the same input, several runs each (best run counts), printing
# instructions per second and the ratios, by wall clock and per CPU second (user + system, the
# fairer figure when other processes share the machine; the load average is printed too). Every
# tool writes its full listing to standard output, redirected to /dev/null.
# Not a test: see docs/listing.md for the numbers.
#
# A second input, build/bench/big-vector, is the .text of the clang-22 -O3 -march=rv64gcv program
# (build/programs/rv64v/vloops: vectorized loops, static glibc) repeated the same way and assembled
# for rv64gcv, so that both objdumps decode its vector instructions; Splice and llvm-objdump-22
# are timed on it too.
#
# The input, build/bench/big, is one static RISC-V executable whose .text holds the compiled
# code (static glibc and libstdc++) of the test programs, repeated until it passes 4 MiB: real
# compiler output, assembled with .incbin, built here in a few seconds.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
runs=${RUNS:-3}
min_bytes=$((4 * 1024 * 1024 + 512 * 1024))
out=build/bench
big=$out/big

build_input() {
    mkdir -p "$out/parts"
    local parts=() p
    for p in exceptions exceptions.norvc loops loops.norvc runcode runcode.norvc; do
        [ -f "build/programs/rv64/$p" ] || make -s programs >&2
        riscv64-linux-gnu-objcopy -O binary --only-section=.text "build/programs/rv64/$p" "$out/parts/$p.bin"
        parts+=("$out/parts/$p.bin")
    done
    local total=0 copy=0 f
    {
        echo '    .section .text, "ax"'
        echo '    .globl _start'
        echo '_start:'
        while [ "$total" -lt "$min_bytes" ]; do
            for f in "${parts[@]}"; do
                copy=$((copy + 1))
                echo "    .balign 4"
                echo "    .type part$copy, @function"
                echo "part$copy:"
                echo "    .incbin \"$root/$f\""
                echo "    .size part$copy, . - part$copy"
                total=$((total + $(stat -c %s "$f")))
            done
        done
    } > "$out/big.S"
    riscv64-linux-gnu-gcc -nostdlib -static -Wl,--no-relax -o "$big" "$out/big.S"
}

if [ ! -f "$big" ] || [ -n "$(find build/programs/rv64 -newer "$big" -print -quit)" ]; then
    build_input
fi
[ -f target/splice-cli.jar ] || make -s jar >&2

code_bytes=$((0x$(riscv64-linux-gnu-readelf -SW "$big" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 4) }')))
instructions=$(llvm-objdump-22 -d --no-show-raw-insn "$big" | grep -cE '^ +[0-9a-f]+:')
echo "input: $big, .text $code_bytes bytes ($(awk -v b="$code_bytes" 'BEGIN { printf "%.2f", b / 1048576 }') MiB), $instructions instructions (llvm-objdump's count)"

# Best of $runs runs: prints "wall cpu" in seconds (cpu = user + system, which is what the
# tool itself costs when other processes share the machine).
best_time() {
    local best_wall="" best_cpu="" line wall cpu i
    for i in $(seq "$runs"); do
        line=$( { TIMEFORMAT='%R %U %S'; time "$@" > /dev/null; } 2>&1 | tail -1)
        wall=$(echo "$line" | awk '{ print $1 }')
        cpu=$(echo "$line" | awk '{ printf "%.3f", $2 + $3 }')
        if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then best_wall=$wall; fi
        if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then best_cpu=$cpu; fi
    done
    echo "$best_wall $best_cpu"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
read -r w_splice c_splice < <(best_time ./splice disasm "$big")
# The launcher runs C1 only with the serial collector; for comparison, the full tiered JIT (C2).
tiered_opts="-XX:TieredStopAtLevel=4"
read -r w_splice1 c_splice1 < <(SPLICE_JAVA_OPTS="$tiered_opts" best_time ./splice disasm "$big")
read -r w_gnu c_gnu < <(best_time riscv64-linux-gnu-objdump -d "$big")
read -r w_llvm c_llvm < <(best_time llvm-objdump-22 -d "$big")

rate() { awk -v n="$instructions" -v t="$1" 'BEGIN { printf "%.2f", n / t / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "best of $runs runs; M instr/s = million instructions per second (wall clock, and per CPU second)"
printf '%-30s %8s %8s %10s %10s\n' "" "wall s" "cpu s" "M instr/s" "per cpu s"
printf '%-30s %8s %8s %10s %10s\n' "./splice disasm" "$w_splice" "$c_splice" "$(rate "$w_splice")" "$(rate "$c_splice")"
printf '%-30s %8s %8s %10s %10s\n' "./splice disasm (tiered C2)" "$w_splice1" "$c_splice1" "$(rate "$w_splice1")" "$(rate "$c_splice1")"
printf '%-30s %8s %8s %10s %10s\n' "riscv64-linux-gnu-objdump -d" "$w_gnu" "$c_gnu" "$(rate "$w_gnu")" "$(rate "$c_gnu")"
printf '%-30s %8s %8s %10s %10s\n' "llvm-objdump-22 -d" "$w_llvm" "$c_llvm" "$(rate "$w_llvm")" "$(rate "$c_llvm")"
echo "splice vs llvm-objdump-22: $(ratio "$w_splice" "$w_llvm")x wall-clock throughput, $(ratio "$c_splice" "$c_llvm")x per CPU second (issue 14 target: >= 2.5x wall-clock)"
echo "splice (tiered C2) vs llvm-objdump-22:    $(ratio "$w_splice1" "$w_llvm")x wall-clock, $(ratio "$c_splice1" "$c_llvm")x per CPU second"
echo "splice vs GNU objdump:     $(ratio "$w_splice" "$w_gnu")x wall-clock throughput, $(ratio "$c_splice" "$c_gnu")x per CPU second"

# ---- the vectorized input
vbig=$out/big-vector
vsrc=build/programs/rv64v/vloops
[ -f "$vsrc" ] || make -s programs >&2
if [ ! -f "$vbig" ] || [ "$vsrc" -nt "$vbig" ]; then
    mkdir -p "$out/parts"
    llvm-objcopy-22 -O binary --only-section=.text "$vsrc" "$out/parts/vloops.bin"
    vtotal=0
    vcopy=0
    {
        echo '    .section .text, "ax"'
        echo '    .globl _start'
        echo '_start:'
        while [ "$vtotal" -lt "$min_bytes" ]; do
            vcopy=$((vcopy + 1))
            echo "    .balign 4"
            echo "part$vcopy:"
            echo "    .incbin \"$root/$out/parts/vloops.bin\""
            vtotal=$((vtotal + $(stat -c %s "$out/parts/vloops.bin")))
        done
    } > "$out/big-vector.S"
    riscv64-linux-gnu-gcc -march=rv64gcv -nostdlib -static -Wl,--no-relax -o "$vbig" "$out/big-vector.S"
fi
vinstructions=$(llvm-objdump-22 -d --mattr=+v --no-show-raw-insn "$vbig" | grep -cE '^ +[0-9a-f]+:')
vvector=$(llvm-objdump-22 -d --mattr=+v --no-show-raw-insn "$vbig" | grep -cE '^ +[0-9a-f]+:\s+v')
echo
echo "vectorized input: $vbig, $vinstructions instructions, $vvector of them vector instructions (llvm-objdump's count)"
read -r vw_splice vc_splice < <(best_time ./splice disasm "$vbig")
read -r vw_llvm vc_llvm < <(best_time llvm-objdump-22 -d --mattr=+v "$vbig")
vrate() { awk -v n="$vinstructions" -v t="$1" 'BEGIN { printf "%.2f", n / t / 1e6 }'; }
printf '%-30s %8s %8s %10s %10s\n' "./splice disasm" "$vw_splice" "$vc_splice" "$(vrate "$vw_splice")" "$(vrate "$vc_splice")"
printf '%-30s %8s %8s %10s %10s\n' "llvm-objdump-22 -d --mattr=+v" "$vw_llvm" "$vc_llvm" "$(vrate "$vw_llvm")" "$(vrate "$vc_llvm")"
echo "splice vs llvm-objdump-22 (vectorized): $(ratio "$vw_splice" "$vw_llvm")x wall-clock, $(ratio "$vc_splice" "$vc_llvm")x per CPU second"
