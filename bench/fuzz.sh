#!/usr/bin/env bash
# The in-process fuzzer (issue 15, docs/fuzzing.md) over every target: ELF reader, disassembly and
# listings (which must reassemble), the assembler, BAT note decoding and queries, BOLTed binaries
# through translation, pre-aggregated and perf-script profiles, patch fragments, patch on forged
# ELF inputs, campaign pairs, the weight model, weights, catalogs and plugin records.
# Prints per-target input counts and every finding (saved under target/fuzz-findings/); exit 1 on any.
# Usage: [JOBS=N] bench/fuzz.sh SECONDS [SEED] [TARGET,...|all] [MAX_INPUTS_PER_TARGET]
#        (SECONDS of wall time, shared equally by the targets of each job; niced, one thread per job;
#        JOBS=2 uses both cores of a quiet 2-core machine; FUZZ_NICE=19 runs it on what other work leaves)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TOTAL=${1:?usage: bench/fuzz.sh SECONDS [SEED] [TARGET,...|all] [MAX_INPUTS]}
SEED=${2:-15}
TARGETS=${3:-all}
MAX=${4:-}
mvn -B -o -q -Dstyle.color=never test-compile
CP=target/fuzz-classpath.txt
if [ ! -s "$CP" ] || [ pom.xml -nt "$CP" ]; then
  mvn -B -o -q -Dstyle.color=never dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$CP" >/dev/null
fi
fuzz() {
  nice -n ${FUZZ_NICE:-10} java -Xmx${FUZZ_HEAP:-2g} -XX:+UseSerialGC -cp "target/test-classes:target/classes:$(cat "$CP")" \
    dev.splice.fuzz.Fuzzer "$@"
}
JOBS=${JOBS:-1}
if [ "$JOBS" -le 1 ]; then
  fuzz "$SECONDS_TOTAL" "$SEED" "$TARGETS" $MAX
  exit
fi
# JOBS processes, each for SECONDS of wall time over every JOBS-th target. A target's inputs depend only
# on the seed and its name, so a target fuzzes the same inputs whichever job runs it.
# --list also makes the seeds built once per build directory (the BOLT outputs) before the jobs start.
mapfile -t names < <(fuzz --list)
if [ "$TARGETS" != all ]; then
  IFS=, read -r -a names <<< "$TARGETS"
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pids=()
for ((j = 0; j < JOBS; j++)); do
  share=()
  for ((i = j; i < ${#names[@]}; i += JOBS)); do share+=("${names[i]}"); done
  [ ${#share[@]} -gt 0 ] || continue
  (IFS=,; fuzz "$SECONDS_TOTAL" "$SEED" "${share[*]}" $MAX) > "$dir/job$j.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
cat "$dir"/job*.log
awk '/ inputs .* findings$/ {gsub(",", "", $2); n += $2} END {printf "%d inputs in all, %d jobs\n", n, '"$JOBS"'}' "$dir"/job*.log
exit $rc
