#!/usr/bin/env python3
"""The measuring half of bench/weigh-predict.sh (issue 12): reference contexts, the interleaved
timing loop, and the table.

The weights were measured at another time than the programs run, on a host whose speed drifts by
tens of percent over minutes (docs/weigh-model.md, session 11). So the loop also re-measures the
contexts that carry most of the predicted time, one run of a campaign per round, between the
program runs, and each prediction is also given with the weights of the moment: a term priced by a
re-measured context takes its seconds times that context's now/then ratio (the term's first
context: the price of a term of several contexts is their precision-weighted mean, and they move
together), every other term the index of the whole: the log-mean of the ratios weighted by the
seconds each context carries in the predictions, with a delta-method interval from both
campaigns' standard errors. Contexts do not drift alike: between two formal campaigns 30 minutes
apart (session 11) the taken-branch price moved by 32%, the ALU contexts by 4-7%. Both errors are
printed: the prediction as published, and at the weights of the moment.

  weigh-predict.py reference N PREDICTION.json...    the N contexts with the most predicted seconds
  weigh-predict.py loop RUNS WORK REF JAR PROGRAM...   PROGRAM: name|short command|long command
  weigh-predict.py table WORK WEIGHTS REF_WEIGHTS PROGRAM...
"""
import json
import math
import random
import resource
import statistics
import subprocess
import sys

TERM_KINDS = ("classes", "blocks", "memory")


def terms(prediction):
    """(first context, seconds) of each priced term of a `weigh predict --json` object."""
    for kind in TERM_KINDS:
        for term in prediction.get(kind, []):
            seconds = term.get("seconds") or 0.0
            if seconds > 0 and term.get("contexts"):
                yield term["contexts"][0], seconds


def carried_seconds(predictions):
    """Per context: the predicted seconds of the terms it prices first, summed over the programs."""
    carried = {}
    for path in predictions:
        for context, seconds in terms(json.load(open(path))):
            carried[context] = carried.get(context, 0.0) + seconds
    return carried


def reference(n, predictions):
    carried = carried_seconds(predictions)
    print(",".join(sorted(carried, key=carried.get, reverse=True)[:n]))


