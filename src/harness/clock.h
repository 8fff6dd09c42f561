// The clock seam of the harness: the runner reads wall time only through this
// interface, so its stop rule and timeout can be tested with a fake clock.
#pragma once

#include <chrono>

namespace gpugate {

/// A monotonic clock in seconds. Only differences between readings matter.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Seconds since an arbitrary fixed origin; never decreases.
  virtual double Now() = 0;
};

/// std::chrono::steady_clock, the default clock of the runner.
class SteadyClock final : public Clock {
 public:
  double Now() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace gpugate
