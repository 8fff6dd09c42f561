#!/usr/bin/env python3
"""Describes the noise in a real-noise corpus (docs/real-noise.md), no judge
involved: per benchmark the between-process spread of the per-process median,
how much benchmarks of one process move together, and whether the page-size
lottery benchmark is bimodal across processes.

    scripts/real_noise/analyze.py CORPUS_DIR

CORPUS_DIR holds quiet/*.json and noisy/*.json (collect.sh), or any *.json files of one
Google Benchmark program below it (all counted as quiet). Standard library only.
"""
import glob
import json
import math
import os
import random
import statistics
import sys

LOTTERY = "BM_TlbChaseThpLottery"
REFERENCE = "BM_TlbChase"  # the same chase with the default backing
WITHIN_CV = {}  # file -> benchmark -> CV of its repetitions


def load(path):
    """(per-benchmark median real time in seconds, context) of one process."""
    doc = json.load(open(path))
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    reps, aggs = {}, {}
    for row in doc["benchmarks"]:
        if row.get("error_occurred") or "real_time" not in row:
            continue
        name = row.get("run_name", row["name"])
        if row.get("run_type", "iteration") == "iteration":
            reps.setdefault(name, []).append(row["real_time"] * scale[row.get("time_unit", "ns")])
        elif row.get("aggregate_unit", "time") == "time":
            aggs.setdefault(name, {})[row.get("aggregate_name")] = (
                row["real_time"] * scale[row.get("time_unit", "ns")])
    global WITHIN_CV
    out = {}
    for name, v in reps.items():
        WITHIN_CV.setdefault(path, {})[name] = cv(v) if len(v) > 1 else float("nan")
        out[name] = statistics.median(v)
    # Aggregate-only files (--benchmark_report_aggregates_only): the median
    # (else the mean) row, the within-process CV from stddev / mean.
    for name, a in aggs.items():
        centre = a.get("median", a.get("mean"))
        if name in out or centre is None:
            continue
        out[name] = centre
        WITHIN_CV.setdefault(path, {})[name] = (
            a["stddev"] / a["mean"] if a.get("stddev") is not None and a.get("mean") else float("nan"))
    return out, doc.get("context", {})


def cv(values):
    """Sample standard deviation over mean."""
    return statistics.stdev(values) / statistics.mean(values)


def robust_cv(values):
    """1.4826 * MAD / median: the normal-consistent scale of the median
    absolute deviation (Hampel 1974), relative to the median."""
    m = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - m) for v in values) / m


def pearson(x, y):
    mx, my = statistics.mean(x), statistics.mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def shifts(procs, names):
    """Log shift of each process's median from the benchmark's median over
    processes: d[p][b] = log m[p][b] - median_p log m[p][b]."""
    centre = {b: statistics.median(math.log(p[b]) for p in procs) for b in names}
    return [[math.log(p[b]) - centre[b] for b in names] for p in procs]


