// Host-side CUDA backend logic that needs no GPU (see cuda_support.h).
#include "harness/backends/cuda_support.h"

#include <algorithm>
#include <cstdio>

namespace gpugate::detail {

int64_t L2FlushBytes(int64_t l2_bytes) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  if (l2_bytes <= 0) return 64 * kMiB;
  const int64_t twice = 2 * l2_bytes;
  return (twice + kMiB - 1) / kMiB * kMiB;
}

double ClockHzFromCounters(int64_t cycles, int64_t nanoseconds) {
  if (nanoseconds <= 0) return 0.0;
  return static_cast<double>(cycles) / static_cast<double>(nanoseconds) * 1e9;
}

bool SampleThrottled(double sample_clock_hz, double default_clock_hz, double fraction) {
  if (sample_clock_hz <= 0 || default_clock_hz <= 0) return false;
  return sample_clock_hz < fraction * default_clock_hz;
}

bool IsThrottled(const std::vector<ClockReading>& readings, double default_clock_hz) {
  for (const ClockReading& r : readings)
    if (SampleThrottled(r.sm_clock_hz, default_clock_hz)) return true;
  return false;
}

double CycleSpaceTime(double seconds, double sm_clock_hz) {
  return sm_clock_hz > 0 ? seconds * sm_clock_hz : 0.0;
}

SampleAction ThrottleTracker::OnSample(double sample_clock_hz) {
  if (!SampleThrottled(sample_clock_hz, default_clock_hz_)) {
    in_a_row_ = 0;
    return SampleAction::kKeep;
  }
  if (in_a_row_ >= max_consecutive_) {
    // Latched until a sample at a full clock: a GPU pinned low keeps every
    // sample from here on (it would pay 20 drops and their recovery waits
    // for each kept one, and time out).
    ++kept_throttled_;
    return SampleAction::kKeepThrottled;
  }
  ++in_a_row_;
  ++discarded_;
  return SampleAction::kDiscardAndRecover;
}

int64_t LaunchesBeforeRelease(int64_t iterations, int64_t queue_cap) {
  return std::max<int64_t>(0, std::min(iterations, queue_cap));
}

std::string DescribeThrottleReasons(uint64_t mask) {
  struct Bit {
    uint64_t bit;
    const char* name;
  };
  // NVML's nvmlClocksThrottleReason* (renamed nvmlClocksEventReason*) bits.
  static constexpr Bit kBits[] = {
      {0x1, "gpu_idle"},           {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},       {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},        {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"},
  };
  if (mask == 0) return "none";
  std::string out;
  uint64_t rest = mask;
  for (const Bit& b : kBits) {
    if (mask & b.bit) {
      if (!out.empty()) out += ",";
      out += b.name;
      rest &= ~b.bit;
    }
  }
  if (rest != 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(rest));
    if (!out.empty()) out += ",";
    out += buf;
  }
  return out;
}

std::string FormatCudaVersion(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string FormatComputeCapability(int major, int minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string FormatGpuUuid(const unsigned char bytes[16]) {
  std::string out = "GPU-";
  char buf[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += "-";
    std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
    out += buf;
  }
  return out;
}

}  // namespace gpugate::detail
