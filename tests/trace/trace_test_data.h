// A small hand-made Kineto-style trace whose breakdown is worked out by hand
// in the comments below, shared by the trace tests.
#pragma once

#include <string>
#include <vector>

namespace gpugate::testing {

inline std::string TraceDataPath(const std::string& name) {
  return std::string(GPUGATE_SOURCE_DIR) + "/tests/data/traces/" + name;
}

// Timeline (us). Span [0, 200] from the "step" annotation.
// CPU thread 100: step [0,200) > outer [1,100) > inner [10,30) > launches
//   corr1 [11,13), corr2 [13,15), corr5 [15,21), memset corr6 [21,22);
//   outer > cudaMemcpyAsync corr3 [60,63) > cudaLaunchKernel corr4 [61,62).
// GPU 0: stream 7: k1 [20,30) c1, k1 [40,45) c5, memcpy [62,70) c3 8000 B,
//                  memset [75.010,76.010) c6;
//        stream 8: k2 [25,35) c2, ncclKernel [65,75) c4.
// GPU 1: stream 7: k3 [100,150), no correlation.
// Device 0 by hand: compute [20,35)+[40,45) = 20 us; communication [65,75)
//   = 10 us; memcpy only [62,65) = 3 us; memset 1 us; busy 34 us.
//   Idle gaps: [0,20) launch 11 > 0 -> host-wait 20 us; [35,40) launch 15 <
//   35 and 5 us < 30 us -> kernel-wait; [45,62) launch 60 > 45 -> host-wait
//   17 us; [75,75.010) launch 21 < 75, 10 ns < 30 us -> kernel-wait;
//   [76.010,200) trailing -> host-wait 123.99 us. Host-wait 160.99 us,
//   kernel-wait 5.01 us, other 0; idle 166 us. GPU window [20, 76.010):
//   56.01 us, idle 22.01 us (host-wait 17 us, kernel-wait 5.01 us).
// Device 1: busy 50 us; [0,100) no launch -> other 100 us; trailing 50 us
//   host-wait.
// Launch delays (kernel start - launch start): 9, 12, 25, 4 us; mean 12.5 us;
//   launch cost 2+2+6+1 = 11 us vs kernel time 35 us; k1 [40,45) (5 us) ran
//   shorter than its 6 us launch.
inline constexpr const char* kHandTrace = R"json({
 "schemaVersion": 1,
 "deviceProperties": [
  {"id": 0, "name": "Test GPU", "totalGlobalMem": 1000, "computeMajor": 9, "computeMinor": 0, "numSms": 132},
  {"id": 1, "name": "Test GPU", "totalGlobalMem": 1000, "computeMajor": 9, "computeMinor": 0, "numSms": 132}
 ],
 "distributedInfo": {"rank": 3, "world_size": 8, "backend": "nccl"},
 "traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "ts": 0, "args": {"name": "python"}},
  {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 100, "tid": 100, "ts": 0, "dur": 200},
  {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 100, "tid": 100, "ts": 1, "dur": 99, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 100, "tid": 100, "ts": 10, "dur": 20},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 100, "ts": 5,
   "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": 4096, "Total Allocated": 4096, "Total Reserved": 2097152}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 100, "ts": 90,
   "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": -4096, "Total Allocated": 0, "Total Reserved": 2097152}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 11, "dur": 2, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 13, "dur": 2, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 15, "dur": 6, "args": {"correlation": 5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 100, "tid": 100, "ts": 21, "dur": 1, "args": {"correlation": 6}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100, "tid": 100, "ts": 60, "dur": 3, "args": {"correlation": 3}},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 100, "tid": 100, "ts": 11},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": 20, "bp": "e"},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 20, "dur": 10,
   "args": {"correlation": 1, "device": 0, "stream": 7, "grid": [4, 2, 1], "block": [128, 1, 1],
            "registers per thread": 32, "shared memory": 1024, "est. achieved occupancy %": 50}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 8, "ts": 25, "dur": 10, "args": {"correlation": 2, "device": 0, "stream": 8}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 40, "dur": 5,
   "args": {"correlation": 5, "device": 0, "stream": 7, "est. achieved occupancy %": 70}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 62, "dur": 8,
   "args": {"correlation": 3, "device": 0, "stream": 7, "bytes": 8000, "memory bandwidth (GB/s)": 1.0}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 8, "ts": 65, "dur": 10,
   "args": {"correlation": 4, "device": 0, "stream": 8}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 75.010, "dur": 1,
   "args": {"correlation": 6, "device": 0, "stream": 7, "bytes": 64}},
  {"ph": "X", "cat": "kernel", "name": "k3", "pid": 1, "tid": 7, "ts": 100, "dur": 50, "args": {"device": 1, "stream": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 61, "dur": 1, "args": {"correlation": 4}},
  {"ph": "X", "cat": "weird_cat", "name": "w", "pid": 100, "tid": 100, "ts": 150, "dur": 1}
 ]
})json";

