// Host-side logic of the CUDA backend that needs no GPU: clock conversion,
// throttle detection, L2 flush sizing, NVML throttle-reason decoding and
// version formatting. Plain C++, unit-tested on any machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/results.h"

namespace gpugate::detail {

/// Bytes written to flush L2 before a cold sample: twice the L2 size (so
/// every resident line is evicted even under non-LRU replacement), rounded
/// up to a MiB; 64 MiB when the L2 size is unknown (<= 0).
int64_t L2FlushBytes(int64_t l2_bytes);

/// SM clock in Hz from a clock64() cycle delta over a %globaltimer delta
/// (nanoseconds), as nvbench estimates it. 0 when `nanoseconds` <= 0.
double ClockHzFromCounters(int64_t cycles, int64_t nanoseconds);

/// Whether any reading is more than `tolerance` (a fraction) below
/// `max_clock_hz`. False without readings or without a known maximum.
bool IsThrottled(const std::vector<ClockReading>& readings, double max_clock_hz,
                 double tolerance = 0.10);

/// NVML clocks-event (throttle) reason bits as a comma-separated list of
/// names ("sw_power_cap,hw_slowdown"); "none" for 0. Bits are those of
/// nvmlClocksThrottleReasons / nvmlClocksEventReasons; unknown bits appear
/// as hex.
std::string DescribeThrottleReasons(uint64_t mask);

/// CUDA's integer versions (1000 * major + 10 * minor) as "13.0", "12.4".
std::string FormatCudaVersion(int version);

/// "8.0" from major 8, minor 0.
std::string FormatComputeCapability(int major, int minor);

/// The 16 bytes of a device UUID in NVML's text form
/// ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx").
std::string FormatGpuUuid(const unsigned char bytes[16]);

}  // namespace gpugate::detail
