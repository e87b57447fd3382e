#!/usr/bin/env bash
# Byte-identity check (issue 11): this tree's CLI must write exactly what a base revision's CLI writes.
# Builds the base revision's jar in a temporary git worktree and this tree's jar, runs both on the same
# inputs and compares exit codes, stdout, stderr and every output file:
#   disasm     every program under build/programs (listing, --aliases, jsonl); a program both refuse
#              with the same message counts as the same
#   patch      --insert-at-entries (a one-line nop and examples/cycle-probe-begin.s, as rv64g for
#              *.norvc) --verbose on every build/programs/rv64/*.relocs and *.norvc program
#   bat        translate of a fixed pre-aggregated profile (drawn from the binary's disassembly):
#              fdata, yaml and --ba on every BOLT fixture; fdata and --ba on every program above
#   weigh      model of a fixed synthetic campaign with a fixed seed
# Prints one line per comparison and a summary; exits 1 on any difference.
#
# Usage: tests/identical-outputs.sh [BASE_REVISION]   (default ad99e01, the commit before the re-cut)
# Environment: SPLICE_JAR   this tree's CLI jar (default: target/splice*-cli.jar, else target/splice.jar,
#                           built here with mvn -o package)
#              BAT_FIXTURES a directory of BOLT outputs (*.bolt); default target/bat-fixtures as the
#                           tests leave it, or, when that holds none, built here with llvm-bolt-22 as
#                           src/test/java/dev/splice/testing/BoltOutputs.java builds them
# Kept in target/identical-outputs/ and reused: the base jar (under its commit id), the BOLT outputs
# built here, and, for each comparison that differs, both sides' outputs (differences/NAME/{base,head}).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
helpers="$root/tests/identical-outputs"
base_rev="${1:-ad99e01}"
programs="$root/build/programs"
start=$SECONDS

work="$(mktemp -d)"
base_tree=""
cleanup() {
  if [ -n "$base_tree" ]; then git -C "$root" worktree remove --force "$base_tree" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Maven 3.8's default jar plugin (2.4) is not resolvable offline in a POM that does not pin it; then
# the jar and shade plugins that are in ~/.m2 are named explicitly (no main class in the manifest:
# the CLI is started by class name below).
build_jar() { # DIR LOG
  local mvn=(mvn -B -o -q -Dstyle.color=never -DskipTests)
  (cd "$1" && "${mvn[@]}" package > "$2" 2>&1) && return 0
  (cd "$1" && rm -f dependency-reduced-pom.xml && "${mvn[@]}" compile org.apache.maven.plugins:maven-jar-plugin:3.4.1:jar \
    org.apache.maven.plugins:maven-shade-plugin:3.6.0:shade >> "$2" 2>&1 && rm -f dependency-reduced-pom.xml) \
    || { cat "$2" >&2; echo "identical-outputs: cannot build the jar in $1" >&2; exit 2; }
}

cli_jar() { # DIR: the CLI's self-contained jar
  local j
  for j in "$1"/target/splice*-cli.jar; do [ -f "$j" ] && { echo "$j"; return; }; done
  [ -f "$1/target/splice.jar" ] || { echo "identical-outputs: no CLI jar in $1/target" >&2; exit 2; }
  echo "$1/target/splice.jar"
}

main_class() { # JAR (the JDK's jar tool: no unzip needed)
  local d
  d="$(mktemp -d -p "$work")"
  (cd "$d" && jar xf "$1" META-INF/MANIFEST.MF 2>/dev/null) || true
  sed -n 's/^Main-Class: *//p' "$d/META-INF/MANIFEST.MF" 2>/dev/null | tr -d '\r' | grep . || echo dev.splice.cli.Main
}

base_commit="$(git -C "$root" rev-parse --verify "$base_rev^{commit}")"
cache="$root/target/identical-outputs"
base_jar="$cache/base-$base_commit.jar"
if [ ! -f "$base_jar" ]; then
  echo "building the base CLI at ${base_commit:0:12} ($base_rev)"
  base_tree="$work/base-tree"
  git -C "$root" worktree add --detach -q "$base_tree" "$base_commit"
  build_jar "$base_tree" "$work/base-build.log"
  mkdir -p "$cache"
  cp "$(cli_jar "$base_tree")" "$base_jar.tmp" && mv "$base_jar.tmp" "$base_jar"
  git -C "$root" worktree remove --force "$base_tree"
  base_tree=""
fi
if [ -n "${SPLICE_JAR:-}" ]; then
  head_jar="$SPLICE_JAR"
else
  echo "building this tree's CLI"
  build_jar "$root" "$work/head-build.log"
  head_jar="$(cli_jar "$root")"
fi
base_main="$(main_class "$base_jar")"
head_main="$(main_class "$head_jar")"
for side in "$base_jar $base_main" "$head_jar $head_main"; do
  read -r jar main <<< "$side"
  version="$(java -cp "$jar" "$main" --version 2>&1)" \
    || { echo "identical-outputs: $jar does not run: $version" >&2; exit 2; }
  echo "$version: $jar ($main)"
done
differences="$cache/differences"
rm -rf "$differences"
echo "build: $((SECONDS - start)) s"

# Runs one side. Arguments may hold {out}: the side's output path (a file or a directory).
run_side() { # SIDE ARGS...
  local side="$1" dir="$work/$1" jar main flags
  shift
  if [ "$side" = base ]; then jar="$base_jar" main="$base_main"; else jar="$head_jar" main="$head_main"; fi
  # Short commands run fastest on C1 and the serial collector (as ./splice runs them); flags change no output.
  if [ "$1" = weigh ]; then flags=(); else flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC); fi
  rm -rf "$dir"
  mkdir -p "$dir"
  local rc=0
  java "${flags[@]}" -cp "$jar" "$main" "${@//\{out\}/$dir/out}" > "$dir/stdout" 2> "$dir/stderr" || rc=$?
  echo "$rc" > "$dir/rc"
  # The output path differs between the sides and timings between runs: neither is output.
  sed -i -e "s#$dir/out#{out}#g" -e 's/([0-9][0-9.]* s)/(T s)/g' "$dir/stdout" "$dir/stderr"
}

