#!/usr/bin/env bash
# ELF reader speed: Splice's reader (warm JVM, everything parsed) against llvm-readelf-22 on the
# same files, median of several runs each. Needs the jar and the test programs (make bench builds them).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f target/splice-cli.jar ] || make jar
files=(build/programs/rv64/exceptions.relocs build/programs/rv64/loops /usr/lib/x86_64-linux-gnu/libc.so.6)
for f in "${files[@]}"; do
  java -cp target/splice-cli.jar bench/ElfRead.java "$f" "${RUNS:-10}"
done
