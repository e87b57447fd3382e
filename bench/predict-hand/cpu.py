#!/usr/bin/env python3
# Median CPU time (user + system) of plain qemu-riscv64 running each command, RUNS interleaved runs;
# then each median minus the first (bench/predict-hand, session 9).
# usage: cpu.py RUNS "cmd short" "cmd long" ... prints median cpu of each and difference long-short
import resource, statistics, subprocess, sys
runs = int(sys.argv[1]); cmds = sys.argv[2:]
def cpu(cmd):
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["qemu-riscv64"] + cmd.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return b.ru_utime - a.ru_utime + b.ru_stime - a.ru_stime
t = [[] for _ in cmds]
for _ in range(runs):
    for i, c in enumerate(cmds):
        t[i].append(cpu(c))
m = [statistics.median(x) for x in t]
print(" ".join(f"{v:.4f}" for v in m), "diff", " ".join(f"{m[i]-m[0]:.4f}" for i in range(1, len(m))), "load", open("/proc/loadavg").read().split()[0])