def comovement(procs, names):
    """Mean pairwise correlation of the benchmarks' shifts across processes,
    and the share of shift variance a per-process common factor (the median
    shift of the process over benchmarks, as a run speed factor) explains."""
    d = shifts(procs, names)
    cols = list(zip(*d))
    corr = [pearson(cols[i], cols[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    corr = [c for c in corr if not math.isnan(c)]
    total = sum(x * x for row in d for x in row)
    resid = 0.0
    for row in d:
        f = statistics.median(row)
        resid += sum((x - f) ** 2 for x in row)
    return statistics.mean(corr), 1 - resid / total if total > 0 else float("nan"), d


def ashman_d(a, b):
    """Ashman, Bird & Zepf (1994): separation of two modes; D > 2 is a clean split."""
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    return math.sqrt(2) * abs(statistics.mean(a) - statistics.mean(b)) / math.sqrt(
        statistics.variance(a) + statistics.variance(b))


def two_file_bounds(procs, names, budget=0.02, effects=(1.0, 2.0)):
    """What two-file judging could reach at best on this corpus. Every ordered
    pair of processes is an identical-code comparison; the pair's median shift
    over benchmarks (its common speed factor) is removed, as the judge does.
    The oracle knows each benchmark's own identical-code distribution, which
    one pair of runs cannot show: it flags a benchmark above the quantile that
    leaves budget/len(names) false alarms per benchmark (about `budget` of
    suites). Returns ({effect: oracle detection}, ratio rule rows)."""
    logs = [{b: math.log(p[b]) for b in names} for p in procs]
    diffs = {b: [] for b in names}
    for i in range(len(logs)):
        for j in range(len(logs)):
            if i == j:
                continue
            d = [logs[j][b] - logs[i][b] for b in names]
            c = statistics.median(d)
            for b, x in zip(names, d):
                diffs[b].append(x - c)
    per = budget / len(names)
    oracle = {}
    for e in effects:
        hit = []
        for b in names:
            d = sorted(diffs[b])
            cut = d[min(len(d) - 1, int((1 - per) * len(d)))]
            hit.append(sum(x + math.log1p(e) > cut for x in d) / len(d))
        oracle[e] = statistics.mean(hit)
    rules = []
    for r in (2.0, 2.5, 3.0):
        false = statistics.mean(sum(x > math.log(r) for x in diffs[b]) / len(diffs[b]) for b in names)
        det = {e: statistics.mean(sum(x + math.log1p(e) > math.log(r) for x in diffs[b]) / len(diffs[b])
                                  for b in names) for e in effects}
        rules.append((r, false, 1 - (1 - false) ** len(names), det))
    return oracle, rules


def history_draws(logs, names, k, j, n, rnd):
    """n draws of k history and j current processes (disjoint, at random).
    Each run's speed factor (its median residual from the history's
    per-benchmark medians) is removed, as the judge does (statistics.md 1f).
    Per draw and benchmark: (d, scale), d = mean(current) - mean(history) of
    the log times, scale = the history's SD times sqrt(1/k + 1/j)."""
    out = []
    for _ in range(n):
        runs = [logs[i] for i in rnd.sample(range(len(logs)), k + j)]
        med = {b: statistics.median(r[b] for r in runs[:k]) for b in names}
        fac = [statistics.median(r[b] - med[b] for b in names) for r in runs]
        row = {}
        for b in names:
            h = [runs[i][b] - fac[i] for i in range(k)]
            c = [runs[k + i][b] - fac[k + i] for i in range(j)]
            # A floor for the rare history in which one benchmark is every
            # run's median residual (its values then agree exactly).
            sd = max(statistics.stdev(h), 0.005)
            row[b] = (statistics.mean(c) - statistics.mean(h), sd * math.sqrt(1 / k + 1 / j))
        out.append(row)
    return out


def history_bounds(procs, names, k, j, budget, effects=(0.5, 1.0, 2.0), draws=20000, seed=1):
    """What a history of k runs against j current runs could reach at best on
    this corpus, with about `budget` of identical-code suites falsely alarmed.
    Two oracles, each knowing every benchmark's own identical-code
    distribution of its statistic (from `draws` random draws) and flagging
    above the quantile that leaves budget/len(names) false alarms per
    benchmark: "difference" tests d itself (it knows each benchmark's noise
    scale exactly, which k runs only estimate); "t" tests d/scale, the
    history's own spread standing in for the scale, as a t test does. The
    slowdown is injected on a benchmark drawn at random, on fresh draws.
    Returns {"difference": {effect: rate}, "t": {...}}."""
    rnd = random.Random(seed)
    logs = [{b: math.log(p[b]) for b in names} for p in procs]
    null = history_draws(logs, names, k, j, draws, rnd)
    alt = history_draws(logs, names, k, j, max(1000, draws // 5), rnd)
    per = budget / len(names)
    out = {}
    for kind in ("difference", "t"):
        stat = (lambda d, sc: d) if kind == "difference" else (lambda d, sc: d / sc)
        cuts = {}
        for b in names:
            v = sorted(stat(*x[b]) for x in null)
            cuts[b] = v[min(len(v) - 1, int((1 - per) * len(v)))]
        out[kind] = {e: statistics.mean(
            sum(stat(x[b][0] + math.log1p(e), x[b][1]) > cuts[b] for x in alt) / len(alt) for b in names)
            for e in effects}
    return out


def lottery_section(corpus, conds):
    """The page-size lottery: per-process medians by the pages drawn."""
    print("\n## Is %s bimodal across processes?\n" % LOTTERY)
    rows = []
    for cond in ("quiet", "noisy"):
        for f, med, ctx in conds[cond]:
            ref = med.get(REFERENCE)
            rows.append((med[LOTTERY], ctx.get("thp_lottery", "?"), ctx.get("anon_huge_kib", "?"), cond, f,
                         med[LOTTERY] / ref if ref else float("nan")))
    rows.sort()
    print("| per-process median | pages | AnonHugePages KiB | condition | file | / %s of the process |" % REFERENCE)
    print("|---|---|---|---|---|---|")
    for v, pages, kib, cond, f, rel in rows:
        print("| %.2f ms | %s | %s | %s | %s | %.2f |" % (v * 1e3, pages, kib, cond, f, rel))
    # The machine's own load spreads both modes; the calmer half of the quiet
    # processes (1-min load average at start below the quiet median, from
    # processes.tsv) shows the split with less of it.
    start_load = {}
    table = os.path.join(corpus, "processes.tsv")
    if os.path.exists(table):
        for line in open(table).read().splitlines()[1:]:
            cells = line.split("\t")
            start_load[cells[0]] = float(cells[3])
    quiet_loads = [start_load[r[4]] for r in rows if r[3] == "quiet" and r[4] in start_load]
    calm = statistics.median(quiet_loads) if quiet_loads else None
    groups = [("quiet", lambda r: r[3] == "quiet"), ("noisy", lambda r: r[3] == "noisy"),
              ("all", lambda r: True)]
    if calm is not None:
        groups.append(("quiet, load below %.2f" % calm,
                       lambda r: r[3] == "quiet" and start_load.get(r[4], calm) < calm))
    for cond, keep in groups:
        sel = [r for r in rows if keep(r)]
        huge = [r[0] for r in sel if r[1] == "huge"]
        small = [r[0] for r in sel if r[1] == "small"]
        huge_rel = [r[5] for r in sel if r[1] == "huge"]
        small_rel = [r[5] for r in sel if r[1] == "small"]
        if huge and small:
            print("\n%s: %d huge, %d small; median %.2f vs %.2f ms (small/huge %.2f); %d of %d huge "
                  "faster than every small, %d of %d small slower than every huge; Ashman's D %.1f "
                  "on times, %.1f on times relative to %s of the same process" % (
                      cond, len(huge), len(small), statistics.median(huge) * 1e3,
                      statistics.median(small) * 1e3, statistics.median(small) / statistics.median(huge),
                      sum(h < min(small) for h in huge), len(huge), sum(x > max(huge) for x in small),
                      len(small), ashman_d(huge, small), ashman_d(huge_rel, small_rel), REFERENCE))


def main():
    corpus = sys.argv[1]
    conds = {}
    for cond in ("quiet", "noisy"):
        files = sorted(glob.glob(os.path.join(corpus, cond, "*.json")))
        conds[cond] = [(os.path.relpath(f, corpus),) + load(f) for f in files]
    if not conds["quiet"] and not conds["noisy"]:
        # Not collect.sh's layout: every *.json below CORPUS_DIR is one
        # process, all counted as quiet.
        files = sorted(glob.glob(os.path.join(corpus, "**", "*.json"), recursive=True))
        conds["quiet"] = [(os.path.relpath(f, corpus),) + load(f) for f in files]
    if len(conds["quiet"]) < 2:
        sys.exit("analyze.py: error: %s holds fewer than 2 quiet processes (*.json)" % corpus)
    every = conds["quiet"] + conds["noisy"]
    seen = []
    for p in every:
        seen += [n for n in p[1] if n not in seen]
    names = [n for n in seen if all(n in p[1] for p in every)]
    for n in seen:
        if n not in names:
            print("analyze.py: left out %s: measured in %d of %d processes (the oracles need every one)"
                  % (n, sum(n in p[1] for p in every), len(every)), file=sys.stderr)
    if len(names) < 2:
        sys.exit("analyze.py: error: fewer than 2 benchmarks were measured in every process of %s" % corpus)
    print("## Between-process spread of the per-process median\n")
    print("CV: of the per-process medians over processes; robust CV: 1.4826 MAD / median of the same;")
    print("within: median over quiet processes of the CV of one process's repetitions.\n")
    print("| benchmark | median (quiet) | within-process CV | CV quiet | robust CV quiet | CV noisy | robust CV noisy | noisy/quiet median |")
    print("|---|---|---|---|---|---|---|---|")
    for b in names:
        q = [p[1][b] for p in conds["quiet"]]
        n = [p[1][b] for p in conds["noisy"]]
        med = statistics.median(q)
        unit = (1e9, "ns") if med < 1e-6 else (1e6, "us") if med < 1e-3 else (1e3, "ms")
        within = statistics.median(WITHIN_CV[os.path.join(corpus, p[0])][b] for p in conds["quiet"])
        print("| %s | %.3g %s | %s | %.1f%% | %.1f%% | %s | %s | %s |" % (
            b, med * unit[0], unit[1], "%.1f%%" % (100 * within) if within == within else "-", 100 * cv(q), 100 * robust_cv(q),
            "%.1f%%" % (100 * cv(n)) if len(n) > 1 else "-",
            "%.1f%%" % (100 * robust_cv(n)) if len(n) > 1 else "-",
            "%.3f" % (statistics.median(n) / med) if n else "-"))

    print("\n## Do benchmarks of one process move together?\n")
    for cond in ("quiet", "noisy", "all"):
        procs = [p[1] for p in (conds["quiet"] + conds["noisy"] if cond == "all" else conds[cond])]
        if len(procs) < 3:
            continue
        others = [b for b in names if b != LOTTERY]
        r, share, _ = comovement(procs, others)
        print("- %s (%d processes, %d benchmarks%s): mean pairwise correlation of "
              "log shifts %.2f; a per-process common factor explains %.0f%% of the shift variance"
              % (cond, len(procs), len(others), " without the lottery" if LOTTERY in names else "", r,
                 100 * share))

    if LOTTERY in names:
        lottery_section(corpus, conds)

    procs = [p[1] for p in conds["quiet"] + conds["noisy"]]
    oracle, rules = two_file_bounds(procs, names)
    print("\n## What two files could reach at best\n")
    print("Every ordered pair of the %d processes as identical code, its median shift removed. An oracle "
          "that knows each benchmark's own identical-code distribution, with 2%% of suites falsely "
          "alarmed: detects %.1f%% of +100%% and %.1f%% of +200%% (injected on a benchmark drawn at "
          "random)." % (len(procs), 100 * oracle[1.0], 100 * oracle[2.0]))
    for r, false, suites, det in rules:
        print("- ratio rule: flag above x%.1f: %.2f%% of benchmarks falsely (about %.1f%% of suites), "
              "%.1f%% of +100%%, %.1f%% of +200%%" % (r, 100 * false, 100 * suites, 100 * det[1.0],
                                                     100 * det[2.0]))

    print("\n## What a history could reach at best\n")
    print("Random draws of K history and J current processes as identical code, each run's speed "
          "factor removed. Two oracles that know each benchmark's own identical-code distribution "
          "of their statistic: `difference` tests the change itself (it knows the benchmark's noise "
          "scale exactly), `t` divides it by the history's spread as a t test does. Detection of a "
          "slowdown injected on a benchmark drawn at random, with the suite false-alarm budget of "
          "the target:\n")
    print("| mode | suites falsely alarmed | oracle | +50% | +100% | +200% |")
    print("|---|---|---|---|---|---|")
    draws = int(os.environ.get("ANALYZE_DRAWS", "20000"))
    for k, j, budget in ((10, 1, 0.01), (5, 1, 0.02), (10, 3, 0.01)):
        if k + j > len(procs):
            print("| history%d+%d | %.0f%% | not run: needs %d processes, the corpus has %d | | | |"
                  % (k, j, 100 * budget, k + j, len(procs)))
            continue
        bounds = history_bounds(procs, names, k, j, budget, draws=draws)
        for kind, det in bounds.items():
            print("| history%d+%d | %.0f%% | %s | %.1f%% | %.1f%% | %.1f%% |" % (
                k, j, 100 * budget, kind, 100 * det[0.5], 100 * det[1.0], 100 * det[2.0]))


if __name__ == "__main__":
    main()
