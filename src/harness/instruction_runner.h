// The deterministic lane: `measure: instructions` on a command workload runs
// the command under valgrind's cachegrind and records the instructions it
// executed (and, with `cache_sim: true`, an estimated cycle count). A count of
// the same binary on the same input does not depend on the machine's load,
// so a shared CPU runner can gate it at 1% where wall time moves by tens of
// percent. Semantics and measured spread: docs/instructions.md.
//
//   for each execution (up to `rounds`): valgrind --tool=cachegrind ... argv
//     -> sum the cachegrind files of the process and its children -> one sample
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/suite.h"
#include "harness/runner.h"
#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Counts from one cachegrind output file (or the sum of several).
struct InstructionCounts {
  int64_t instructions = 0;              ///< Ir
  std::optional<int64_t> l1_misses;      ///< I1mr + D1mr + D1mw (cache simulation only)
  std::optional<int64_t> ll_misses;      ///< ILmr + DLmr + DLmw (cache simulation only)
  /// Ir + 10 * L1 misses + 100 * LL misses: the weights cachegrind's own
  /// documentation uses for a rough cycle estimate. An estimate, not a
  /// measurement: no pipeline, no prefetching, no memory-level parallelism.
  std::optional<int64_t> EstimatedCycles() const;
};

/// Path of valgrind: $GPUGATE_VALGRIND if set, else `valgrind` on PATH. A
/// missing one is an error naming the Debian/Ubuntu package to install.
Result<std::string> FindValgrind();

/// The command line that runs `argv` under cachegrind, writing one file per
/// process (children included) as `<out_dir>/cg.<pid>`.
std::vector<std::string> CachegrindArgv(const std::string& valgrind, const std::vector<std::string>& argv,
                                        const std::string& out_dir, bool cache_sim);

/// Parses a cachegrind output file: its `events:` line and the `summary:`
/// line (or, without one, the sum of the cost lines). `name` is used in
/// errors: "name:line:col: message".
Result<InstructionCounts> ParseCachegrindOut(std::string_view text, const std::string& name);

/// Runs `spec` (kind command, measure instructions) `spec.sampling.rounds`
/// times under cachegrind. Each execution is one round of one sample: the
/// instructions of the process and every child it started. The result's
/// primary metric is "instructions" (unit "instructions", deterministic);
/// counters: estimated_cycles, l1_misses, ll_misses (cache_sim),
/// valgrind_wall_s. A missing valgrind, a failing command or a timeout is a
/// failed workload with the reason.
WorkloadResult RunInstructionWorkload(const WorkloadSpec& spec, ProgressSink* progress = nullptr);

}  // namespace gpugate