same=0
refused=0
different=0
# Runs both sides on the same arguments and compares everything they wrote.
check() { # NAME ARGS...
  local name="$1"
  shift
  run_side base "$@" &
  local base_pid=$!
  run_side head "$@"
  wait "$base_pid"
  local what=()
  cmp -s "$work/base/rc" "$work/head/rc" || what+=("exit code $(cat "$work/base/rc") -> $(cat "$work/head/rc")")
  cmp -s "$work/base/stdout" "$work/head/stdout" || what+=("stdout")
  cmp -s "$work/base/stderr" "$work/head/stderr" || what+=("stderr")
  if [ -e "$work/base/out" ] || [ -e "$work/head/out" ]; then
    diff -rq "$work/base/out" "$work/head/out" > /dev/null 2>&1 || what+=("output")
  fi
  if [ "${#what[@]}" -gt 0 ]; then
    different=$((different + 1))
    local first
    first="$(head -1 "$work/base/stderr" | cut -c1-200)"
    local keep="$differences/${name//[^A-Za-z0-9._-]/_}"
    mkdir -p "$keep"
    mv "$work/base" "$work/head" "$keep/"
    echo "DIFFERENT $name: ${what[*]}${first:+ (base stderr: $first)}; both sides in $keep"
  elif [ "$(cat "$work/base/rc")" != 0 ]; then
    refused=$((refused + 1))
    echo "same      $name (both refuse: $(head -1 "$work/base/stderr" | cut -c1-120))"
  else
    same=$((same + 1))
    echo "same      $name"
  fi
  rm -rf "$work/base" "$work/head"
}

section() { echo "== $1 ($((SECONDS - start)) s)"; }

