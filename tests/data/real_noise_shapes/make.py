#!/usr/bin/env python3
"""Derives the shape corpora in this folder from ../real_noise_idle2/noisy/.

    python3 tests/data/real_noise_shapes/make.py

gaps/        the 10 files with the gaps real collections have: BM_MapInsert
             removed from 3 processes (still in 7 of 10), BM_SqrtDiv kept in
             only 2 of 10, and BM_Sort1M reported as an error in one process.
aggregates/  the same 10 processes as Google Benchmark writes them with
             --benchmark_report_aggregates_only=true: mean, median, stddev and
             cv rows of the 5 repetitions, no repetition rows.
"""
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "real_noise_idle2", "noisy")


def load(name):
    with open(os.path.join(SRC, name)) as f:
        return json.load(f)


def save(folder, name, doc):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    with open(os.path.join(HERE, folder, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def gaps(i, doc):
    rows = doc["benchmarks"]
    if i in (1, 4, 7):
        rows = [r for r in rows if r["run_name"] != "BM_MapInsert"]
    if i not in (2, 8):
        rows = [r for r in rows if r["run_name"] != "BM_SqrtDiv"]
    if i == 5:
        for r in rows:
            if r["run_name"] == "BM_Sort1M":
                r["error_occurred"] = True
                r["error_message"] = "allocation failed"
    doc["benchmarks"] = rows
    return doc


def aggregates(doc):
    out = []
    order = []
    for r in doc["benchmarks"]:
        if r.get("run_type") == "iteration" and r["run_name"] not in order:
            order.append(r["run_name"])
    for name in order:
        reps = [r for r in doc["benchmarks"] if r["run_name"] == name and r.get("run_type") == "iteration"]
        real = [r["real_time"] for r in reps]
        cpu = [r["cpu_time"] for r in reps]
        for agg, fn, unit in (("mean", statistics.mean, "time"),
                              ("median", statistics.median, "time"),
                              ("stddev", statistics.stdev, "time"),
                              ("cv", lambda v: statistics.stdev(v) / statistics.mean(v), "percentage")):
            row = {k: v for k, v in reps[0].items() if k not in ("repetition_index", "real_time", "cpu_time", "iterations")}
            row.update({"name": name + "_" + agg, "run_type": "aggregate", "aggregate_name": agg,
                        "aggregate_unit": unit, "iterations": len(reps),
                        "real_time": fn(real), "cpu_time": fn(cpu)})
            out.append(row)
    doc["benchmarks"] = out
    return doc


for i, name in enumerate(sorted(os.listdir(SRC))):
    if not name.endswith(".json"):
        continue
    save("gaps", name, gaps(i, load(name)))
    save("aggregates", name, aggregates(load(name)))
