#!/usr/bin/env python3
"""Writes a synthetic Kineto-style training trace for the flame graph
benchmark: ProfilerStep#N annotations (--iters-per-step iterations each), and
per iteration a CPU op, a nested op, a cudaLaunchKernel call and its kernel.
Kernel names follow a long-tailed (Zipf) distribution over --kernels distinct
names, so the flame graph has many small frames to fold. Deterministic
(seeded). Every 16th iteration adds a [memory] event.

    bench/gen_flame_trace.py /tmp/flame_1g.json --size 1G

The file is not committed: generate it into /tmp.
"""
import argparse
import os
import random
import sys

# The op names and helpers of the plain trace generator, shared.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from gen_trace import INNER, OPS, memory_event, parse_size, us  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--size", default="1G", help="target size of the JSON text (e.g. 250M, 1G)")
    ap.add_argument("--kernels", type=int, default=50000, help="distinct kernel names")
    ap.add_argument("--iters-per-step", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    target = parse_size(args.size)
    rnd = random.Random(args.seed)
    # Zipf-like weights 1/rank: a few kernels take most of the time.
    weights = [1.0 / (r + 1) for r in range(args.kernels)]
    written = 0
    t = 1712195495000000 * 1000
    corr = 1
    step = 1
    alloc = 0
    with open(args.out, "w") as f:
        head = '{\n  "schemaVersion": 1,\n  "traceEvents": [\n  {"name": "process_name", "ph": "M", "ts": 0, ' \
               '"pid": 1102, "tid": 0, "args": {"name": "python"}}'
        f.write(head)
        written += len(head)
        while written < target:
            chunk = []
            step_start = t
            names = rnd.choices(range(args.kernels), weights=weights, k=args.iters_per_step)
            for k in names:
                op = k % len(OPS)
                dur_k = 2000 + rnd.randrange(60000)
                launch = 4000 + rnd.randrange(8000)
                start = t
                chunk.append(',\n  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1102, "tid": 1102, "ts": %s, '
                             '"dur": %s, "args": {"External id": %d}}' % (OPS[op], us(start), us(launch + 9000), corr))
                chunk.append(',\n  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1102, "tid": 1102, "ts": %s, '
                             '"dur": %s, "args": {"External id": %d}}'
                             % (INNER[op], us(start + 2000), us(launch + 5000), corr))
                chunk.append(',\n  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1102, '
                             '"tid": 1102, "ts": %s, "dur": %s, "args": {"correlation": %d}}'
                             % (us(start + 4000), us(launch), corr))
                gstart = start + 4000 + launch + rnd.randrange(20000)
                chunk.append(',\n  {"ph": "X", "cat": "kernel", "name": "void kernel_%05d<float, 128>(float const*, '
                             'float*, int)", "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"device": 0, '
                             '"stream": 7, "correlation": %d, "grid": [64, 1, 1], "block": [256, 1, 1]}}'
                             % (k, us(gstart), us(dur_k), corr))
                if corr % 16 == 0:
                    delta = 1 << 20 if rnd.random() < 0.5 or alloc < (1 << 20) else -(1 << 20)
                    alloc += delta
                    chunk.append(memory_event(start + 3000, corr, delta, alloc, (alloc // (1 << 24) + 1) << 24))
                corr += 1
                t += launch + 9000 + 1000
            chunk.append(',\n  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1102, '
                         '"tid": 1102, "ts": %s, "dur": %s}' % (step, us(step_start), us(t - step_start - 500)))
            step += 1
            text = "".join(chunk)
            f.write(text)
            written += len(text)
        f.write("\n  ]\n}\n")
    print("wrote %s: %d bytes, %d steps, %d kernels" % (args.out, written, step - 1, corr - 1))


if __name__ == "__main__":
    main()