/// The shape of a PyTorch training loop as Kineto records it, for the rules
/// about recurring work. At load time (before the first step) `weights`
/// copies of 1 MiB go to the device back to back (pinned, 80 us each). Then
/// `steps` steps of 10 ms, each a "ProfilerStep#N" user annotation with, from
/// its start: per size in `per_step_sizes` one HtoD copy of that size from
/// pageable memory (launch at +0.1 ms, GPU at +0.2 ms, 50 us each, one after
/// another), then a 2 ms GEMM (grid 216, block 256) and `small_launches`
/// 2 us elementwise kernels of grid 1 and block 128, 5 us apart, each with
/// its cudaLaunchKernel call. Device 0, stream 7, microsecond timestamps.
inline std::string TrainingLoopTrace(int steps, std::vector<long> per_step_sizes, int small_launches,
                                     int weights = 0) {
  std::string ev;
  long corr = 1;
  auto add = [&](const std::string& e) { ev += (ev.empty() ? "  " : ",\n  ") + e; };
  auto at = [](double us) { return std::to_string(static_cast<long long>(us * 1000) / 1000) + "." +
                                   std::to_string(static_cast<long long>(us * 1000) % 1000 + 1000).substr(1); };
  auto launch = [&](const char* api, double ts, double dur) {
    add(R"({"ph": "X", "cat": "cuda_runtime", "name": ")" + std::string(api) +
        R"(", "pid": 100, "tid": 100, "ts": )" + at(ts) + R"(, "dur": )" + at(dur) +
        R"(, "args": {"correlation": )" + std::to_string(corr) + "}}");
  };
  auto copy = [&](const char* route, double ts, double dur, long bytes) {
    add(R"x({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD ()x" + std::string(route) +
        R"x( -> Device)", "pid": 0, "tid": 7, "ts": )x" + at(ts) + R"x(, "dur": )x" + at(dur) +
        R"x(, "args": {"correlation": )x" + std::to_string(corr) + R"x(, "device": 0, "stream": 7, "bytes": )x" +
        std::to_string(bytes) + "}}");
  };
  auto kernel = [&](const char* name, double ts, double dur, int grid, int block) {
    add(R"({"ph": "X", "cat": "kernel", "name": ")" + std::string(name) + R"(", "pid": 0, "tid": 7, "ts": )" +
        at(ts) + R"(, "dur": )" + at(dur) + R"(, "args": {"correlation": )" + std::to_string(corr) +
        R"(, "device": 0, "stream": 7, "grid": [)" + std::to_string(grid) + R"(, 1, 1], "block": [)" +
        std::to_string(block) + R"(, 1, 1]}})");
  };
  for (int i = 0; i < weights; ++i, ++corr) {
    launch("cudaMemcpyAsync", 10 + 100.0 * i, 5);
    copy("Pinned", 20 + 100.0 * i, 80, 1 << 20);
  }
  const double t0 = weights > 0 ? 100.0 * weights + 100 : 0;
  for (int s = 0; s < steps; ++s) {
    const double start = t0 + 10000.0 * s;
    add(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(s + 1) +
        R"(", "pid": 100, "tid": 100, "ts": )" + at(start) + R"(, "dur": 9990.000})");
    double gpu = start + 200;
    for (size_t c = 0; c < per_step_sizes.size(); ++c, ++corr) {
      launch("cudaMemcpyAsync", start + 100 + 10.0 * c, 8);
      copy("Pageable", gpu, 50, per_step_sizes[c]);
      gpu += 50;
    }
    launch("cudaLaunchKernel", start + 150, 6);
    kernel("ampere_sgemm_128x64_tn", gpu, 2000, 216, 256);
    ++corr;
    gpu += 2000;
    for (int k = 0; k < small_launches; ++k, ++corr) {
      launch("cudaLaunchKernel", gpu - 2, 3);
      kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float>>", gpu, 2, 1, 128);
      gpu += 5;
    }
  }
  return "{\n \"schemaVersion\": 1,\n \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", "
         "\"totalGlobalMem\": 85899345920, \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108}],\n "
         "\"traceEvents\": [\n" + ev + "\n ]\n}\n";
}

