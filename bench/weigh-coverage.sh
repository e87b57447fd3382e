#!/usr/bin/env bash
# Family-wise coverage of `splice weigh model`'s simultaneous 95% band on simulated campaigns
# (dev.splice.weigh.model.CoverageSimulation): K = 10, 100, 400 contexts, 12 runs x 10 probe rounds
# x 3 batch sizes, Student-t(4) within-run noise with shifted, translated and interrupted pairs, a
# run-to-run SD of 0, 1, 3, 5 within-run SEs, independent or half common to all contexts; B = 999.
# Requirement (issue 12): every cell covers all truths in 93% to 97% of its campaigns.
# Usage: bench/weigh-coverage.sh [CAMPAIGNS_PER_CELL (400; K = 400 cells get half)] [THREADS] [COVERAGE_JSON]
# The cells also go to COVERAGE_JSON (default target/coverage.json), which `splice weigh model
# --coverage FILE` draws in report.html.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-400}"
T="${2:-$(nproc)}"
OUT="${3:-target/coverage.json}"
[ -f target/splice-cli.jar ] || make -s jar >&2
mvn -B -q -o test-compile
echo "campaigns per cell: $N, threads: $T, processors: $(nproc), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f 'wall %e s, user %U s, peak RSS %M KiB' \
  java -cp target/test-classes:target/splice-cli.jar dev.splice.weigh.model.CoverageSimulation "$N" "$T" "$OUT"
echo "wrote $OUT"