# The input generators (Profile: pre-aggregated profiles, Campaign: a weigh campaign), compiled once.
javac -d "$work/helpers" "$helpers"/*.java

section "disasm: every program under build/programs"
mapfile -t all_programs < <(find "$programs" -type f -perm -u+x | sort)
[ "${#all_programs[@]}" -gt 0 ] || { echo "identical-outputs: no programs in $programs (make programs)" >&2; exit 2; }
for p in "${all_programs[@]}"; do
  rel="${p#"$programs"/}"
  check "disasm $rel" disasm "$p" -o "{out}"
  check "disasm --aliases $rel" disasm --aliases "$p" -o "{out}"
  check "disasm --format jsonl $rel" disasm --format jsonl "$p" -o "{out}"
done

section "patch --insert-at-entries: build/programs/rv64/*.relocs, *.norvc"
# Fragments: a one-line nop and a multi-instruction probe, for rv64gc and (*.norvc) for rv64g.
mkdir -p "$work/rv64gc" "$work/rv64g"
echo "addi zero, zero, 0" > "$work/rv64gc/nop.s"
cp "$root/examples/cycle-probe-begin.s" "$work/rv64gc/"
for f in nop.s cycle-probe-begin.s; do
  { echo ".target rv64g"; grep -v '^\.target' "$work/rv64gc/$f"; } > "$work/rv64g/$f"
done
for p in "$programs"/rv64/*.relocs "$programs"/rv64/*.norvc; do
  rel="${p#"$programs"/}"
  isa=rv64gc
  [[ "$p" == *.norvc ]] && isa=rv64g
  for f in nop.s cycle-probe-begin.s; do
    check "patch --insert-at-entries $isa/$f $rel" patch "$p" --insert-at-entries "$work/$isa/$f" --verbose -o "{out}"
  done
done

section "bat translate: every BOLT fixture"
fixtures="${BAT_FIXTURES:-$root/target/bat-fixtures}"
mapfile -t bolted < <(find "$fixtures" -maxdepth 1 -name '*.bolt' ! -name '*.perf2bolt.bolt' 2>/dev/null | sort)
if [ "${#bolted[@]}" -eq 0 ]; then
  fixtures="$cache/bat-fixtures"
  mapfile -t bolted < <(find "$fixtures" -maxdepth 1 -name '*.bolt' 2>/dev/null | sort)
fi
if [ "${#bolted[@]}" -eq 0 ]; then
  echo "no BOLT outputs: building them with llvm-bolt-22 in $fixtures"
  rm -rf "$fixtures.tmp"
  mkdir -p "$fixtures.tmp"
  # id, input (under build/programs), profile for BOLT (yes/no), options: BoltOutputs.CONFIGS.
  while read -r id input profile options; do
    command=(llvm-bolt-22 "$programs/$input" -o "$fixtures.tmp/$id.bolt" --enable-bat)
    if [ "$profile" = yes ]; then
      llvm-objdump-22 -d --no-show-raw-insn "$programs/$input" \
        | java -cp "$work/helpers" Profile 7 600 | grep '^B' > "$fixtures.tmp/$id.input.pa"
      perf2bolt-22 -p "$fixtures.tmp/$id.input.pa" --pa -o "$fixtures.tmp/$id.input.fdata" "$programs/$input" > /dev/null 2>&1
      command+=(--data "$fixtures.tmp/$id.input.fdata")
    fi
    read -r -a opts <<< "$options"
    "${command[@]}" "${opts[@]}" > "$fixtures.tmp/$id.log" 2>&1 || { cat "$fixtures.tmp/$id.log" >&2; exit 2; }
  done <<'EOF'
rv64-loops-reverse-hfsort rv64/loops.relocs no --reorder-blocks=reverse --reorder-functions=hfsort
rv64-loops-split-exttsp-cdsort-icf rv64/loops.relocs yes --split-functions --reorder-blocks=ext-tsp --reorder-functions=cdsort --icf
rv64-exceptions-split-hfsort rv64/exceptions.relocs yes --split-functions --reorder-blocks=ext-tsp --reorder-functions=hfsort
rv64-entries-reverse-icf rv64/bat_entries.relocs no --reorder-blocks=reverse --icf
x86_64-loops-splitall-exttsp-cdsort-icf x86_64/loops.relocs yes --split-functions --split-strategy=all --reorder-blocks=ext-tsp --reorder-functions=cdsort --icf
x86_64-exceptions-splitall-reverse-hfsort x86_64/exceptions.relocs yes --split-functions --split-strategy=all --reorder-blocks=reverse --reorder-functions=hfsort
x86_64-entries-splitall-reverse-icf x86_64/entries.relocs yes --split-functions --split-strategy=all --reorder-blocks=reverse --icf
x86_64-static-exceptions-inplace-reverse x86_64-static/exceptions yes --reorder-blocks=reverse
rv64-exceptions-inplace-reverse rv64/exceptions yes --reorder-blocks=reverse
x86_64-pie-loops-reverse x86_64-pie/loops no --reorder-blocks=reverse
EOF
  mv "$fixtures.tmp" "$fixtures"
  mapfile -t bolted < <(find "$fixtures" -maxdepth 1 -name '*.bolt' | sort)
fi
for b in "${bolted[@]}"; do
  id="$(basename "$b" .bolt)"
  pa="$work/$id.pa"
  llvm-objdump-22 -d --no-show-raw-insn "$b" | java -cp "$work/helpers" Profile 11 20000 > "$pa"
  check "bat translate fdata $id" bat translate "$b" --pa "$pa" -o "{out}"
  check "bat translate yaml $id" bat translate "$b" --pa "$pa" --format yaml -o "{out}"
  check "bat translate --ba $id" bat translate "$b" --pa "$pa" --ba -o "{out}"
  rm -f "$pa"
done

section "bat translate: every program under build/programs (no tables: perf2bolt's work)"
for p in "${all_programs[@]}"; do
  rel="${p#"$programs"/}"
  pa="$work/plain.pa"
  llvm-objdump-22 -d --no-show-raw-insn "$p" | java -cp "$work/helpers" Profile 13 20000 > "$pa"
  check "bat translate fdata $rel" bat translate "$p" --pa "$pa" -o "{out}"
  check "bat translate --ba $rel" bat translate "$p" --pa "$pa" --ba -o "{out}"
done
rm -f "$work/plain.pa"

section "weigh model: a fixed synthetic campaign, fixed seed"
java -cp "$work/helpers" Campaign "$work/campaign"
check "weigh model synthetic campaign" weigh model "$work/campaign" -o "{out}" --bootstrap 199 --seed 11 \
  --threads 2 --skip-bad-rows --no-progress

echo "== $((same + refused + different)) comparisons: $same same, $refused refused by both with the same message," \
  "$different different ($((SECONDS - start)) s)"
[ "$different" -eq 0 ]
