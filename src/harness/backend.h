// The Backend seam: how the harness runs one sample of a workload, whatever
// executes it (CPU kernels, CUDA, a child process, a seeded distribution).
// The runner (runner.h) owns the recipe; backends only measure.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/suite.h"
#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// One measured sample.
struct Sample {
  double seconds = 0;                   ///< measured duration of one sample (all its iterations)
  std::optional<double> user_seconds;   ///< process backend (rusage)
  std::optional<double> sys_seconds;
  std::optional<int64_t> max_rss_bytes;
  /// GPU: the SM clock measured over the sample; the runner stores the
  /// sample's cycle-space time (seconds x clock) from it.
  std::optional<double> sm_clock_hz;
};

/// A prepared workload: inputs allocated and initialised, ready to sample.
class WorkloadInstance {
 public:
  virtual ~WorkloadInstance() = default;
  /// Called before each round (round index from 0); backends may re-seed or
  /// flush caches here.
  virtual void BeginRound(int /*round*/) {}
  /// Runs and measures one sample. An Error makes the workload failed.
  virtual Result<Sample> RunSample() = 0;
  /// Work of one invocation (one of IterationsPerSample), for throughput.
  virtual WorkCounts Work() const { return {}; }
  /// Inner repetitions folded into one sample (fast kernels are batched).
  virtual int64_t IterationsPerSample() const { return 1; }
  /// Checks outputs once after measuring; an Error marks the workload failed.
  virtual Status Verify() { return Status::Ok(); }
  /// Extra readings to attach to the result (clocks, kernels, counters).
  virtual void Annotate(WorkloadResult& /*result*/) const {}
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string Name() const = 0;
  /// Whether this backend can run the workload here; if not, a reason.
  virtual std::optional<std::string> Unsupported(const WorkloadSpec& spec) const = 0;
  /// Allocates and initialises. An Error with kInputError is a config problem;
  /// any other Error skips/fails the workload with that reason.
  virtual Result<std::unique_ptr<WorkloadInstance>> Prepare(const WorkloadSpec& spec) = 0;
};

}  // namespace gpugate
