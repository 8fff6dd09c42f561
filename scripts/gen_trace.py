#!/usr/bin/env python3
"""Writes a synthetic PyTorch-profiler (Kineto) style Chrome trace of a given
size, for gpugate's trace-reader benchmark. Deterministic (seeded).

    scripts/gen_trace.py /tmp/big.json --size 1G [--gzip]

Each "iteration" is a CPU op with a nested op, a cudaLaunchKernel runtime call,
an ac2g flow pair and the kernel it launched (Kineto's args: correlation,
External id, device, stream, grid, block, registers, shared memory,
occupancy); every 8th iteration adds a memcpy, every 16th a [memory] instant
event. Timestamps are fractional microseconds (ns resolution), as in recent
Kineto traces. The file is not committed: generate it into /tmp.

For a multi-rank job, write one file per rank with --rank R --world-size W
(distributedInfo) and --step-every N (a "ProfilerStep#K" user_annotation
around every N iterations; use a different --seed per rank):

    for r in 0 1 2 3; do scripts/gen_trace.py /tmp/job/rank$r.json --size 250M \
        --rank $r --world-size 4 --step-every 500 --seed $((r + 1)); done
"""
import argparse
import gzip
import random
import sys

KERNELS = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "ampere_sgemm_128x64_tn",
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel",
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, "
    "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>, "
    "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float>, unsigned int, float, 4>)",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
] + ["void generated_kernel_%02d<float, 128>(float const*, float*, int)" % i for i in range(34)]
OPS = ["aten::linear", "aten::conv2d", "aten::add", "aten::relu", "aten::batch_norm", "aten::mean"]
INNER = ["aten::addmm", "aten::cudnn_convolution", "aten::add_", "aten::clamp_min", "aten::native_batch_norm",
         "aten::sum"]

HEADER = """{
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920, "computeMajor": 8, "computeMinor": 0,
     "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
     "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
     "sharedMemPerMultiprocessor": 167936, "numSms": 108, "sharedMemPerBlockOptin": 166912}
  ],
  "distributedInfo": {"backend": "nccl", "rank": %(rank)d, "world_size": %(world_size)d},
  "traceEvents": [
  {"name": "process_name", "ph": "M", "ts": 1712195495000000.000, "pid": 1102, "tid": 0, "args": {"name": "python"}},
  {"name": "thread_name", "ph": "M", "ts": 1712195495000000.000, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}"""


