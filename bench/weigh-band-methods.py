#!/usr/bin/env python3
"""Family-wise coverage of three ways to set the simultaneous band's critical value, on run-level
values: R = 12 runs, K normal estimates per campaign whose run values share a fraction rho of their
variance (a run effect common to all contexts), B = 399 bootstrap replicates. docs/weigh-model.md
section 3 ("Why this procedure") shows its output. Needs numpy and scipy.
Usage: bench/weigh-band-methods.py [CAMPAIGNS_PER_CELL (1500)]"""
import sys
import numpy as np
import scipy.stats as st

R = 12
B = 399
WEBB = np.array([-np.sqrt(1.5), -1, -np.sqrt(0.5), np.sqrt(0.5), 1, np.sqrt(1.5)])
rng = np.random.default_rng(2)


def tstats(u):
    return u.mean(0) / (u.std(0, ddof=1) / np.sqrt(R))


def bootstrap_t(residuals):
    w = WEBB[rng.integers(0, 6, (B, R))]
    scaled = w[:, :, None] * residuals[None]
    return np.abs(scaled.mean(1) / (scaled.std(1, ddof=1) / np.sqrt(R)))


def cell(k, rho, campaigns):
    covered = {"sidak-t": 0, "wcb-max-t": 0, "wcb-calibrated-t": 0}
    sidak = st.t.ppf(1 - (1 - 0.95 ** (1 / k)) / 2, R - 1)
    for _ in range(campaigns):
        common = rng.standard_normal(R)
        u = np.sqrt(rho) * common[:, None] + np.sqrt(1 - rho) * rng.standard_normal((R, k))
        worst = np.abs(tstats(u)).max()
        tb = bootstrap_t(u - u.mean(0))
        c_star = np.sort(tb.max(1))[int(np.ceil(0.95 * (B + 1))) - 1]
        alpha = (tb > c_star).mean()
        covered["sidak-t"] += worst <= sidak
        covered["wcb-max-t"] += worst <= c_star
        covered["wcb-calibrated-t"] += worst <= st.t.ppf(1 - alpha / 2, R - 1)
    return {m: c / campaigns for m, c in covered.items()}


def main():
    campaigns = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    print("| K | rho | Sidak with t(11) | WCB max-t (Webb) | WCB calibrated to t(11) |")
    print("|---:|---:|---:|---:|---:|")
    for k in (10, 100, 400):
        for rho in (0, 0.3, 0.6, 0.9):
            c = cell(k, rho, campaigns)
            print("| %d | %.1f | %.1f%% | %.1f%% | %.1f%% |" % (k, rho, 100 * c["sidak-t"], 100 * c["wcb-max-t"],
                                                              100 * c["wcb-calibrated-t"]), flush=True)


main()
