#!/usr/bin/env bash
# The hand measurements behind docs/weigh-model.md's session 15 paragraphs: what a lookup of the next
# block (lookup_and_goto_ptr) costs under plain qemu-riscv64, CPU time per iteration (difference of
# two run lengths, median of 7 runs, cpu.py):
#   back-to-back S lookups per iteration (the lookup contexts' kernel shape: lla t0, 1f; jalr);
#   one indirect jump through an 8-entry table per iteration, its index constant, cyclic, from a
#   random sequence repeating every P jumps, or drawn afresh (an LCG): the host's indirect-target
#   predictor and what a misprediction costs;
#   a ring of N pages, each a direct jump to the next (QEMU 7.2 does not chain across pages).
# And pages.c: the cost of the pages a run first touches (malloc'd and written against a reused
# static buffer). Everything builds with the cross toolchain into a temporary directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpu() { python3 "$here/cpu.py" 7 "$@"; }
prologue() { # _start: the first argument's decimal value in s0
  printf '    .text\n    .globl _start\n_start:\n    ld t0, 16(sp)\n    li s0, 0\n    li t3, 10\n'
  printf 'parse:\n    lbu t1, 0(t0)\n    beqz t1, go\n    addi t1, t1, -48\n    mul s0, s0, t3\n'
  printf '    add s0, s0, t1\n    addi t0, t0, 1\n    j parse\n'
}
build() { riscv64-linux-gnu-gcc -nostdlib -static -march=rv64gc -o "$work/$1" "$work/$1.S"; }

for s in 1 8 128; do
  { prologue; printf 'go:\n    j head\n    .balign 4096\nhead:\n    addi s0, s0, -1\n    beqz s0, done\n'
    for ((i = 0; i < s; i++)); do printf '    lla t0, 1f\n    jalr zero, 0(t0)\n1:\n'; done
    printf '    j head\ndone:\n    li a0, 0\n    li a7, 93\n    ecall\n'; } > "$work/bb$s.S"
  build "bb$s"
  n=$((8000000 / s))
  echo "back-to-back, S=$s: $(cpu "$work/bb$s $((n / 8))" "$work/bb$s $n" | awk -v k=$((n * 7 / 8 * s)) '{print $4 * 1e9 / k}') ns per lookup"
done

# index: const (always target 0), cyclic (the counter mod 8), random (an LCG's top bits), or seqP
for v in const cyclic random seq64 seq512 seq4096; do
  case $v in
    const) pick='    andi t2, s1, 0\n    addi x0, x0, 0\n    addi x0, x0, 0\n    addi x0, x0, 0' ;;
    cyclic) pick='    andi t2, s0, 7\n    addi x0, x0, 0\n    addi x0, x0, 0\n    addi x0, x0, 0' ;;
    random) pick='    srli t2, s1, 40\n    andi t2, t2, 7\n    addi x0, x0, 0\n    addi x0, x0, 0' ;;
    seq*) pick='    add t2, s5, s6\n    lbu t2, 0(t2)\n    addi s6, s6, 1\n    and s6, s6, s7' ;;
  esac
  p=${v#seq}; [ "$p" = "$v" ] && p=1
  { prologue
    printf 'go:\n    li s1, 12345\n    li s2, 6364136223846793005\n    la s3, table\n    la s5, sequence\n'
    printf '    li s6, 0\n    li s7, %d\n    j head\n    .balign 4096\nhead:\n    addi s0, s0, -1\n' $((p - 1))
    printf '    beqz s0, done\n    mul s1, s1, s2\n    addi s1, s1, 1\n'"$pick"'\n'
    printf '    slli t2, t2, 3\n    add t2, t2, s3\n    ld t2, 0(t2)\n    jr t2\n'
    for i in 0 1 2 3 4 5 6 7; do printf 't%d:\n    addi s4, s4, %d\n    j head\n' $i $i; done
    printf 'done:\n    li a0, 0\n    li a7, 93\n    ecall\n    .data\n    .balign 8\ntable:\n'
    for i in 0 1 2 3 4 5 6 7; do printf '    .dword t%d\n' $i; done
    printf 'sequence:\n'
    python3 -c "import random; random.seed($p); print('    .byte ' + ', '.join(str(random.randrange(8)) for _ in range($p)))"
  } > "$work/ind_$v.S"
  build "ind_$v"
  echo "8-target table, $v: $(cpu "$work/ind_$v 1000000" "$work/ind_$v 9000000" | awk '{print $4 * 1e9 / 8e6}') ns per iteration"
done

for n in 2 16 256 1024; do
  { prologue; printf 'go:\n    j p0\n    .balign 4096\np0:\n    addi s0, s0, -1\n    bnez s0, p1\n'
    printf '    li a0, 0\n    li a7, 93\n    ecall\n'
    for ((i = 1; i < n - 1; i++)); do printf '    .balign 4096\np%d:\n    j p%d\n' $i $((i + 1)); done
    printf '    .balign 4096\np%d:\n    la t1, p0\n    jr t1\n' $((n - 1)); } > "$work/ring$n.S"
  build "ring$n"
  it=$((1000000 * 16 / n + 10))
  echo "ring of $n pages: $(cpu "$work/ring$n $((it / 5))" "$work/ring$n $it" | awk -v k=$(((it - it / 5) * n)) '{print $4 * 1e9 / k}') ns per exit"
done

riscv64-linux-gnu-gcc -O2 -static -o "$work/pages" "$here/pages.c"
echo "pages: $(cpu "$work/pages 200000" "$work/pages 2000000" "$work/pages 200000 fresh" "$work/pages 2000000 fresh" \
  | awk '{print ($8 - $7 - $6) * 1e6 / 1758 " us per page first touched (1,758 pages)"}')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
