#!/usr/bin/env bash
# The hand measurement behind docs/weigh-model.md's session-16 paragraph on count_loop: a loop block
# that updates K guest registers besides its counter (addi s1..sK, each by 1; then addi s0, -1;
# bnez), run RUNS times as separate processes under plain qemu-riscv64, 10^8 iterations each.
# TCG keeps guest registers in the CPU state between blocks, so every iteration stores K+1 of them
# and the next one loads them again: a store-to-load chain through memory per register. Prints each
# K's per-run CPU time per iteration, sorted, so that a host whose per-process speed has two modes
# shows them (the median of a benchmark then depends on which mode its runs drew).
set -euo pipefail
RUNS=${RUNS:-15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
regs=(s1 s2 s3 s4 s5 s6)
for k in 0 1 2 3 4 6; do
  {
    printf '    .text\n    .globl _start\n_start:\n    li s0, 100000000\nloop:\n'
    for ((i = 0; i < k; i++)); do printf '    addi %s, %s, 1\n' "${regs[$i]}" "${regs[$i]}"; done
    printf '    addi s0, s0, -1\n    bnez s0, loop\n    li a0, 0\n    li a7, 93\n    ecall\n'
  } > "$work/k$k.S"
  riscv64-linux-gnu-gcc -nostdlib -static -march=rv64gc -o "$work/k$k" "$work/k$k.S"
  times=$(for ((r = 0; r < RUNS; r++)); do
    /usr/bin/time -f "%U %S" qemu-riscv64 "$work/k$k" 2>&1 >/dev/null | awk '{printf "%.2f\n", ($1 + $2) * 10}'
  done | sort -n | tr '\n' ' ')
  echo "K=$k registers besides the counter, ns per iteration by run: $times"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