/// `launches` x `per_launch` calls of one 3 us kernel (same grid and block)
/// on an A100. `graph`: each group is one cudaGraphLaunch whose kernels
/// carry its correlation id, as CUPTI writes them; otherwise every kernel
/// has its own cudaLaunchKernel.
inline std::string RepeatedKernelTrace(int launches, int per_launch, bool graph) {
  std::string ev;
  long corr = 1;
  auto add = [&](const std::string& e) { ev += (ev.empty() ? "  " : ",\n  ") + e; };
  auto call = [&](const char* api, long ts) {
    add(R"({"ph": "X", "cat": "cuda_runtime", "name": ")" + std::string(api) +
        R"(", "pid": 100, "tid": 100, "ts": )" + std::to_string(ts) + R"(, "dur": 2, "args": {"correlation": )" +
        std::to_string(corr) + "}}");
  };
  long t = 100;
  for (int g = 0; g < launches; ++g) {
    if (graph) call("cudaGraphLaunch", t - 5);
    for (int k = 0; k < per_launch; ++k, t += 4) {
      if (!graph) call("cudaLaunchKernel", t - 3);
      add(R"({"ph": "X", "cat": "kernel", "name": "tiny_kernel", "pid": 0, "tid": 7, "ts": )" + std::to_string(t) +
          R"(, "dur": 3, "args": {"correlation": )" + std::to_string(corr) +
          R"(, "device": 0, "stream": 7, "grid": [4, 1, 1], "block": [128, 1, 1]}})");
      if (!graph) ++corr;
    }
    if (graph) ++corr;
    t += 50;
  }
  return "{\n \"schemaVersion\": 1,\n \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", "
         "\"totalGlobalMem\": 85899345920, \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108}],\n "
         "\"traceEvents\": [\n" + ev + "\n ]\n}\n";
}

/// A data-parallel training step as Kineto records it on one rank: per step
/// (`steps` of 10 ms) a 3 ms backward GEMM on stream 7 and a 2 ms NCCL
/// all-reduce of the gradients on stream 20. `overlapped`: the all-reduce
/// starts 1 ms into the backward kernel (DDP's bucketed all-reduce) and ends
/// with it; otherwise it starts when the backward kernel ends, so 2 of the
/// 5 ms of busy time per step are communication only.
inline std::string DataParallelTrace(int steps, bool overlapped) {
  std::string ev;
  auto kernel = [&](const std::string& name, long ts_us, long dur_us, int stream, long corr) {
    ev += std::string(ev.empty() ? "  " : ",\n  ") + R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", )" +
          R"("pid": 100, "tid": 100, "ts": )" + std::to_string(ts_us - 50) + R"(, "dur": 5, "args": {"correlation": )" +
          std::to_string(corr) + "}},\n  " + R"({"ph": "X", "cat": "kernel", "name": ")" + name +
          R"(", "pid": 0, "tid": )" + std::to_string(stream) + R"(, "ts": )" + std::to_string(ts_us) +
          R"(, "dur": )" + std::to_string(dur_us) + R"(, "args": {"correlation": )" + std::to_string(corr) +
          R"(, "device": 0, "stream": )" + std::to_string(stream) + R"(, "grid": [432, 1, 1], "block": [256, 1, 1]}})";
  };
  long corr = 1;
  for (int s = 0; s < steps; ++s) {
    const long start = 10000L * s + 100;
    kernel("sm80_xmma_wgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc", start, 3000, 7, corr++);
    kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
           overlapped ? start + 1000 : start + 3000, 2000, 20, corr++);
  }
  return "{\n \"schemaVersion\": 1,\n \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", "
         "\"totalGlobalMem\": 85899345920, \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108}],\n "
         "\"distributedInfo\": {\"rank\": 0, \"world_size\": 8, \"backend\": \"nccl\"},\n "
         "\"traceEvents\": [\n" + ev + "\n ]\n}\n";
}

}  // namespace gpugate::testing
