// Small Kineto-like traces of one rank of a data-parallel job, for the
// multi-rank tests: distributedInfo, a "ProfilerStep#N" user_annotation per
// step, and per step a compute kernel on stream 7 and an NCCL kernel on
// stream 20 that starts before the compute kernel ends (so part of the NCCL
// time overlaps compute), each with its cudaLaunchKernel call.
//
// Step s starts at t_s (the sum of the earlier step durations) and, in us
// from t_s: launch calls at +1 and +2; compute [5, 5 + compute_us); NCCL
// [5 + compute_us - overlap_us, ... + nccl_us). Per step: busy
// compute_us + nccl_us - overlap_us, overlap overlap_us, exposed NCCL
// nccl_us - overlap_us. The GPU window runs from t_0 + 5 to the end of the
// last step's last kernel.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace gpugate::testing {

struct RankTraceSpec {
  int rank = 0;
  int world_size = 4;
  bool distributed_info = true;        ///< write distributedInfo
  std::vector<int> step_us = {200, 200, 200};
  int first_step = 0;                  ///< number of the first ProfilerStep
  int compute_us = 60, nccl_us = 20, overlap_us = 10;
  /// NCCL kernel name of each step, cycled.
  std::vector<std::string> nccl_names = {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"};
};

inline std::string RankTrace(const RankTraceSpec& s) {
  std::string t = "{\n \"schemaVersion\": 1,\n \"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\"}],\n";
  if (s.distributed_info)
    t += " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(s.rank) +
         ", \"world_size\": " + std::to_string(s.world_size) + "},\n";
  t += " \"traceEvents\": [\n";
  const long long base = 1700000000000000LL;  // us
  long long start = base;
  int corr = 1;
  bool first = true;
  auto add = [&](const std::string& e) {
    t += (first ? "  " : ",\n  ") + e;
    first = false;
  };
  auto x = [](const char* cat, const std::string& name, int pid, int tid, long long ts, long long dur,
              const std::string& args) {
    std::string json_name;
    for (char c : name) {
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        json_name += buf;
        continue;
      }
      if (c == '"' || c == '\\') json_name += '\\';
      json_name += c;
    }
    return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + json_name +
           "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) +
           ", \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + ", \"args\": {" + args + "}}";
  };
  for (size_t i = 0; i < s.step_us.size(); ++i) {
    const std::string nccl = s.nccl_names[i % s.nccl_names.size()];
    add(x("user_annotation", "ProfilerStep#" + std::to_string(s.first_step + static_cast<int>(i)), 10, 10, start,
          s.step_us[i], ""));
    const int c1 = corr++, c2 = corr++;
    add(x("cuda_runtime", "cudaLaunchKernel", 10, 10, start + 1, 1, "\"correlation\": " + std::to_string(c1)));
    add(x("cuda_runtime", "cudaLaunchKernel", 10, 10, start + 2, 1, "\"correlation\": " + std::to_string(c2)));
    add(x("kernel", "sgemm_128x64_tn", 0, 7, start + 5, s.compute_us,
          "\"device\": 0, \"stream\": 7, \"correlation\": " + std::to_string(c1)));
    add(x("kernel", nccl, 0, 20, start + 5 + s.compute_us - s.overlap_us, s.nccl_us,
          "\"device\": 0, \"stream\": 20, \"correlation\": " + std::to_string(c2)));
    start += s.step_us[i];
  }
  t += "\n ]\n}\n";
  return t;
}

}  // namespace gpugate::testing
