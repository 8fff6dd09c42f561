#!/usr/bin/env python3
"""Independent reference for gpugate's per-device GPU-window breakdown.

Reads a whole Chrome/Kineto trace into memory (plain or .gz) with the
standard json module and computes, per device, by sorting every GPU activity
(no streaming, no reorder window, nothing shared with the C++ code):

  window       first GPU start .. last GPU end (kernels, memcpys, memsets)
  busy         length of the union of those activities
  idle         window - busy
  idle classes each gap between the union's pieces, classified by the
               activity that ends it (earliest start; at equal start the
               longest, then the first in the file):
                 host wait   its runtime call (cuda_runtime/cuda_driver event
                             with the same args.correlation) began after the
                             gap began: the GPU waited for the host to enqueue
                 kernel wait otherwise, a gap shorter than the threshold
                             (HTA's consecutive_kernel_delay, 30 us)
                 other       anything else
  compute      union of non-NCCL kernels
  communication union of NCCL kernels where no compute kernel runs

Timestamps are microseconds in the file; they are converted to integer
nanoseconds from their decimal text, rounding half up (as gpugate does).

    scripts/trace_reference.py TRACE [--kernel-wait-ns 30000]

Prints one line per stream (the same classes over the gaps between the
stream's own activities, as HTA does per stream) and one per device. The figures in tests/trace/gpu_window_test.cc were
produced with this script.
"""
import argparse
import decimal
import gzip
import json
import sys

GPU_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver"}


def to_ns(value):
    d = decimal.Decimal(str(value)) if not isinstance(value, decimal.Decimal) else value
    return int((d * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def union(intervals):
    total, front = 0, None
    for s, e in sorted(intervals):
        if front is None or s > front:
            total += e - s
            front = e
        elif e > front:
            total += e - front
            front = e
    return total


def classify(acts, launches, threshold):
    """Busy union and idle classes of start-sorted activities (see above)."""
    host = kernel = other = busy = 0
    front = None
    for s, e, _, _, corr, _ in acts:
        if front is not None and s > front:
            gap = s - front
            launch = launches.get(int(corr)) if corr is not None else None
            if launch is not None and launch > front:
                host += gap
            elif gap < threshold:
                kernel += gap
            else:
                other += gap
        if front is None or s >= front:
            busy += e - s
        elif e > front:
            busy += e - front
        front = e if front is None else max(front, e)
    return busy, host, kernel, other


def print_streams(dev, acts, launches, threshold):
    for stream in sorted({r[5] for r in acts}):
        mine = [r for r in acts if r[5] == stream]
        busy, host, kernel, other = classify(mine, launches, threshold)
        print("device %d stream %d busy_ns %d host_wait_ns %d kernel_wait_ns %d other_ns %d activities %d"
              % (dev, stream, busy, host, kernel, other, len(mine)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--kernel-wait-ns", type=int, default=30000)
    args = ap.parse_args()
    events = load(args.trace)
    launches = {}
    gpu = {}
    for order, e in enumerate(events):
        if e.get("ph") != "X" or "ts" not in e:
            continue
        cat = e.get("cat", "")
        a = e.get("args") or {}
        ts = to_ns(e["ts"])
        dur = max(0, to_ns(e.get("dur", 0)))
        if cat in RUNTIME_CATS and "correlation" in a:
            launches[int(a["correlation"])] = ts
        elif cat in GPU_CATS:
            dev = int(a["device"]) if "device" in a else int(e["pid"])
            kind = GPU_CATS[cat]
            if kind == "kernel" and "nccl" in e.get("name", "").lower():
                kind = "comm"
            stream = int(a["stream"]) if "stream" in a else int(e["tid"])
            gpu.setdefault(dev, []).append((ts, ts + dur, order, kind, a.get("correlation"), stream))
    for dev in sorted(gpu):
        acts = sorted(gpu[dev], key=lambda r: (r[0], -r[1], r[2]))
        start = min(r[0] for r in acts)
        end = max(r[1] for r in acts)
        busy = union([(r[0], r[1]) for r in acts])
        compute = union([(r[0], r[1]) for r in acts if r[3] == "kernel"])
        comp_comm = union([(r[0], r[1]) for r in acts if r[3] in ("kernel", "comm")])
        _, host, kernel, other = classify(acts, launches, args.kernel_wait_ns)
        window = end - start
        print_streams(dev, acts, launches, args.kernel_wait_ns)
        print("device %d window_ns %d busy_ns %d idle_ns %d idle_pct %.4f host_wait_ns %d kernel_wait_ns %d "
              "other_ns %d compute_ns %d communication_ns %d activities %d"
              % (dev, window, busy, window - busy, 100.0 * (window - busy) / window if window else 0.0,
                 host, kernel, other, compute, comp_comm - compute, len(acts)))


if __name__ == "__main__":
    sys.exit(main())
