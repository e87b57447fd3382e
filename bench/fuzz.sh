#!/usr/bin/env bash
# The in-process fuzzer (issue 15, docs/fuzzing.md) over every target: ELF reader, disassembly and
# listings (which must reassemble), the assembler, BAT note decoding and queries, BOLTed binaries
# through translation, pre-aggregated and perf-script profiles, patch fragments, patch on forged
# ELF inputs, campaign pairs, the weight model, weights, catalogs and plugin records.
# Prints per-target input counts and every finding (saved under target/fuzz-findings/); exit 1 on any.
# Usage: bench/fuzz.sh SECONDS [SEED] [TARGET,...|all] [MAX_INPUTS_PER_TARGET]
#        (SECONDS in all, shared equally by the targets; runs niced, one thread)
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
exec nice -n 10 java -Xmx${FUZZ_HEAP:-2g} -XX:+UseSerialGC -cp "target/test-classes:target/classes:$(cat "$CP")" \
  dev.splice.fuzz.Fuzzer "$SECONDS_TOTAL" "$SEED" "$TARGETS" $MAX