def parse_size(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1].upper() in mult:
        return int(float(text[:-1]) * mult[text[-1].upper()])
    return int(text)


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def memory_event(ts_ns, addr, delta, allocated, reserved):
    """A PyTorch `[memory]` instant event on device 0 (leading comma)."""
    return (',\n  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", '
            '"pid": 1102, "tid": 1102, "ts": %s, "args": {"Device Type": 1, "Device Id": 0, '
            '"Addr": %d, "Bytes": %d, "Total Allocated": %d, "Total Reserved": %d}}'
            % (us(ts_ns), addr, delta, allocated, reserved))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--size", default="1G", help="target size of the JSON text (e.g. 250M, 1G)")
    ap.add_argument("--gzip", action="store_true", help="write gzip-compressed output")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rank", type=int, default=0, help="distributedInfo.rank")
    ap.add_argument("--world-size", type=int, default=1, help="distributedInfo.world_size")
    ap.add_argument("--step-every", type=int, default=0,
                    help="a ProfilerStep#K annotation around every N iterations (0: none)")
    args = ap.parse_args()
    target = parse_size(args.size)
    rnd = random.Random(args.seed)
    opener = gzip.open if args.gzip else open
    written = 0
    t = 1712195495000000 * 1000  # ns
    corr = 1
    alloc = 0
    with opener(args.out, "wt") as f:
        header = HEADER % {"rank": args.rank, "world_size": args.world_size}
        f.write(header)
        written += len(header)
        step = 0
        step_start = t
        step_iters = 0
        while written < target:
            chunk = []
            for _ in range(2000):
                k = rnd.randrange(len(KERNELS))
                op = k % len(OPS)
                dur_k = 2000 + rnd.randrange(60000)
                launch = 4000 + rnd.randrange(8000)
                start = t
                chunk.append(',\n  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1102, "tid": 1102, "ts": %s, '
                             '"dur": %s, "args": {"External id": %d, "Ev Idx": %d}}'
                             % (OPS[op], us(start), us(launch + 9000), corr, corr))
                chunk.append(',\n  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1102, "tid": 1102, "ts": %s, '
                             '"dur": %s, "args": {"External id": %d, "Sequence number": %d}}'
                             % (INNER[op], us(start + 2000), us(launch + 5000), corr, corr))
                chunk.append(',\n  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1102, '
                             '"tid": 1102, "ts": %s, "dur": %s, "args": {"External id": %d, "cbid": 211, '
                             '"correlation": %d}}' % (us(start + 4000), us(launch), corr, corr))
                chunk.append(',\n  {"ph": "s", "id": %d, "pid": 1102, "tid": 1102, "ts": %s, "cat": "ac2g", '
                             '"name": "ac2g"}' % (corr, us(start + 4000)))
                gstart = start + 4000 + launch + rnd.randrange(20000)
                chunk.append(',\n  {"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %s, '
                             '"dur": %s, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, '
                             '"stream": 7, "correlation": %d, "registers per thread": %d, "shared memory": %d, '
                             '"blocks per SM": 8, "warps per SM": 64, "grid": [%d, 1, 1], "block": [256, 1, 1], '
                             '"est. achieved occupancy %%": %d}}'
                             % (KERNELS[k], us(gstart), us(dur_k), corr, corr, 16 + k, 1024 * (k % 4),
                                64 + k, 30 + k))
                chunk.append(',\n  {"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %s, "cat": "ac2g", '
                             '"name": "ac2g", "bp": "e"}' % (corr, us(gstart)))
                if corr % 8 == 0:
                    nbytes = 4096 * (1 + rnd.randrange(256))
                    chunk.append(',\n  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1102, '
                                 '"tid": 1102, "ts": %s, "dur": %s, "args": {"External id": %d, "cbid": 41, '
                                 '"correlation": %d}}' % (us(start + launch + 8000), us(900), corr + 1000000000,
                                                          corr + 1000000000))
                    chunk.append(',\n  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", '
                                 '"pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"External id": %d, '
                                 '"device": 0, "context": 1, "stream": 7, "correlation": %d, "bytes": %d, '
                                 '"memory bandwidth (GB/s)": 12.5}}'
                                 % (us(gstart + dur_k + 500), us(nbytes // 12), corr + 1000000000,
                                    corr + 1000000000, nbytes))
                if corr % 16 == 0:
                    delta = 1 << 20 if rnd.random() < 0.5 or alloc < (1 << 20) else -(1 << 20)
                    alloc += delta
                    chunk.append(memory_event(start + 1000, 140000000000 + corr, delta, alloc, 1 << 34))
                # The next op starts after this kernel finished, with a small
                # random gap: the GPU is mostly busy, as in a training step.
                t = max(start + launch + 12000, gstart + dur_k - 8000)
                corr += 1
                if args.step_every > 0:
                    step_iters += 1
                    if step_iters == args.step_every:
                        chunk.append(',\n  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", '
                                     '"pid": 1102, "tid": 1102, "ts": %s, "dur": %s, "args": {"External id": %d}}'
                                     % (step, us(step_start), us(t - step_start), 2000000000 + step))
                        step += 1
                        step_start = t
                        step_iters = 0
            text = "".join(chunk)
            f.write(text)
            written += len(text)
        f.write('\n  ]\n}\n')
    print("wrote %s: %d bytes of JSON text, %d iterations" % (args.out, written, corr - 1), file=sys.stderr)


if __name__ == "__main__":
    main()
