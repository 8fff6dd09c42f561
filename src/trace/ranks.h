// Many ranks of one distributed job: each rank's trace is analysed on its own
// (TraceAnalyzer, streaming) and reduced to a RankSummary of a few hundred
// bytes; AnalyzeRanks then compares the ranks -- per-rank GPU-window
// breakdown, stragglers per profiler step, load imbalance of compute time,
// comm/compute overlap, NCCL kernels by collective -- and, given a second
// job, the change per rank. Definitions: docs/trace.md, "Many ranks".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/analysis.h"
#include "util/result.h"

namespace gpugate {

inline constexpr const char* kTraceRanksSchema = "gpugate/trace-ranks/v1";

/// The collective of an NCCL kernel from its name: "AllReduce", "AllGather",
/// "ReduceScatter", "Broadcast", "Reduce", "AllToAll", "SendRecv" (also for
/// "Send"/"Recv" kernels), or "other" for an NCCL kernel none of these
/// names. Matches the word after "ncclKernel_" / "ncclDevKernel_" (NCCL's
/// spellings), case-sensitive, so "ncclDevKernel_AllGather_RING_LL" is
/// "AllGather" and "ncclKernel_Reduce_RING_LL_Sum_float" is "Reduce".
std::string NcclCollective(std::string_view kernel_name);

/// NCCL kernels of one collective on one rank.
struct CollectiveStats {
  std::string collective;
  int64_t count = 0, total_ns = 0;  ///< kernels, summed kernel durations
};

/// What the multi-rank report keeps of one rank's TraceReport. Times are
/// summed over the rank's analysed devices (normally one GPU per rank).
struct RankSummary {
  int64_t rank = -1;
  bool rank_from_trace = false;  ///< distributedInfo.rank (else the input order)
  std::string path;
  std::optional<int64_t> world_size;
  int64_t devices = 0;           ///< devices with GPU activity
  int64_t window_ns = 0;         ///< GPU window: first GPU start to last GPU end
  int64_t busy_ns = 0;           ///< union of kernels, memcpys, memsets
  int64_t compute_ns = 0;        ///< a non-NCCL kernel runs
  int64_t communication_ns = 0;  ///< NCCL only (no compute beside it): exposed communication
  int64_t communication_total_ns = 0;  ///< union of NCCL kernels
  int64_t overlap_ns = 0;        ///< NCCL beside compute
  int64_t idle_ns = 0;           ///< window - busy
  int64_t kernel_count = 0, kernel_time_ns = 0;  ///< all kernels, summed durations
  std::vector<CollectiveStats> collectives;      ///< by collective name
  /// Numbered "ProfilerStep#N" spans by N (the first one of each N).
  std::vector<ProfilerStep> steps;
  int64_t step_median_ns = 0;    ///< median step duration (0 without steps)

  /// overlap / communication_total, nullopt without NCCL kernels.
  std::optional<double> OverlapFraction() const;
};

/// Reduces a rank's report. `rank` is the rank to use (distributedInfo's
/// when `from_trace`, else the input position).
RankSummary SummarizeRank(const TraceReport& report, int64_t rank, bool from_trace);

/// The trace files `inputs` name: a file as given, a directory as every
/// `*.json` and `*.json.gz` directly in it (not in subdirectories), sorted
/// by name. Errors (exit 2): a directory without traces or that cannot be
/// listed (a missing file is left to the trace reader).
Result<std::vector<std::string>> ExpandTraceInputs(const std::vector<std::string>& inputs);

/// Analyses one trace per rank with `jobs` threads (each file by one thread,
/// with the streaming TraceAnalyzer; only the RankSummary is kept) and
/// returns the summaries in the order of `paths`. Rank: the trace's
/// distributedInfo.rank, else the file's position in `paths`. Errors: the
/// first input (in order) that fails, or two files with the same rank
/// (naming both). `options` must not ask for a flame graph or memory
/// timeline (they are not kept).
Result<std::vector<RankSummary>> AnalyzeRankTraces(const std::vector<std::string>& paths,
                                                    const AnalysisOptions& options, int jobs);

/// One profiler step present in every rank.
struct StepStraggler {
  int64_t step = -1;
  std::vector<int64_t> duration_ns;  ///< per rank, in RanksReport::ranks order
  int64_t median_ns = 0;             ///< median over ranks (mean of the middle two for an even count)
  size_t slowest = 0;                ///< index into RanksReport::ranks
  int64_t excess_ns = 0;             ///< slowest - median
  double excess_fraction = 0;        ///< excess / median (0 when the median is 0)
  bool flagged = false;              ///< excess_fraction > threshold
};

/// One rank's change between a baseline job and this one.
struct RankDelta {
  int64_t rank = -1;
  std::optional<size_t> base;     ///< index into RanksReport::baseline; empty: the rank is new
  std::optional<size_t> current;  ///< index into RanksReport::ranks; empty: the rank is gone
};

struct RanksOptions {
  /// A step is a straggler step when its slowest rank exceeds the median by
  /// more than this fraction of the median.
  double straggler_threshold = 0.10;
};

struct RanksReport {
  RanksOptions options;
  std::vector<RankSummary> ranks;             ///< by rank
  std::vector<StepStraggler> steps;           ///< steps in every rank, by number
  int64_t steps_not_in_all = 0;               ///< numbered steps missing from some rank
  std::vector<int64_t> straggler_count;       ///< per rank: flagged steps where it was slowest
  /// Load imbalance of compute time: max / mean over ranks (nullopt when no
  /// rank has compute), and the ranks (indices) with most and least.
  std::optional<double> compute_imbalance;
  size_t most_compute = 0, least_compute = 0;
  std::vector<std::string> collectives;       ///< every collective seen, sorted
  std::vector<RankSummary> baseline;          ///< the baseline job, by rank (empty: no comparison)
  std::vector<RankDelta> deltas;              ///< by rank, over both jobs

  int64_t FlaggedSteps() const;
};

/// Orders the ranks, finds stragglers, imbalance and collectives, and pairs
/// the ranks with `baseline` (another job's summaries; may be empty).
/// Precondition: ranks are distinct within each list.
RanksReport AnalyzeRanks(std::vector<RankSummary> ranks, std::vector<RankSummary> baseline,
                         const RanksOptions& options);

}  // namespace gpugate
