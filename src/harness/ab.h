// Interleaved A/B: run a base and a head build of the same suite round by
// round on one machine, in a seeded random order, then judge each workload on
// the PAIRED rounds. Drift of the machine (other tenants, clocks, thermal
// state) hits both sides of a round alike and cancels in the per-round ratio,
// which unpaired comparisons of separate runs cannot do.
//
//   for round r: for each workload: the side that goes first (balanced: a
//                seeded coin for rounds 1, 3, ..., the other order for the
//                round after); run one round of base and one of head (fresh
//                Prepare each)
// The harness only measures. The verdicts come from the one judge:
// CompareRuns({base}, {head}, policy, {.paired = true}) pairs round r of the
// base with round r of the head (compare/, ShiftMethod::kPairedRounds).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/suite.h"
#include "harness/runner.h"
#include "model/results.h"
#include "util/result.h"

namespace gpugate {

enum class AbSide { kBase = 0, kHead = 1 };

struct AbOptions {
  int rounds = 10;           ///< paired rounds per workload (>= 6 for a 95% interval)
  uint64_t seed = 1;         ///< order coins and synthetic draws
  std::string base_dir;      ///< substituted for {bin} in base command workloads
  std::string head_dir;      ///< substituted for {bin} in head command workloads
  std::string backend;  ///< as RunOptions.backend ("" = each workload's own)
};

/// The raw data of an A/B run: two results with the workloads in the order
/// they were first reported; rounds[r] of a base workload pairs with
/// rounds[r] of its head.
struct AbData {
  Results base;
  Results head;
  /// head_first[w][r]: whether head ran first in round r of suite workload w.
  std::vector<std::vector<bool>> head_first;
};

/// Runs one round of one side of a workload: one result, or for a benchmark
/// program (gbench, nvbench) one per benchmark its process reported. The
/// default runs the side's spec through BackendSet + RunWorkload, or
/// RunProgramWorkload; tests substitute their own.
using AbRoundRunner =
    std::function<std::vector<WorkloadResult>(const WorkloadSpec& side_spec, AbSide side, int round)>;

/// The spec one side runs in one round:
/// - sampling: one round of ceil(min_samples/rounds) .. ceil(max_samples/rounds)
///   samples, min_time/rounds, max_time/(2 * ab rounds), same warmup and stop rule;
/// - command, gbench, nvbench: "{bin}" replaced by the side's directory in
///   argv, env values and cwd; a benchmark program runs one process per side
///   and round, and its benchmarks pair round by round;
/// - synthetic: the head applies `slowdown`, the base runs at 1.0 (so a suite
///   with slowdown 1.0 is an A/A check); the per-run and per-round drift
///   factors are drawn once per A/B round and shared by both sides, as machine
///   drift would be, and each side draws its own within-round noise;
/// - builtin: unchanged (both sides run the same code: an A/A sanity check).
WorkloadSpec AbSideSpec(const WorkloadSpec& spec, AbSide side, int round, const AbOptions& options);

/// The spec with "{bin}" replaced by `dir` in argv, env values and cwd
/// (command and benchmark-program workloads; others unchanged).
WorkloadSpec WithBinDir(const WorkloadSpec& spec, const std::string& dir);

/// Bytes WithBinDir(spec, dir) adds for a folder of `dir_size` bytes: each
/// "{bin}" it replaces grows by dir_size - 5.
uint64_t BinDirGrowth(const WorkloadSpec& spec, size_t dir_size);

/// True when a command or benchmark-program workload mentions "{bin}" (else
/// both sides run the same command).
bool UsesBinDir(const WorkloadSpec& spec);

/// Interleaves the workloads' rounds. Never fails for a workload failure: it
/// is recorded as a failed workload (the remaining rounds are not run).
AbData RunAb(const Suite& suite, const std::vector<WorkloadSpec>& workloads, const AbOptions& options,
             const AbRoundRunner& run_round, ProgressSink* progress = nullptr);

/// RunAb with the real backends.
AbData RunAb(const Suite& suite, const std::vector<WorkloadSpec>& workloads, const AbOptions& options,
             ProgressSink* progress = nullptr);

}  // namespace gpugate
