#!/usr/bin/env bash
# Write-back speed, three cases, each Splice (`./splice patch`, the launcher users run, with the JVM
# flags it sets) against llvm-bolt-22 --reorder-blocks=reverse on the same binary (built with
# --emit-relocs):
#   1. one nop at the entry of every function Splice can move (--insert-at-entries), on the largest
#      static test program;
#   2. a counter (examples/block-counter.s) at every basic block (--at 'block:*'), same binary;
#   3. a PIE build of it (dynamically linked: the cross toolchain has no static-pie start files),
#      a nop at every basic block;
#   4. the same PIE with a counter at every basic block (the counters are written by an exit hook
#      that the output's first .fini_array word names, docs/instrument.md);
#   5. a counter at every basic block of a PIE that carries libstdc++ and libgcc (-static-libstdc++
#      -static-libgcc; glibc shared): 800 KB, about 5,400 blocks, where cases 3 and 4 measure mostly
#      the JVM's start (their PIE has 25 functions).
# Per case, after one untimed Splice run (which lets the launcher record its class-data archive),
# the two alternate, RUNS times each, so that load from other processes hits both alike. Reports
# the best wall time, the least CPU time (user + sys) and the peak RSS of each, the ratios, and
# checks that both outputs run like the input under qemu-riscv64 (BOLT's outputs of these RISC-V
# binaries may not: that is reported, not fatal).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
make -s programs jar >/dev/null
BIN=${1:-build/programs/rv64/exceptions.relocs}
PIE=${2:-build/programs/rv64-pie/exceptions}
PIE_LIBSTDCXX=${3:-build/programs/rv64-pie-libstdcxx/exceptions}
RUNS=${RUNS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo 'addi x0, x0, 0' > "$out/nop.s"

# run NAME command... : one timed run, appended to $out/NAME as "wall cpu kilobytes"
run() {
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" >/dev/null 2>"$out/stderr" || { cat "$out/stderr"; exit 1; }
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$out/time" >> "$out/$name"
}
# best NAME : "best-wall least-cpu peak-kilobytes" over the runs
best() {
  awk 'NR == 1 || $1 < w {w = $1} NR == 1 || $2 < c {c = $2} $3 > m {m = $3} END {print w, c, m}' "$out/$1"
}
# qemu_run BINARY : its output and exit status (dynamic ones with the cross sysroot)
qemu_run() {
  qemu-riscv64 -L /usr/riscv64-linux-gnu "$1" 2>&1; echo "rc=$?"
}

# bench TITLE BINARY splice-arguments... : one case
bench() {
  local title=$1 bin=$2; shift 2
  local splice=(./splice patch "$bin" "$@" -o "$out/splice.out")
  local bolt=(llvm-bolt-22 "$bin" -o "$out/bolt.out" --reorder-blocks=reverse)
  rm -f "$out/splice" "$out/bolt"
  echo "== $title"
  "${splice[@]}" >/dev/null 2>&1 # untimed: the launcher's class-data archive
  local load_before load_after st sc sm bt bc bm want got o
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  for _ in $(seq "$RUNS"); do
    run splice "${splice[@]}"
    run bolt "${bolt[@]}"
  done
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  read -r st sc sm < <(best splice)
  read -r bt bc bm < <(best bolt)
  "${splice[@]}" 2>&1 | tail -1 | sed 's/^/  /'
  want=$(qemu_run "$bin")
  for o in splice.out bolt.out; do
    got=$(SPLICE_COUNTER_FILE="$out/counters" qemu_run "$out/$o")
    [ "$got" = "$want" ] && echo "  $o runs like the input" || echo "  $o DIFFERS: $(echo "$got" | tail -1)"
  done
  printf 'binary: %s (%s bytes), %s runs each, load average %s before, %s after\n' \
    "$bin" "$(stat -c %s "$bin")" "$RUNS" "$load_before" "$load_after"
  printf 'output bytes: splice %s, llvm-bolt-22 %s\n' "$(stat -c %s "$out/splice.out")" "$(stat -c %s "$out/bolt.out")"
  printf '%-46s %8s %10s %8s\n' "" "wall s" "cpu s" "RSS MB"
  printf '%-46s %8s %10s %8s\n' "./splice patch" "$st" "$sc" "$((sm / 1024))"
  printf '%-46s %8s %10s %8s\n' "llvm-bolt-22 --reorder-blocks=reverse" "$bt" "$bc" "$((bm / 1024))"
  awk -v st="$st" -v bt="$bt" -v sc="$sc" -v bc="$bc" -v sm="$sm" -v bm="$bm" \
    'BEGIN{printf "ratio splice/bolt: wall %.2f, cpu %.2f, peak memory %.2f\n", st/bt, sc/bc, sm/bm}'
}

bench "1. a nop at every function entry (--insert-at-entries)" "$BIN" --insert-at-entries "$out/nop.s"
bench "2. a counter at every basic block (--at 'block:*' examples/block-counter.s)" "$BIN" \
  --at 'block:*' examples/block-counter.s --counter-file "$out/counters"
bench "3. PIE: a nop at every basic block (--at 'block:*')" "$PIE" --at 'block:*' "$out/nop.s"
bench "4. PIE: a counter at every basic block (--at 'block:*' examples/block-counter.s)" "$PIE" \
  --at 'block:*' examples/block-counter.s --counter-file "$out/counters"
bench "5. PIE carrying libstdc++: a counter at every basic block" "$PIE_LIBSTDCXX" \
  --at 'block:*' examples/block-counter.s --counter-file "$out/counters"
