#!/usr/bin/env bash
# Wall time and peak memory of `splice weigh model` on a synthetic campaign the size of seed 003's
# formal run: 12 runs, 213 contexts, 10 probe rounds x 3 batch sizes = 76,680 pairs, B = 999.
# Target: at most 30 s on the 2-core machine. Then (issue 12: under 1 GB) one the size of today's
# formal profile: 349 contexts, 30 rounds of the batches 1024, 4096, 16384 = 376,920 pairs, with
# the heap ./splice gives weigh (512 MB). Usage: bench/weigh-model.sh [REPLICATES]
set -euo pipefail
cd "$(dirname "$0")/.."
B="${1:-999}"
[ -f target/splice-cli.jar ] || make -s jar >&2
mvn -B -q test-compile
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
java -cp target/test-classes:target/splice-cli.jar dev.splice.weigh.model.SyntheticCampaign "$work/campaign" 213 1
echo "bootstrap replicates: $B, processors: $(nproc), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f 'wall %e s, user %U s, system %S s, peak RSS %M KiB' \
  java -jar target/splice-cli.jar weigh model "$work/campaign" -o "$work/out" --bootstrap "$B" --no-progress
python3 - "$work/out/weights.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
b = w["bootstrap"]
print("contexts %d, high %d, valid replicates %d/%d, c = %.4f (99: %.4f), width ratio median %.4f p95 %.4f"
      % (len(w["contexts"]), w["quality"]["high"], b["valid_replicates"], b["replicates"], b["critical_value"],
         b["critical_value_99"] or float("nan"), b["width_ratio_median"] or float("nan"), b["width_ratio_p95"] or float("nan")))
PY

java -cp target/test-classes:target/splice-cli.jar dev.splice.weigh.model.SyntheticCampaign "$work/formal" 349 1 30 \
  1024,4096,16384
/usr/bin/time -f 'formal-sized: wall %e s, user %U s, system %S s, peak RSS %M KiB' \
  java -Xmx512m -jar target/splice-cli.jar weigh model "$work/formal" -o "$work/formal-out" --bootstrap "$B" --no-progress
