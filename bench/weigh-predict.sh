#!/usr/bin/env bash
# `splice weigh predict` against measured run time (issue 12 point 7): for each program, two run
# lengths; the prediction of their difference (`--minus`, so start-up cancels) against the
# difference of the median CPU time (user + system) of plain `qemu-riscv64` over RUNS runs of each.
# Programs: the project's count_loop and loops, bzip2 (compress, decompress) and lua 5.4 built from
# Debian's source packages (`apt-get source`, through a private deb-src list; static, -O2).
# WEIGHTS=FILE uses a weights.json; otherwise a campaign of every context is measured first
# (CAMPAIGN_RUNS x CAMPAIGN_ROUNDS, default 3 x 3: about 5 minutes) and modelled.
# Needs `make plugin` (a plugin with the catalog mode's block counts and run dynamics: exits as taken,
# branch directions, jump-cache lookups, loads by cache level) and the RISC-V programs. Prints the
# load average before and after (the measured medians move with the machine's load), and per program
# what the prediction is made of: classes, block exits, memory levels beyond L1. measured_band_s: the
# measured difference's own 95% interval (the runs resampled); a change of host speed between
# invocations is not in it (docs/weigh-model.md, session 11). So each of the RUNS rounds also adds one
# run of a campaign of the REFERENCE_CONTEXTS (default 6) contexts that carry most of the predicted
# seconds, and the table gives each prediction twice: as published, and with the weights of the
# moment (the terms of re-measured contexts scaled by their now/then, the rest by the index of the
# whole; bench/weigh-predict.py), then the difference of the fastest runs of each length and the
# spread of the long runs (a host whose speed per process has modes, docs/weigh-model.md session 16).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[ -f build/qemu-plugin/libsplice-plugin.so ] || [ -n "${SPLICE_PLUGIN:-}" ] || { echo "run 'make plugin' first" >&2; exit 1; }
[ -f target/splice-cli.jar ] || make -s jar >&2
splice() { java -Xmx512m -jar "$root/target/splice-cli.jar" "$@"; }
RUNS=${RUNS:-11}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
src="$root/build/bench-src"
mkdir -p "$src/lists/partial"

# Debian sources: bzip2 and lua5.4, built static for rv64
if [ ! -x "$src/bzip2.rv64" ] || [ ! -x "$src/lua.rv64" ]; then
  printf 'deb-src http://deb.debian.org/debian bookworm main\n' > "$src/sources.list"
  apt=(-o Dir::Etc::SourceList="$src/sources.list" -o Dir::Etc::SourceParts=/nonexistent
       -o Dir::State::Lists="$src/lists" -o Debug::NoLocking=1)
  (cd "$src" && apt-get "${apt[@]}" update >/dev/null && apt-get "${apt[@]}" source --download-only bzip2 lua5.4 >/dev/null 2>&1)
  (cd "$src" && tar xzf bzip2_*.orig.tar.gz && tar xzf lua5.4_*.orig.tar.gz)
  (cd "$src"/bzip2-*/ && riscv64-linux-gnu-gcc -O2 -static -D_FILE_OFFSET_BITS=64 -o "$src/bzip2.rv64" \
      blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c bzip2.c)
  (cd "$src"/lua-*/src && riscv64-linux-gnu-gcc -O2 -static -DLUA_USE_POSIX -o "$src/lua.rv64" \
      $(ls ./*.c | grep -v luac.c) -lm)
fi

# inputs: deterministic text-like data for bzip2, a lua script whose work is linear in its argument
python3 - "$work" <<'PY'
import random, sys, bz2
d = sys.argv[1]
r = random.Random(7)
words = [''.join(r.choice('etaoinshrdlucmfwyp') for _ in range(r.randint(2, 9))) for _ in range(500)]
for name, n in (("small", 300_000), ("large", 1_500_000)):
    text = ' '.join(r.choice(words) for _ in range(n // 6)).encode()[:n]
    open(f"{d}/{name}.txt", "wb").write(text)
    open(f"{d}/{name}.txt.bz2", "wb").write(bz2.compress(text))
open(f"{d}/work.lua", "w").write('''
local n = tonumber(arg[1])
local t, s = {}, 0
for i = 1, n do t[i % 1000 + 1] = (t[i % 1000 + 1] or 0) + i * 3 % 7 end
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
for i = 1, n // 20000 do s = s + fib(15) end
local parts = {}
for i = 1, n // 100 do parts[#parts + 1] = string.format("%d:%s", i, tostring(i * 7)) end
print(s + #table.concat(parts, ","))
''')
PY

B=build/programs/rv64
programs=(
  "count_loop|$B/count_loop 10000000|$B/count_loop 90000000"
  "loops|$B/loops 200000|$B/loops 2000000"
  "bzip2-compress|$src/bzip2.rv64 -c -9 $work/small.txt|$src/bzip2.rv64 -c -9 $work/large.txt"
  "bzip2-decompress|$src/bzip2.rv64 -dc $work/small.txt.bz2|$src/bzip2.rv64 -dc $work/large.txt.bz2"
  "lua|$src/lua.rv64 $work/work.lua 200000|$src/lua.rv64 $work/work.lua 2000000"
)

if [ -z "${WEIGHTS:-}" ]; then
  splice weigh measure --contexts '*' --runs "${CAMPAIGN_RUNS:-3}" --rounds "${CAMPAIGN_ROUNDS:-3}" --seed 11 \
    --no-progress -o "$work/campaign" >&2
  splice weigh model "$work/campaign" -o "$work/model" >&2
  WEIGHTS=$work/model/weights.json
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# catalogs and predictions first: they are counts and the fixed weights, not timed
for p in "${programs[@]}"; do
  IFS='|' read -r name short long <<<"$p"
  # shellcheck disable=SC2086
  splice weigh catalog -o "$work/$name.short.json" -- $short >/dev/null 2>&1 || true
  # shellcheck disable=SC2086
  splice weigh catalog -o "$work/$name.long.json" -- $long >/dev/null 2>&1 || true
  splice weigh predict "$WEIGHTS" "$work/$name.long.json" --minus "$work/$name.short.json" --json > "$work/$name.prediction.json"
done
# the contexts that carry most of the predicted seconds, re-measured between the program runs
ref=$(python3 bench/weigh-predict.py reference "${REFERENCE_CONTEXTS:-6}" "$work"/*.prediction.json)
echo "re-measured between the runs: $ref"
rm -rf "$work/reference"
python3 bench/weigh-predict.py loop "$RUNS" "$work" "$ref" "$root/target/splice-cli.jar" "${programs[@]}"
splice weigh model "$work/reference" -o "$work/reference-model" >/dev/null 2>&1
python3 bench/weigh-predict.py table "$work" "$WEIGHTS" "$work/reference-model/weights.json" "${programs[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "weights: $WEIGHTS; work: $work"
