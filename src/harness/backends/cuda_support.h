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

/// nvbench's throttle rule: a sample whose SM clock, measured around it, is
/// below this fraction of the device's default SM clock ran throttled.
inline constexpr double kThrottledClockFraction = 0.75;
/// Pause after a throttled sample before the next one, so the GPU can come
/// back to its clock (nvbench waits 50 ms).
inline constexpr double kThrottleRecoverySeconds = 0.05;
/// Throttled samples in a row after which a sample is kept anyway (and the
/// workload flagged throttled), so a GPU pinned below 75% still ends.
inline constexpr int kMaxConsecutiveThrottled = 20;

/// Whether a sample ran throttled: both clocks known (> 0) and the sample's
/// below `fraction` of the default.
bool SampleThrottled(double sample_clock_hz, double default_clock_hz,
                     double fraction = kThrottledClockFraction);

/// Whether any round's reading ran throttled by the same rule as a sample
/// (SampleThrottled against the default clock). The default clock is CUDA's
/// (cudaDevAttrClockRate), never NVML's maximum: a GPU holds its boost clock
/// well below that maximum under load. False without readings or without a
/// known default; failed readings (0) are left out.
bool IsThrottled(const std::vector<ClockReading>& readings, double default_clock_hz);

/// Cycle-space duration of a sample: seconds x the SM clock measured around
/// it (cycles), independent of the clock the GPU happened to run at. 0 when
/// the clock is unknown (<= 0).
double CycleSpaceTime(double seconds, double sm_clock_hz);

/// What to do with a measured sample.
enum class SampleAction {
  kKeep,               ///< clock fine (or unknown)
  kDiscardAndRecover,  ///< throttled: drop it, wait kThrottleRecoverySeconds, measure again
  kKeepThrottled,      ///< throttled, but `max_consecutive` were dropped in a row: keep it
};

/// Applies the throttle rule sample by sample and counts what it dropped.
class ThrottleTracker {
 public:
  explicit ThrottleTracker(double default_clock_hz, int max_consecutive = kMaxConsecutiveThrottled)
      : default_clock_hz_(default_clock_hz), max_consecutive_(max_consecutive) {}

  SampleAction OnSample(double sample_clock_hz);

  int discarded() const { return discarded_; }          ///< throttled samples dropped
  int kept_throttled() const { return kept_throttled_; }  ///< throttled samples kept (limit hit)

 private:
  double default_clock_hz_;
  int max_consecutive_;
  int in_a_row_ = 0;
  int discarded_ = 0;
  int kept_throttled_ = 0;
};

/// Launches queued behind the blocking kernel before it is released: all
/// `iterations` up to `queue_cap`. Beyond the cap the host would wait on a
/// full launch queue while the device waits on the host, so the rest are
/// queued after the release (the start event is long since behind real work).
int64_t LaunchesBeforeRelease(int64_t iterations, int64_t queue_cap);

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
