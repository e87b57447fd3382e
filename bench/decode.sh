#!/usr/bin/env bash
# Decode-only throughput (JMH, one thread): instructions per second of dev.splice.isa.Decoder
# over the .text of the largest RISC-V test program (and a synthetic mix of every table row).
# Target: >= 200 million instructions/s on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -Dstyle.color=never test-compile
cp_file=target/bench.classpath
mvn -B -q -Dstyle.color=never dependency:build-classpath -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test >/dev/null
cp="target/test-classes:target/classes:$(cat "$cp_file")"

codes=(synthetic)
prog=""
for p in build/programs/rv64/exceptions build/programs/rv64/loops; do
  if [ -f "$p" ]; then prog="$p"; break; fi
done
if [ -n "$prog" ]; then
  text=target/bench-text.bin
  riscv64-linux-gnu-objcopy -O binary --only-section=.text "$prog" "$text"
  echo "real code: .text of $prog ($(stat -c %s "$text") bytes)"
  codes+=("$PWD/$text")
else
  echo "no test program built (run 'make programs' for real code); synthetic input only"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for c in "${codes[@]}"; do
  java -cp "$cp" dev.splice.bench.DecodeBenchmark --cpu "$c"
done
for c in "${codes[@]}"; do
  java -cp "$cp" org.openjdk.jmh.Main 'dev.splice.bench.DecodeBenchmark.decode' -p code="$c" \
    -foe true -rf text -rff target/jmh-decode.txt 2>&1 | grep -E '^(Benchmark|DecodeBenchmark)' || true
  echo "(the 'instructions' row is instructions decoded per second; target >= 200,000,000)"
done