def cpu_seconds(command):
    """User + system CPU time of one plain qemu-riscv64 run of COMMAND."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["qemu-riscv64"] + command.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def loop(runs, work, ref, programs, splice):
    """RUNS rounds; each round one more run of the reference campaign (resumed, so that the rounds
    make one campaign) and one run of each program's two lengths, short and long alternating."""
    times = {p.split("|")[0]: {"short": [], "long": []} for p in programs}
    for r in range(1, runs + 1):
        subprocess.run(splice + ["weigh", "measure", "--contexts", ref, "--runs", str(r), "--rounds", "4",
                                 "--seed", "21", "--resume", "--no-progress", "-o", f"{work}/reference"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for p in programs:
            name, short, long_ = p.split("|")
            times[name]["short"].append(cpu_seconds(short))
            times[name]["long"].append(cpu_seconds(long_))
    json.dump(times, open(f"{work}/times.json", "w"), indent=1)


def estimates(weights_path):
    return {c["context"]: c for c in json.load(open(weights_path))["contexts"]}


def speed_index(then, now, carried):
    """(index, low, high, per-context lines): the carried-seconds-weighted log-mean of now/then."""
    logs, lines = [], []
    for context, w in sorted(now.items()):
        t = then.get(context)
        if t is None or t["estimate_ns"] <= 0 or w["estimate_ns"] <= 0 or context not in carried:
            continue
        log_ratio = math.log(w["estimate_ns"] / t["estimate_ns"])
        variance = (w["se_ns"] / w["estimate_ns"]) ** 2 + (t["se_ns"] / t["estimate_ns"]) ** 2
        logs.append((carried[context], log_ratio, variance))
        lines.append(f"{context} {math.exp(log_ratio):.3f} (+-{1.96 * math.sqrt(variance):.3f} in log)")
    total = sum(c for c, _, _ in logs)
    mean = sum(c * l for c, l, _ in logs) / total
    sd = math.sqrt(sum(c * c * v for c, _, v in logs)) / total
    return math.exp(mean), math.exp(mean - 1.96 * sd), math.exp(mean + 1.96 * sd), lines


def table(work, weights, ref_weights, programs):
    names = [p.split("|")[0] for p in programs]
    carried = carried_seconds([f"{work}/{name}.prediction.json" for name in names])
    then, now = estimates(weights), estimates(ref_weights)
    index, low, high, lines = speed_index(then, now, carried)
    ratios = {c: now[c]["estimate_ns"] / then[c]["estimate_ns"] for c in now
              if c in then and then[c]["estimate_ns"] > 0 and now[c]["estimate_ns"] > 0}
    print("now/then per re-measured context: " + "; ".join(lines))
    print(f"host speed index now/then: {index:.3f} [{low:.3f}, {high:.3f}]")
    times = json.load(open(f"{work}/times.json"))
    print(f"{'program':<17} {'measured_s':>10} {'measured_band_s':>19} {'predicted_s':>11} {'error':>7} "
          f"{'at_now_s':>9} {'error':>7} {'band_s':>19} {'unpriced':>8} {'fastest_s':>9} {'error':>7} {'spread':>6}")
    errors, errors_now, errors_fast = [], [], []
    for name in names:
        s, l = times[name]["short"], times[name]["long"]
        measured = statistics.median(l) - statistics.median(s)
        # the measurement's own 95% interval: the runs resampled (a percentile bootstrap of the
        # difference of medians)
        rng = random.Random(1)
        boot = sorted(statistics.median(rng.choices(l, k=len(l))) - statistics.median(rng.choices(s, k=len(s)))
                      for _ in range(999))
        pred = json.load(open(f"{work}/{name}.prediction.json"))
        p_s = pred["predicted_s"]
        priced = list(terms(pred))
        at_now = p_s + sum(sec * (ratios.get(c, index) - 1) for c, sec in priced)
        error, error_now = (p_s - measured) / measured, (at_now - measured) / measured
        # a host whose speed per process has modes (docs/weigh-model.md, session 16) shows a wide
        # spread of the long runs; the difference of the fastest runs is then the fast mode's
        fastest = min(l) - min(s)
        error_fast = (p_s - fastest) / fastest
        errors.append(abs(error))
        errors_now.append(abs(error_now))
        errors_fast.append(abs(error_fast))
        print(f"{name:<17} {measured:10.4f} [{boot[24]:.4f}, {boot[974]:.4f}] {p_s:11.4f} {100 * error:+6.1f}% "
              f"{at_now:9.4f} {100 * error_now:+6.1f}% [{pred['low_s']:.4f}, {pred['high_s']:.4f}] "
              f"{100 * pred['unpriced_share']:7.2f}% {fastest:9.4f} {100 * error_fast:+6.1f}% {max(l) / min(l):6.2f}")
    print(f"median |error|: {100 * statistics.median(errors):.1f}% as published, "
          f"{100 * statistics.median(errors_now):.1f}% at the weights of the moment; "
          f"largest {100 * max(errors):.1f}% and {100 * max(errors_now):.1f}%; "
          f"against the fastest runs: median {100 * statistics.median(errors_fast):.1f}%, largest {100 * max(errors_fast):.1f}%")


def main(argv):
    command = argv[1]
    if command == "reference":
        reference(int(argv[2]), argv[3:])
    elif command == "loop":
        loop(int(argv[2]), argv[3], argv[4], argv[6:], ["java", "-Xmx512m", "-jar", argv[5]])
    elif command == "table":
        table(argv[2], argv[3], argv[4], argv[5:])
    else:
        sys.exit(f"weigh-predict.py: unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
