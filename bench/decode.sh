#!/usr/bin/env bash
# Decode-only throughput on one thread: instructions per second of Decoder.decodeAll (packed
# results into a caller's array, no allocation) over the .text of a large RISC-V input: the
# 4.98 MiB bench input of bench/disasm.sh when it is built, else the largest test program; and
# a synthetic mix of every table row. Target: >= 200 million instructions/s on one core.
#
# Two figures per input: per CPU second of the decoding thread (--cpu: time slicing on a shared
# machine does not dilute it), then JMH's wall-clock throughput (Mode.Throughput, one fork).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -Dstyle.color=never test-compile
cp_file=target/bench.classpath
mvn -B -q -Dstyle.color=never dependency:build-classpath -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test >/dev/null
cp="target/test-classes:target/classes:$(cat "$cp_file")"

codes=(synthetic)
prog=""
for p in build/bench/big build/programs/rv64/exceptions build/programs/rv64/loops; do
  if [ -f "$p" ]; then prog="$p"; break; fi
done
if [ -n "$prog" ]; then
  text=target/bench-text.bin
  riscv64-linux-gnu-objcopy -O binary --only-section=.text "$prog" "$text"
  echo "real code: .text of $prog ($(stat -c %s "$text") bytes)"
  codes=("$PWD/$text" synthetic)
else
  echo "no test program built (run 'make programs', or bench/disasm.sh for the large input); synthetic input only"
fi
# Vectorized real code: the .text of the clang-22 -O3 -march=rv64gcv program (linked by lld, whose
# output GNU objcopy cannot read).
if [ -f build/programs/rv64v/vloops ]; then
  vtext=target/bench-vector-text.bin
  llvm-objcopy-22 -O binary --only-section=.text build/programs/rv64v/vloops "$vtext"
  echo "vectorized real code: .text of build/programs/rv64v/vloops ($(stat -c %s "$vtext") bytes)"
  codes=("$PWD/$vtext" "${codes[@]}")
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for c in "${codes[@]}"; do
  java -cp "$cp" dev.splice.bench.DecodeBenchmark --cpu "$c"
done
for c in "${codes[@]}"; do
  java -cp "$cp" org.openjdk.jmh.Main 'dev.splice.bench.DecodeBenchmark.decode' -p code="$c" \
    -foe true -rf text -rff target/jmh-decode.txt 2>&1 | grep -E '^(Benchmark|DecodeBenchmark)' || true
done
echo "(JMH's 'instructions' row is instructions decoded per second of wall-clock time; target >= 200,000,000)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
