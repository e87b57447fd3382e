#!/usr/bin/env bash
# Overhead of the Splice QEMU plugin: wall time of one guest under qemu-riscv64 without a plugin
# and with the plugin in each mode, median of REPS runs, printed as ratios to the plugin-off run.
# Guest: build/programs/rv64/count_loop N (5 instructions per iteration). Needs `make programs plugin`.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20000000}
REPS=${REPS:-5}
plugin=build/qemu-plugin/libsplice-plugin.so
guest=build/programs/rv64/count_loop
[ -f "$plugin" ] && [ -f "$guest" ] || { echo "run 'make programs plugin' first" >&2; exit 1; }
records=$(mktemp)
trap 'rm -f "$records"' EXIT

median_seconds() { # command...: median wall time in seconds over REPS runs
  local times=()
  for _ in $(seq "$REPS"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null || [ $? -lt 128 ]
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

off=$(median_seconds qemu-riscv64 "$guest" "$N")
printf 'guest: count_loop %s (5 x %s loop instructions), median of %s runs\n' "$N" "$N" "$REPS"
printf '%-11s %8.3f s  ratio 1.00\n' off "$off"
for mode in count validation timing catalog; do
  t=$(median_seconds qemu-riscv64 -plugin "$plugin,mode=$mode,out=$records" "$guest" "$N")
  printf '%-11s %8.3f s  ratio %.2f\n' "$mode" "$t" "$(echo "$t / $off" | bc -l)"
done
