#!/usr/bin/env bash
# Assembler scaling (issue 15: "1,000,000 lines and 300,000 numeric local labels in under 5 s and
# 1 GB"): `splice asm` on a generated 1,000,001-line listing with 300,001 numeric labels, each
# referenced backward and forward, against llvm-mc-22 and GNU as 2.40 on the same lines (no
# compression, so all three emit the same instructions), in the same run. RUNS alternating runs
# each (default 3); best wall, least CPU (user+sys), peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s jar >/dev/null
RUNS=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
body() {
  for ((i = 0; i < 100000; i++)); do echo "    nop"; done
  for ((i = 0; i < 300000; i++)); do printf '1:  addi a0, a0, 1\n    bnez a0, 1b\n    beqz a0, 1f\n'; done
  echo "1:  ret"
}
body > "$out/body.s"
{ printf '.target rv64gc\n.origin 0x10000\n'; cat "$out/body.s"; } > "$out/splice.s"
{ printf '.option norvc\n.text\n'; cat "$out/body.s"; } > "$out/peer.s"
run() { # NAME command...
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" >/dev/null 2>"$out/stderr" || { cat "$out/stderr"; exit 1; }
  tail -1 "$out/time" | awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' >> "$out/$name"
}
best() { awk 'NR == 1 || $1 < w {w = $1} NR == 1 || $2 < c {c = $2} $3 > m {m = $3} END {print w, c, m}' "$out/$1"; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(wc -l < "$out/splice.s") lines"
for ((r = 0; r < RUNS; r++)); do
  run splice ./splice asm "$out/splice.s" -o "$out/splice.bin"
  run llvm-mc llvm-mc-22 -triple=riscv64 -mattr=+m,+a,+f,+d -filetype=obj "$out/peer.s" -o "$out/llvm.o"
  run gnu-as riscv64-linux-gnu-as -march=rv64g "$out/peer.s" -o "$out/gnu.o"
done
printf '%-10s %8s %8s %10s\n' tool wall_s cpu_s peak_MB
for t in splice llvm-mc gnu-as; do
  read -r w c m < <(best "$t")
  printf '%-10s %8s %8s %10d\n' "$t" "$w" "$c" $((m / 1024))
done
read -r sw _ sm < <(best splice); read -r lw _ lm < <(best llvm-mc)
awk -v s="$sw" -v l="$lw" -v a="$sm" -v b="$lm" 'BEGIN {printf "splice / llvm-mc-22: wall %.2fx, memory %.2fx (issue 15 bound: under 5 s and 1 GB)\n", s / l, a / b}'
