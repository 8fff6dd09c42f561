#!/usr/bin/env python3
"""How the gate's futility rule (docs/statistics.md §2a) scales with the size
of a suite, on normal noise where every workload stays doubtful.

Each simulated suite has m workloads judged against a history of K runs
(between-run noise 1, the history's mean known to 1/K) and one current run,
then up to N re-runs. Before each re-run the rule of ReRunCouldChangeOutcome
(src/gate/gate.cc) is applied: continue while some workload's one-sided z,
projected to the last run, reaches the first discovery of Benjamini-Hochberg
(q/(m+1), the suite's common shift counted) with conditional power >= 10%.
Printed: mean re-runs for identical code, and for a suite with one workload
slowed by 2 between-run SDs, its re-runs and how often BH at q found the
slowed one; then the same without the rule (every one of 12 re-runs used,
and every one of 3, the gate's earlier default).

Usage: futility_sim.py [SUITES_PER_CELL]   (default 300; pure Python)
"""
import math
import random
import sys
from statistics import NormalDist

NORMAL = NormalDist()
K, N_MAX, Q, POWER = 10, 12, 0.01, 0.1


def information(n):
    return 1.0 / (1.0 / K + 1.0 / n)


def one_suite(rng, m, effect, stop, n_max):
    history = [rng.gauss(0, math.sqrt(1.0 / K)) for _ in range(m)]
    sums = [0.0] * m
    z_needed = NORMAL.inv_cdf(1 - Q / (m + 1))
    n = 0
    while True:
        n += 1
        for i in range(m):
            sums[i] += rng.gauss(0, 1) + (effect if i == 0 else 0.0)
        se = math.sqrt(1.0 / K + 1.0 / n)
        z = [(sums[i] / n - history[i]) / se for i in range(m)]
        if n == n_max + 1:
            break
        if stop:
            growth = math.sqrt(information(n_max + 1) / information(n))
            spread = math.sqrt(1 - 1 / growth**2)
            if max(z) * growth < z_needed + NORMAL.inv_cdf(POWER) * spread:
                break
    p = sorted((1 - NORMAL.cdf(x), i) for i, x in enumerate(z))
    found = 0
    for rank, (pv, _) in enumerate(p, 1):
        if pv <= Q * rank / m:
            found = rank
    return n - 1, any(i == 0 for _, i in p[:found])


def cell(rng, m, effect, stop, n_max, suites):
    reruns = hits = 0
    for _ in range(suites):
        r, hit = one_suite(rng, m, effect, stop, n_max)
        reruns += r
        hits += hit
    return reruns / suites, hits / suites


def main():
    suites = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = random.Random(1)
    print(f"history {K}, 1 run + up to {N_MAX} re-runs, q = {Q}, {suites} suites per cell")
    print("| workloads | rule | identical code: re-runs | slowed by 2 SD: re-runs | slowed: found |")
    print("| --- | --- | --- | --- | --- |")
    for m in (14, 50, 200, 500):
        for name, stop, n_max in (("up to 12, futility stop", True, N_MAX),
                                  ("12, every re-run", False, N_MAX),
                                  ("3, every re-run", False, 3)):
            null_reruns, _ = cell(rng, m, 0.0, stop, n_max, suites)
            eff_reruns, found = cell(rng, m, 2.0, stop, n_max, suites)
            print(f"| {m} | {name} | {null_reruns:.2f} "
                  f"| {eff_reruns:.2f} | {found:.0%} |")


if __name__ == "__main__":
    main()
