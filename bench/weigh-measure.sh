#!/usr/bin/env bash
# Cost of a measurement campaign (issue 4 section 7): wall time of the quick profile, an estimate
# of the formal profile (one formal run with one round, extrapolated to 12 runs x 30 rounds),
# the plugin's overhead (the guest clock of the same windows in the timing pass against the
# plugin-off pass), windows per second, and (issue 12) the pairs an interrupt hit by context and
# batch. Needs `make plugin`; builds target/splice-cli.jar if missing. FORMAL=0 skips the formal
# estimate. FORMAL_FULL=1 runs the whole formal campaign (about 20 min on a quiet 2-core machine)
# into FORMAL_DIR if set, then models it: wall time and peak RSS of both (each must stay under 1 GB),
# contexts high-confidence, gate failures by gate, the band's half-widths, the interrupt background.
# WINDOWS=1 compares the costly contexts' campaigns with and without windows sized per context (issue
# 12, session 9). The system-mode profiles (issue 13) follow at the end: SYSTEM=0
# skips them, SYSTEM_FORMAL=1 runs the formal system campaign (hours).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/qemu-plugin/libsplice-plugin.so ] || { echo "run 'make plugin' first" >&2; exit 1; }
[ -f target/splice-cli.jar ] || make -s jar >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() { # command...: wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

report() { # DIR WALL LABEL
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys, statistics, struct, glob, os
d, wall, label = sys.argv[1], float(sys.argv[2]), sys.argv[3]
m = json.load(open(os.path.join(d, "manifest.json")))
windows = sum(json.load(open(f))["windows"] for f in glob.glob(os.path.join(d, "runs/*/run.json")))
print(f"{label}: {len(m['contexts'])} contexts, {m['options']['runs']} runs x {m['options']['rounds']} rounds, "
      f"{windows} windows per pass (warm-ups included)")
print(f"  wall time {wall:.1f} s; {3 * windows / wall:.0f} windows/s over the 3 passes")
def clock(path):
    b = open(path, "rb").read()
    t0, s0, n0, _, t1, s1, n1, _ = struct.unpack_from("<8q", b, 0)
    tpn = (t1 - t0) / ((s1 - s0) * 1e9 + (n1 - n0))
    w = [struct.unpack_from("<2q", b, 64 + 16 * i) for i in range((len(b) - 64) // 16)]
    return [(e - s) / tpn for s, e in w]
ratios = []
for run in sorted(glob.glob(os.path.join(d, "runs/*"))):
    on, off = clock(os.path.join(run, "timing.clock")), clock(os.path.join(run, "off.clock"))
    ratios += [a / b for a, b in zip(on, off) if b > 0]
print(f"  plugin overhead (timing pass / plugin-off pass, same windows, guest clock): median ratio "
      f"{statistics.median(ratios):.3f}")
on = {}; off = {}
for f, dst, p, b in (("pairs.jsonl", on, "probe_guest_ns", "baseline_guest_ns"),
                     ("pairs-off.jsonl", off, "probe_guest_ns", "baseline_guest_ns")):
    for line in open(os.path.join(d, f)):
        r = json.loads(line)
        dst.setdefault(r["context"], []).append((r[p] - r[b]) / r["batch"])
cpu = {}
for line in open(os.path.join(d, "pairs.jsonl")):
    r = json.loads(line)
    cpu.setdefault(r["context"], []).append((r["probe_ns"] - r["baseline_ns"]) / r["batch"])
print("  per-instruction contrast, median ns:  thread-CPU (plugin on) | guest clock on | guest clock off | on - off")
for c in sorted(on):
    a, g, o = statistics.median(cpu[c]), statistics.median(on[c]), statistics.median(off[c])
    print(f"    {c:32s} {a:9.3f} {g:9.3f} {o:9.3f} {g - o:+8.3f}")
PY
}

hits() { # DIR: pairs an interrupt hit (probe minus baseline more than 10 us off its context's and batch's median)
  python3 - "$1" <<'PY'
import json, sys, statistics
from collections import defaultdict
groups = defaultdict(list)
for line in open(sys.argv[1] + "/pairs.jsonl"):
    r = json.loads(line)
    if r["translations"] == 0:
        groups[(r["context"], r["batch"])].append(r)
hit = total = 0
exposure = 0.0
print("  pairs hit by an interrupt (probe - baseline more than 10 us off the median of its context and batch):")
for (context, batch), rows in sorted(groups.items()):
    d = [r["probe_ns"] - r["baseline_ns"] for r in rows]
    m = statistics.median(d)
    h = sum(abs(x - m) > 10_000 for x in d)
    hit += h
    total += len(rows)
    exposure += sum(r["probe_ns"] + r["baseline_ns"] for r in rows)
    window = statistics.median(r["probe_ns"] for r in rows) / 1000
    print(f"    {context:28s} {batch:6d} targets, probe window {window:8.1f} us: {h}/{len(rows)}")
print(f"    all: {hit}/{total} pairs ({100 * hit / total:.1f}%), {exposure / 1e6:.1f} ms of windows")
PY
}

formal_summary() { # WEIGHTS: what issue 12 asks of a formal campaign's model
  python3 - "$1" <<'PY'
import json, statistics, sys
w = json.load(open(sys.argv[1]))
q, bg, b = w["quality"], w["campaign"]["interrupts"], w["bootstrap"]
print(f"  {len(w['contexts'])} contexts, {q['high']} high-confidence, {q['low']} low; critical value {b['critical_value']:.3f}")
print("  gate failures: " + ", ".join(f"{g} {n}" for g, n in sorted(q["gate_failures"].items(), key=lambda x: -x[1])))
print(f"  interrupt background {bg['rate_per_ms']:.3f} events per ms of CPU time, mean event {bg['mean_event_us']:.1f} us, "
      f"median {bg['median_event_us']:.1f} us, {len(bg['contexts_above_background'])} contexts above it")
hw = sorted((c["ci_high_ns"] - c["ci_low_ns"]) / 2 for c in w["contexts"] if c["ci_high_ns"] is not None)
rel = sorted((c["ci_high_ns"] - c["ci_low_ns"]) / 2 / c["estimate_ns"] for c in w["contexts"]
             if c["ci_high_ns"] is not None and c["estimate_ns"] and c["estimate_ns"] > 0)
pick = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
print(f"  band half-widths: median {pick(hw, 0.5):.4f} ns (10%: {pick(hw, 0.1):.4f}, 90%: {pick(hw, 0.9):.4f}, "
      f"max {hw[-1]:.4f}); relative to the estimate: median {100 * pick(rel, 0.5):.1f}%, 90% {100 * pick(rel, 0.9):.1f}%")
ovh = [c["interrupt_overhead_ns"] / c["estimate_ns"] for c in w["contexts"]
       if c.get("interrupt_overhead_ns") and c["estimate_ns"] and c["estimate_ns"] > 0]
if ovh:
    print(f"  expected interrupt overhead: median {100 * statistics.median(ovh):.2f}% of the weight")
PY
}

wall=$(seconds java -jar target/splice-cli.jar weigh measure --profile quick -o "$work/quick")
report "$work/quick" "$wall" "quick profile"
hits "$work/quick"

if [ "${FORMAL:-1}" != 0 ]; then
  # one formal run with 1 and with 2 rounds: the difference is the cost of a round, the rest is
  # per-run cost (generating the executable, the block count, QEMU start-up, the JVM)
  wall1=$(seconds java -jar target/splice-cli.jar weigh measure --profile formal --runs 1 --rounds 1 -o "$work/formal1")
  report "$work/formal1" "$wall1" "formal profile, 1 run x 1 round"
  wall2=$(seconds java -jar target/splice-cli.jar weigh measure --profile formal --runs 1 --rounds 2 -o "$work/formal2")
  echo "formal profile, 1 run x 2 rounds: wall time $(printf '%.1f' "$wall2") s"
  python3 - "$wall1" "$wall2" <<'PY'
import sys
w1, w2 = map(float, sys.argv[1:])
rnd = max(w2 - w1, 0.0)
fixed = w1 - rnd
print(f"  one round {rnd:.1f} s, per-run fixed cost {fixed:.1f} s")
print(f"  formal estimate (12 runs x 30 rounds): {12 * (fixed + 30 * rnd) / 60:.0f} min")
PY
fi

if [ "${FORMAL_FULL:-0}" = 1 ]; then
  formal=${FORMAL_DIR:-$work/formal}
  /usr/bin/time -f '  weigh measure --profile formal: wall %e s, CPU %U + %S s, peak RSS %M KiB' \
    java -Xmx512m -jar target/splice-cli.jar weigh measure --profile formal -o "$formal" >/dev/null
  hits "$formal" | tail -1
  /usr/bin/time -f '  weigh model: wall %e s, CPU %U + %S s, peak RSS %M KiB' \
    java -Xmx512m -jar target/splice-cli.jar weigh model "$formal" -o "$formal/model" --no-progress >/dev/null
  formal_summary "$formal/model/weights.json"
fi

# Windows sized per context (issue 12, session 9; WINDOWS=1, into WINDOWS_DIR if set): the costly
# contexts with every kernel at 1024 slots (--window-us 0, the design before) and sized by the pilot
# (the default), in user mode (4 runs x 30 rounds) and system mode (4 x 20), each modelled; per context
# the slots, the median 16-call window, the pairs hit, the estimate and its band half-width, the quality.
if [ "${WINDOWS:-0}" = 1 ]; then
  wd=${WINDOWS_DIR:-$work/windows}
  mkdir -p "$wd"
  costly_user='jalr.*,c.jr.*,c.jalr.*,div*,rem*,fsqrt.*,fdiv.*,csrrs.fflags,csrrw.frm,csrrs.time,csrrs.cycle'
  costly_system='csrrs.sscratch.smode,csrrw.sstatus.smode,csrrw.satp.smode,csrrs.time.smode,csrrw.stvec.smode'
  costly_system+=',ecall.smode,ebreak.smode,csrrs.mstatus.mmode,csrrw.mepc.mmode,csrrs.mscratch.mmode'
  for w in 0 32; do
    java -Xmx512m -jar target/splice-cli.jar weigh measure --contexts "$costly_user" --runs 4 --rounds 30 --seed 21 \
      --window-us $w -o "$wd/user-w$w" >/dev/null
    java -Xmx512m -jar target/splice-cli.jar weigh model "$wd/user-w$w" -o "$wd/user-w$w-model" --no-progress >/dev/null
    java -Xmx512m -jar target/splice-cli.jar weigh measure --mode system --contexts "$costly_system" --runs 4 \
      --rounds 20 --seed 21 --window-us $w -o "$wd/sys-w$w" >/dev/null
    java -Xmx512m -jar target/splice-cli.jar weigh model "$wd/sys-w$w" -o "$wd/sys-w$w-model" --no-progress >/dev/null
  done
  (cd "$wd" && python3 - user sys <<'PY'
import json, sys, statistics
from collections import defaultdict
def load(d):
    groups = defaultdict(list)
    for line in open(d + "/pairs.jsonl"):
        r = json.loads(line)
        if r["translations"] == 0:
            groups[(r["context"], r["batch"], r["calls"])].append(r)
    return groups
def hits(groups):
    per = defaultdict(lambda: [0, 0, 0.0])
    for (c, b, calls), rows in groups.items():
        d = [r["probe_ns"] - r["baseline_ns"] for r in rows]
        m = statistics.median(d)
        per[c][0] += sum(abs(x - m) > 10_000 for x in d)
        per[c][1] += len(rows)
        if calls == 16:
            per[c][2] = statistics.median(max(r["probe_ns"], r["baseline_ns"]) for r in rows) / 1000
    return per
def weights(d):
    w = json.load(open(d + "-model/weights.json"))
    return w, {c["context"]: c for c in w["contexts"]}
for pre in sys.argv[1:]:
    b, a = pre + "-w0", pre + "-w32"
    hb, ha = hits(load(b)), hits(load(a))
    wb, cb = weights(b)
    wa, ca = weights(a)
    print(f"== {pre}: before (1024 slots) / after (design.json) ==")
    for label, w in (("before", wb), ("after", wa)):
        q = w["quality"]; bg = w["campaign"]["interrupts"]
        print(f"  {label}: {len(w['contexts'])} contexts, {q['high']} high-confidence; gates {q['gate_failures']}; "
              f"background {bg['rate_per_ms']:.3f}/ms")
    tb = sum(v[0] for v in hb.values()), sum(v[1] for v in hb.values())
    ta = sum(v[0] for v in ha.values()), sum(v[1] for v in ha.values())
    print(f"  pairs hit: before {tb[0]}/{tb[1]} ({100*tb[0]/tb[1]:.1f}%), after {ta[0]}/{ta[1]} ({100*ta[0]/ta[1]:.1f}%)")
    design = json.load(open(a + "/design.json"))["contexts"]
    print(f"  {'context':32s} {'slots':>5s} {'win16 us b/a':>14s} {'hit b':>8s} {'hit a':>8s} {'estimate b +- hw':>20s} {'estimate a +- hw':>20s} q b/a")
    for c in sorted(ca):
        x, y = cb.get(c), ca[c]
        def f(z):
            if z is None or z["estimate_ns"] is None: return "-"
            hw = (z["ci_high_ns"] - z["ci_low_ns"]) / 2 if z["ci_high_ns"] is not None else float("nan")
            return f"{z['estimate_ns']:.3f} +- {hw:.3f}"
        hbc, hac = hb.get(c, [0, 0, 0]), ha.get(c, [0, 0, 0])
        print(f"  {c:32s} {design.get(c, {}).get('slots', '-'):>5} {hbc[2]:6.1f}/{hac[2]:6.1f} {hbc[0]:>3}/{hbc[1]:<4} {hac[0]:>3}/{hac[1]:<4} {f(x):>20s} {f(y):>20s} {x['quality'] if x else '-'}/{y['quality']}")
    rel = lambda C: statistics.median((z["ci_high_ns"] - z["ci_low_ns"]) / 2 / z["estimate_ns"] for z in C.values()
                                      if z["ci_high_ns"] is not None and z["estimate_ns"] and z["estimate_ns"] > 0)
    print(f"  median relative band half-width: before {100*rel(cb):.1f}%, after {100*rel(ca):.1f}%")
PY
  )
fi

# System mode (issue 13, docs/weigh-system.md): the same campaign on qemu-system-riscv64. Each
# profile prints wall time, windows per second, peak memory (the largest process: the JVM or one
# QEMU) and the plugin's overhead against the plugin-off pass. Every command runs through ./splice,
# so with the heap cap it gives weigh (512 MB): a bare java -jar lets the heap grow to a quarter of RAM.
#   quick: a few user contexts (run in S-mode with the system-only ones) and representative
#          system-only ones (S- and M-mode, the timer interrupt), 2 runs x 4 rounds; then the
#          two-hart contexts (-smp 2, a campaign of their own), 2 runs x 4 rounds;
#   formal estimate: the formal system set, 1 run x 1 round and 1 run x 2 rounds, extrapolated to
#          12 runs x 10 rounds (as the user-mode estimate above);
#   formal (SYSTEM_FORMAL=1, into SYSTEM_FORMAL_DIR if set, resumable): the formal system set and the
#          two-hart contexts, 12 runs x 10 rounds each, and the user-mode campaign of the same user
#          contexts; the models' summaries, the side-by-side table (user, system, ratio) and
#          weigh report --compare's page. About 10 minutes on a quiet 2-core machine (the estimate
#          says how long on this one).
timed() { # command...: wall seconds and peak RSS in MiB of the largest process it ran
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.time()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(f"{time.time() - t:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f}")
PY
}

system_campaign() { # LABEL DIR ARGS...: a timed system-mode campaign and its report
  local label=$1 dir=$2 wall peak
  shift 2
  read -r wall peak < <(timed ./splice weigh measure --mode system "$@" -o "$dir")
  report "$dir" "$wall" "$label"
  echo "  peak memory ${peak} MiB"
}

summary() { # WEIGHTS: contexts, high-confidence count, gate failures, representative costs
  python3 - "$1" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
q = w["quality"]
print(f"  {len(w['contexts'])} contexts, {q['high']} high-confidence, {q['low']} low; gate failures {q['gate_failures']}")
for c in w["contexts"]:
    e = c["estimate_ns"]
    print(f"    {c['context']:40s} {'-' if e is None else f'{e:10.3f}':>10} ns  {c['quality']:4s} against {c['baseline']}")
PY
}

if [ "${SYSTEM:-1}" != 0 ]; then
  user_set="addi.independent,mul.dependency,ld.hot-load,sd.hot-store,jalr.indirect-jump,beq.taken,amoadd.d.amo"
  system_quick="addi.independent,ld.hot-load,ld.hot-load.smode,csrrs.sscratch.smode,csrrw.sscratch.smode,ecall.smode"
  system_quick+=",csrrw.cycle.illegal.smode,ld.tlb-miss.smode,ld.page-fault.smode,amoadd.d.amo.smode,fence.i.smode"
  system_quick+=",csrrs.mstatus.mmode,csrrw.mscratch.mmode,csrrw.stimecmp.timer-interrupt.smode"
  # the formal system set: about 10 minutes of a quiet 2-core machine at 12 x 10 (docs/weigh-system.md)
  system_formal="$user_set,csrrs.sscratch.smode,csrrw.sscratch.smode,csrrs.sstatus.smode,csrrw.satp.smode"
  system_formal+=",csrrs.time.smode,ld.mmio-mtime.smode,ecall.smode"
  system_formal+=",csrrw.cycle.illegal.smode,wfi.smode,ld.hot-load.smode,ld.tlb-miss.smode"
  system_formal+=",ld.page-fault.smode,amoadd.d.amo.smode,fence.i.smode,csrrw.stimecmp.timer-interrupt.smode"
  system_formal+=",csrrs.mstatus.mmode,csrrw.mstatus.mmode,csrrs.mstatus.set.mmode,csrrs.mepc.mmode,csrrw.mtvec.mmode"
  system_formal+=",csrrw.mscratch.mmode,ecall.mmode,mret.mmode"
  two_harts='*.smp2.*'

  system_campaign "system mode, quick profile" "$work/system-quick" --profile quick --contexts "$system_quick"
  system_campaign "system mode, two harts, quick profile" "$work/system-smp2-quick" --profile quick --contexts "$two_harts"

  wall1=$(seconds ./splice weigh measure --mode system --profile formal --contexts "$system_formal" \
    --runs 1 --rounds 1 --jobs 2 -o "$work/system-formal1")
  report "$work/system-formal1" "$wall1" "system mode, formal set, 1 run x 1 round"
  wall2=$(seconds ./splice weigh measure --mode system --profile formal --contexts "$system_formal" \
    --runs 1 --rounds 2 --jobs 2 -o "$work/system-formal2")
  wall3=$(seconds ./splice weigh measure --mode system --profile formal --contexts "$two_harts" \
    --runs 1 --rounds 1 -o "$work/system-smp2-formal1")
  echo "system mode, formal set, 1 run x 2 rounds: wall time $(printf '%.1f' "$wall2") s;" \
    "two harts, 1 run x 1 round: $(printf '%.1f' "$wall3") s"
  python3 - "$wall1" "$wall2" "$wall3" <<'PY'
import sys
w1, w2, w3 = map(float, sys.argv[1:])
rnd = max(w2 - w1, 0.0)
fixed = w1 - rnd
print(f"  one round {rnd:.1f} s, per-run fixed cost {fixed:.1f} s (the second round has no burn-in, so a run's is in fixed)")
print(f"  formal system estimate (12 runs x 10 rounds, both campaigns): "
      f"{(12 * (fixed + 10 * rnd) + 12 * w3 * 11 / 2) / 60:.0f} min")
PY

  if [ "${SYSTEM_FORMAL:-0}" = 1 ]; then
    formal=${SYSTEM_FORMAL_DIR:-$work/system-formal}
    mkdir -p "$formal"
    system_campaign "system mode, formal profile" "$formal/system" --profile formal --contexts "$system_formal" \
      --jobs 2 --resume
    system_campaign "system mode, two harts, formal profile" "$formal/system-smp2" --profile formal \
      --contexts "$two_harts" --resume
    read -r wall peak < <(timed ./splice weigh measure --profile formal --contexts "$user_set" \
      --jobs 2 --resume -o "$formal/user")
    report "$formal/user" "$wall" "user mode, the same user contexts, formal profile"
    echo "  peak memory ${peak} MiB"
    for c in system system-smp2 user; do
      ./splice weigh model -o "$formal/$c/model" "$formal/$c" | tail -1
      echo "$c:"
      summary "$formal/$c/model/weights.json"
    done
    echo "side by side (estimates in ns; system/user):"
    python3 - "$formal/user/model/weights.json" "$formal/system/model/weights.json" <<'PY'
import json, sys
user, system = ({c["context"]: c for c in json.load(open(f))["contexts"]} for f in sys.argv[1:])
for k in sorted(set(user) & set(system)):
    u, s = user[k]["estimate_ns"], system[k]["estimate_ns"]
    ratio = f"{s / u:7.2f}x" if u and s else "      -"
    fmt = lambda v: "-" if v is None else f"{v:.3f}"
    print(f"  {k:32s} user {fmt(u):>9} ({user[k]['quality']})  system {fmt(s):>9} ({system[k]['quality']})  {ratio}")
PY
    ./splice weigh report --compare "$formal/user/model/weights.json" \
      "$formal/system/model/weights.json" -o "$formal/compare.html"
    echo "  page: $formal/compare.html"
  fi
fi
