#!/usr/bin/env python3
"""Makes a gpugate results file look as if it had been measured on another
CPU model, for the lifecycle replay (a hosted runner draws a different CPU
from night to night). Every time value is multiplied by the model's speed
FACTOR times a fixed per-(model, workload) effect of up to +-SPREAD (real
CPUs do not slow every benchmark alike); throughputs are divided by the same.

  as_cpu.py RESULTS MODEL FACTOR [SPREAD]     (rewrites RESULTS in place)
"""
import hashlib
import json
import os
import sys

TIME_SUMMARY = ("median", "mean", "min", "max", "stddev", "mad", "p5", "p95")


def effect(model, name, spread):
    h = int.from_bytes(hashlib.sha256(f"{model}\0{name}".encode()).digest()[:8], "big")
    return 1.0 + spread * (2.0 * h / 2**64 - 1.0)


def main():
    path, model, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
    spread = float(sys.argv[4]) if len(sys.argv) > 4 else 0.04
    doc = json.load(open(path))
    doc["run"]["environment"]["cpu_model"] = model
    doc["run"]["environment"]["host"] = "runner-" + hashlib.sha256(model.encode()).hexdigest()[:6]
    for w in doc["workloads"]:
        if w.get("status") != "ok":
            continue
        f = factor * effect(model, w["name"], spread)
        w["rounds"] = [[t * f for t in r] for r in w.get("rounds", [])]
        s = w.get("summary") or {}
        for k in TIME_SUMMARY:
            if isinstance(s.get(k), (int, float)):
                s[k] *= f
        for k in ("bytes_per_second", "flops_per_second", "items_per_second"):
            if isinstance(w.get(k), (int, float)):
                w[k] /= f
    tmp = path + ".tmp"
    with open(tmp, "w") as out:
        json.dump(doc, out)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
