#!/usr/bin/env bash
# The hand measurement behind docs/weigh-model.md's count_loop paragraph (session 9): loops of K
# independent addi besides the counter's addi/bnez, CPU time per iteration under plain qemu-riscv64
# (difference of 10^7 and 5 x 10^7 iterations, median of 7). chase.c and window.c (the memory
# paragraphs) build with `riscv64-linux-gnu-gcc -O2 -static`; cpu.py RUNS CMD... prints the medians.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
regs=(s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 s11 t4)
for k in 0 1 2 3 6 12; do
  {
    printf '    .text\n    .globl _start\n_start:\n    ld t0, 16(sp)\n    li s0, 0\n    li t3, 10\n'
    printf 'parse:\n    lbu t1, 0(t0)\n    beqz t1, loop\n    addi t1, t1, -48\n    mul s0, s0, t3\n'
    printf '    add s0, s0, t1\n    addi t0, t0, 1\n    j parse\nloop:\n'
    for ((i = 0; i < k; i++)); do printf '    addi %s, %s, 3\n' "${regs[$i]}" "${regs[$i]}"; done
    printf '    addi s0, s0, -1\n    bnez s0, loop\n    li a0, 0\n    li a7, 93\n    ecall\n'
  } > "$work/loop$k.S"
  riscv64-linux-gnu-gcc -nostdlib -static -march=rv64gc -o "$work/loop$k" "$work/loop$k.S"
  echo "K=$k ns/iteration: $(python3 "$here/cpu.py" 7 "$work/loop$k 10000000" "$work/loop$k 50000000" \
    | awk '{print $4 * 1e9 / 4e7}')"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
