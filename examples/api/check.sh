#!/usr/bin/env bash
# Run by `make test`: compiles Example.java against the library jar and its declared runtime
# dependencies only (no picocli, no CLI jar), runs it on a test program and checks each of its four
# tasks against the CLI: the function list, the disassembly (as `disasm --format jsonl` gives it),
# the insertion (the output runs under qemu-riscv64 as the input does and starts with the no-op),
# the translated profile line, and the loop heads chosen by spec (as `splice points` lists them; the
# output with a no-op at each runs like the input).
# Usage: examples/api/check.sh CLI_JAR PROGRAM FUNCTION
set -euo pipefail
cli=$1 program=$2 function=$3
work=target/example
cp="target/splice.jar:$(cat target/library-classpath.txt)"
rm -rf "$work"; mkdir -p "$work/classes"
fail() { echo "examples/api: $*" >&2; exit 1; }

javac -Xlint:all -Werror -d "$work/classes" -cp "$cp" examples/api/Example.java
java -cp "$work/classes:$cp" Example "$program" "$function" "$work" > "$work/output.txt"

# 1. As many functions as `splice info` counts.
listed=$(grep -c '^function ' "$work/output.txt")
counted=$(java -jar "$cli" info --json "$program" | sed -n 's/^ *"functions" : \([0-9]*\),*$/\1/p')
[ "$listed" = "$counted" ] || fail "listed $listed functions, splice info counts $counted"

# 2. The disassembly: address and exact text of each instruction, as the JSONL listing has them.
java -jar "$cli" disasm --format jsonl --function "$function" "$program" \
  | sed -E 's/.*"address":([0-9]+),.*"mnemonic":"([^"]*)","operands":"([^"]*)".*/\1 \2 \3/' \
  | while read -r address rest; do printf '%x: %s\n' "$address" "$rest" | sed 's/ $//'; done > "$work/expected-disasm.txt"
grep -v -e '^function ' -e '^fdata: ' -e '^point ' "$work/output.txt" | sed -E 's/^([0-9a-f]+: .*[^ ]) +(NONE|BRANCH|JUMP|CALL|RETURN|INDIRECT|TRAP) \[.*$/\1/' \
  > "$work/disasm.txt"
cmp -s "$work/expected-disasm.txt" "$work/disasm.txt" || { diff "$work/expected-disasm.txt" "$work/disasm.txt" | head; fail "disassembly differs"; }

# 3. The patched binary runs as the input does, and the function now starts with the no-op.
set +e
qemu-riscv64 "$program" 50 > "$work/run-input.txt"; input_rc=$?
qemu-riscv64 "$work/patched" 50 > "$work/run-patched.txt"; patched_rc=$?
set -e
[ "$input_rc" = "$patched_rc" ] || fail "exit status $patched_rc, the input's is $input_rc"
cmp -s "$work/run-input.txt" "$work/run-patched.txt" || fail "the patched binary prints something else"
first=$(java -jar "$cli" disasm --format jsonl --function "$function" "$work/patched" | head -1)
case "$first" in *'"mnemonic":"addi","operands":"zero, zero, 0"'*) ;; *) fail "no inserted no-op first: $first" ;; esac

# 4. The profile line: from and to as offsets in the function, 0 mispredictions, 7 times.
start=$(head -1 "$work/expected-disasm.txt" | cut -d: -f1)
read -r _ from to _ _ < "$work/profile.pa"
expected=$(printf 'fdata: 1 %s %x 1 %s %x 0 7' "$function" $((0x$from - 0x$start)) "$function" $((0x$to - 0x$start)))
[ "$(grep '^fdata: ' "$work/output.txt")" = "$expected" ] || fail "profile line '$(grep '^fdata: ' "$work/output.txt")', expected '$expected'"
# 5. The loop heads, as `splice points` lists them, and the output with a no-op at each runs like the input.
java -jar "$cli" points "$program" "loop:$function" | awk '{ sub(/^0x/, "", $1); print "point " $1 " " $2 " " ($5 == "refused" ? $6 : "ok") }' \
  | sed 's/:$//' > "$work/expected-points.txt"
grep '^point ' "$work/output.txt" > "$work/points.txt" || true
[ -s "$work/points.txt" ] || fail "no loop head listed for $function"
cmp -s "$work/expected-points.txt" "$work/points.txt" || { diff "$work/expected-points.txt" "$work/points.txt"; fail "points differ from splice points"; }
set +e
qemu-riscv64 "$work/looped" 50 > "$work/run-looped.txt"; looped_rc=$?
set -e
[ "$input_rc" = "$looped_rc" ] && cmp -s "$work/run-input.txt" "$work/run-looped.txt" || fail "the output with no-ops at the loop heads runs differently"
echo "examples/api: the library example listed $listed functions, disassembled, patched, translated and chose the loop heads of $function as the CLI does"
