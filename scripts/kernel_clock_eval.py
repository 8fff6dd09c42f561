#!/usr/bin/env python3
"""How gpugate's per-kernel comparison behaves on traces whose clock is coarse
(PyTorch profiler traces in whole microseconds), with synthetic Kineto-style
traces of known truth.

Each case draws 62 kernels with lengths log-uniform in [--lo, --hi] us, then
writes runs of them: every kernel gets a run speed (normal, --run-noise) and
--calls calls around it (normal, --call-noise), each call's duration rounded
to the clock step (--step us, at least one step). The current run makes one
kernel (a different one per case) --factor times as slow.

Modes:
  --history 0   two files: one baseline trace against one current trace
  --history K   K runs appended with `gpugate baseline update`, then compare

For every case the verdicts JSON is read: a case is a *false alarm* when a
kernel other than the slowed one (any kernel, when --factor is 1) is a
regression, and *caught* when the slowed kernel is. The trace's own time
metric is left out (a slower kernel does lengthen the trace). Figures are
printed with their Wilson 95% intervals.

    scripts/kernel_clock_eval.py --gpugate build/gpugate --history 10 --cases 40
    scripts/kernel_clock_eval.py --gpugate build/gpugate --history 10 --factor 2
    scripts/kernel_clock_eval.py --gpugate build/gpugate --history 0 --lo 4 --hi 800
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile


def write_trace(path, lengths, rng, args, slow, start_us):
    events, ts = [], start_us
    for k, length in enumerate(lengths):
        run = 1.0 + rng.gauss(0, args.run_noise)
        if k == slow:
            run *= args.factor
        for _ in range(args.calls):
            d = length * run * (1.0 + rng.gauss(0, args.call_noise))
            d = max(args.step, round(d / args.step) * args.step)
            events.append({"ph": "X", "cat": "kernel", "name": "k%d" % k, "pid": 0, "tid": 7,
                           "ts": ts, "dur": d, "args": {"device": 0, "stream": 7}})
            ts += d + 2
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"traceEvents": events}, f)


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpugate", default="build/gpugate")
    ap.add_argument("--history", type=int, default=0, help="history runs (0: two files)")
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--lo", type=float, default=2.0)
    ap.add_argument("--hi", type=float, default=100.0)
    ap.add_argument("--factor", type=float, default=1.0, help="the slowed kernel's factor (1: identical code)")
    ap.add_argument("--step", type=float, default=1.0, help="clock step in us")
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--run-noise", type=float, default=0.01)
    ap.add_argument("--call-noise", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.history == 1 or args.history < 0:
        sys.exit("kernel_clock_eval.py: --history is 0 (two files) or at least 2")

    false_alarms = caught = 0
    examples = []
    for case in range(args.cases):
        rng = random.Random(args.seed * 1_000_003 + case)
        lengths = [math.exp(math.log(args.lo) + rng.random() * math.log(args.hi / args.lo)) for _ in range(62)]
        slow = (case * 7) % 62 if args.factor != 1.0 else -1
        with tempfile.TemporaryDirectory(prefix="gpugate-clock-") as d:
            # Runs differ in their start time, which names the run.
            if args.history == 0:
                baseline = os.path.join(d, "base", "t.json")
                write_trace(baseline, lengths, rng, args, -1, 10_000_000)
            else:
                baseline = os.path.join(d, "baseline.json")
                for r in range(args.history):
                    trace = os.path.join(d, "r%d" % r, "t.json")
                    write_trace(trace, lengths, rng, args, -1, 10_000_000 * (r + 1))
                    o = run([args.gpugate, "baseline", "update", "--results", trace, "--baseline", baseline])
                    if o.returncode != 0:
                        sys.exit("baseline update failed: " + o.stderr)
            current = os.path.join(d, "cur", "t.json")
            write_trace(current, lengths, rng, args, slow, 999_000_000)
            verdicts = os.path.join(d, "v.json")
            o = run([args.gpugate, "compare", baseline, current, "--json", verdicts])
            if o.returncode not in (0, 1, 4):
                sys.exit("compare failed (exit %d): %s" % (o.returncode, o.stderr))
            with open(verdicts) as f:
                v = json.load(f)
        regressions = [m for m in v["metrics"]
                       if m["verdict"] == "regression" and m["metric"].startswith("kernel:")]
        wrong = [m for m in regressions if m["metric"] != "kernel:k%d" % slow]
        false_alarms += bool(wrong)
        caught += any(m["metric"] == "kernel:k%d" % slow for m in regressions)
        if wrong and len(examples) < 3:
            examples.append("case %d: %s: %s" % (case, wrong[0]["metric"], wrong[0].get("sentence", "")))
        print("case %d/%d: %d false, slowed kernel %s" % (case + 1, args.cases, len(wrong),
              "n/a" if slow < 0 else ("caught" if slow >= 0 and len(regressions) > len(wrong) else "missed")),
              file=sys.stderr)

    mode = "two files" if args.history == 0 else "history %d + 1" % args.history
    lo, hi = wilson(false_alarms, args.cases)
    print("%s, kernels %g-%g us, step %g us, factor %g: false alarm in %d of %d cases (%.1f%% [%.1f%%, %.1f%%])"
          % (mode, args.lo, args.hi, args.step, args.factor, false_alarms, args.cases,
             100.0 * false_alarms / args.cases, 100 * lo, 100 * hi))
    if args.factor != 1.0:
        lo, hi = wilson(caught, args.cases)
        print("  slowed kernel caught in %d of %d (%.1f%% [%.1f%%, %.1f%%])"
              % (caught, args.cases, 100.0 * caught / args.cases, 100 * lo, 100 * hi))
    for e in examples:
        print("  " + e)


if __name__ == "__main__":
    main()
