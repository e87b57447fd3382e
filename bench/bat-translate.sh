#!/usr/bin/env bash
# Profile translation throughput: Splice vs perf2bolt-22 on a 10-million-line pre-aggregated profile
# for a large BOLTed binary. Several runs each; prints wall time and peak RSS (from /usr/bin/time -v)
# and the ratios. Checks that both outputs agree.
#   rv64 (default): the static C++ test program for RISC-V (~2.5 MB), BOLTed in relocation mode, so
#     nearly all code has translation tables.
#   x86_64: the static x86-64 C++ build without relocations, BOLTed in place: about a third of its
#     functions keep no tables and perf2bolt (and Splice) build their CFGs from the machine code.
#   x86_64-plain, rv64-plain: the x86-64 build, or the RISC-V one (with --emit-relocs: perf2bolt's
#     strict mode), not BOLTed at all: the profile stays in its coordinates, every function goes
#     through its CFG.
# Usage: bench/bat-translate.sh [LINES] [RUNS] [rv64|x86_64|x86_64-plain|rv64-plain]
#        (make bench runs the default)
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-10000000}
RUNS=${2:-3}
ISA=${3:-rv64}
WORK=build/bench/bat
mkdir -p "$WORK"
make -s jar programs >/dev/null

case "$ISA" in
  rv64) INPUT=build/programs/rv64/exceptions.relocs; BOLT_OPTIONS="--reorder-blocks=reverse --reorder-functions=hfsort" ;;
  x86_64) INPUT=build/programs/x86_64-static/exceptions; BOLT_OPTIONS="--reorder-blocks=reverse" ;;
  x86_64-plain) INPUT=build/programs/x86_64-static/exceptions; BOLT_OPTIONS="" ;;
  rv64-plain) INPUT=build/programs/rv64/exceptions.relocs; BOLT_OPTIONS="" ;;
  *) echo "usage: $0 [LINES] [RUNS] [rv64|x86_64|x86_64-plain|rv64-plain]" >&2; exit 1 ;;
esac
BOLTED=$WORK/exceptions-$ISA.bolt
PROFILE=$WORK/profile-$ISA-$LINES.pa
if [ "${ISA%-plain}" != "$ISA" ]; then
  BOLTED=$INPUT
elif [ ! -f "$BOLTED" ] || [ "$INPUT" -nt "$BOLTED" ]; then
  # shellcheck disable=SC2086
  llvm-bolt-22 "$INPUT" -o "$BOLTED" --enable-bat $BOLT_OPTIONS > "$WORK/bolt-$ISA.log" 2>&1 \
    || { cat "$WORK/bolt-$ISA.log" >&2; exit 1; }
fi
if [ ! -f "$PROFILE" ]; then
  # Records over the binary's real direct branch sites: branches, traces, fall-throughs (seeded).
  llvm-objdump-22 -d --no-show-raw-insn -j .text "$BOLTED" \
    | awk '/^ +[0-9a-f]+: *\t(b|j|c\.b|c\.j|call|tail)[a-z.]*\t/ && / <[^>]*>$/ {
             a=$1; sub(":", "", a); n=split($0, w, " "); t=w[n-1]; sub("^0x", "", t); if (t ~ /^[0-9a-f]+$/) print a, t }' > "$WORK/sites-$ISA"
  awk -v lines="$LINES" 'BEGIN { srand(42) } { s[NR] = $1; t[NR] = $2 } END {
      for (i = 0; i < lines; i++) {
        k = 1 + int(rand() * NR); r = rand()
        if (r < 0.5)      printf "B %s %s %d %d\n", s[k], t[k], 1 + int(rand() * 100), int(rand() * 3)
        else if (r < 0.8) printf "T %s %s %s %d\n", s[k], t[k], s[1 + int(rand() * NR)], 1 + int(rand() * 100)
        else              printf "F %s %s %d\n", t[k], s[k], 1 + int(rand() * 100)
      } }' "$WORK/sites-$ISA" > "$PROFILE"
fi
echo "binary: $BOLTED ($(stat -c %s "$BOLTED") bytes), profile: $PROFILE ($(wc -l < "$PROFILE") lines, $(stat -c %s "$PROFILE") bytes)"

# The JVM: serial GC and a heap sized for the distinct translated edges and the bounded raw-record
# tables, not the lines (the reader streams). C1 only: since raw records are aggregated before
# translation the run is short, and C2's compile time costs more than it saves (measured 5.0-5.4 s
# CPU against 6.3-7.7 s with C2).
JAVA_OPTS=${JAVA_OPTS:-"-XX:+UseSerialGC -Xmx128m -XX:TieredStopAtLevel=1 -Xshare:auto"}

measure() { # name, command...: prints "wall_seconds maxrss_kb cpu_seconds"
  local name=$1; shift
  /usr/bin/time -v "$@" > "$WORK/$name.out" 2> "$WORK/$name.time" || { cat "$WORK/$name.time" >&2; exit 1; }
  local wall rss cpu
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$WORK/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$WORK/$name.time")
  cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$WORK/$name.time")
  echo "$wall $rss $cpu"
}

best_p=""; best_s=""; rss_p=0; rss_s=0
for run in $(seq 1 "$RUNS"); do
  read -r tp mp cp < <(measure perf2bolt perf2bolt-22 -p "$PROFILE" --pa -o "$WORK/perf2bolt.fdata" "$BOLTED")
  # shellcheck disable=SC2086
  read -r ts ms cs < <(measure splice java $JAVA_OPTS -jar target/splice-cli.jar bat translate --pa "$PROFILE" "$BOLTED" -o "$WORK/splice.fdata")
  printf 'run %d: perf2bolt-22 %6.2f s wall %6.2f s cpu %7d KB | splice %6.2f s wall %6.2f s cpu %7d KB | load %s\n' \
    "$run" "$tp" "$cp" "$mp" "$ts" "$cs" "$ms" "$(cut -d' ' -f1 /proc/loadavg)"
  best_p=$(echo "$best_p $tp" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }')
  best_s=$(echo "$best_s $ts" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }')
  [ "$mp" -gt "$rss_p" ] && rss_p=$mp
  [ "$ms" -gt "$rss_s" ] && rss_s=$ms
done

if diff -q <(grep -v '^boltedcollection' "$WORK/perf2bolt.fdata" | sort) <(grep -v '^boltedcollection' "$WORK/splice.fdata" | sort) >/dev/null; then
  agree="identical (as sorted lines)"
else
  agree="DIFFERENT"
fi
awk -v p="$best_p" -v s="$best_s" -v mp="$rss_p" -v ms="$rss_s" -v n="$LINES" -v agree="$agree" 'BEGIN {
  printf "best wall time: perf2bolt-22 %.2f s (%.1f M lines/s), splice %.2f s (%.1f M lines/s)\n", p, n / p / 1e6, s, n / s / 1e6
  printf "throughput ratio splice/perf2bolt: %.2fx\n", p / s
  printf "peak RSS: perf2bolt-22 %d KB, splice %d KB (ratio %.2f)\n", mp, ms, ms / mp
  printf "outputs: %s\n", agree }'
