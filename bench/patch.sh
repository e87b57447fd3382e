#!/usr/bin/env bash
# Write-back speed: Splice inserting one instruction at the entry of every function it can move
# (splice patch --insert-at-entries) vs llvm-bolt-22 --reorder-blocks=reverse on the same large
# static RISC-V binary (built with --emit-relocs). Reports wall time and peak RSS of each (best of
# RUNS), the ratio, and checks that both outputs run like the input under qemu-riscv64.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
make -s programs jar >/dev/null
BIN=${1:-build/programs/rv64/exceptions.relocs}
RUNS=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo 'addi x0, x0, 0' > "$out/nop.s"

measure() { # name command... -> prints "seconds kilobytes" of the best run
  local best_t="" best_m=""
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>"$out/stderr" || { cat "$out/stderr"; exit 1; }
    read -r t m < "$out/time"
    if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t; best_m=$m; fi
  done
  echo "$best_t $best_m"
}

read -r st sm < <(measure java -jar target/splice.jar patch "$BIN" --insert-at-entries "$out/nop.s" -o "$out/splice.out")
# The same with the JVM tuned for a short batch run (C1 only, serial GC): SPLICE_JAVA_OPTS for ./splice.
FAST="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
read -r ft fm < <(measure java $FAST -jar target/splice.jar patch "$BIN" --insert-at-entries "$out/nop.s" -o "$out/splice.out")
java -jar target/splice.jar patch "$BIN" --insert-at-entries "$out/nop.s" -o "$out/splice.out" 2>&1 | sed 's/^/  /'
read -r bt bm < <(measure llvm-bolt-22 "$BIN" -o "$out/bolt.out" --reorder-blocks=reverse)

want=$(qemu-riscv64 "$BIN" 2>&1; echo "rc=$?")
for o in splice.out bolt.out; do
  got=$(qemu-riscv64 "$out/$o" 2>&1; echo "rc=$?")
  [ "$got" = "$want" ] && echo "  $o runs like the input" || echo "  $o DIFFERS: $got"
done
printf 'binary: %s (%s bytes), best of %s runs\n' "$BIN" "$(stat -c %s "$BIN")" "$RUNS"
printf '%-44s %8s s %8s MB\n' "splice patch --insert-at-entries" "$st" "$((sm / 1024))"
printf '%-44s %8s s %8s MB\n' "splice, java $FAST" "$ft" "$((fm / 1024))"
printf '%-44s %8s s %8s MB\n' "llvm-bolt-22 --reorder-blocks=reverse" "$bt" "$((bm / 1024))"
awk -v s="$st" -v b="$bt" -v sm="$sm" -v bm="$bm" \
  'BEGIN{printf "ratio splice/bolt (default JVM): time %.2f, peak memory %.2f\n", s/b, sm/bm}'
awk -v s="$ft" -v b="$bt" -v sm="$fm" -v bm="$bm" \
  'BEGIN{printf "ratio splice/bolt (C1, serial GC): time %.2f, peak memory %.2f\n", s/b, sm/bm}'
