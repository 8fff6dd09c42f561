// Joining the shards of one run (`gpugate run --shard i/N` on N runners) into
// one results file, so compare and baselines see the whole suite.
#pragma once

#include <string>
#include <vector>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

struct MergeOptions {
  /// Accept a set of shards that does not cover 1..N (the merged run keeps
  /// shard "partial:i,j/N" so a baseline update refuses it).
  bool allow_partial = false;
};

/// Merges shards of ONE run. `names` (file names, same length as `shards`)
/// are used in messages. Rejected with exit 2: shards of different runs
/// (run id, suite, git sha, source format), of different environments (the
/// fields that make timings incomparable, see EnvironmentDifferences), a
/// workload present in two shards, the same shard twice, shard counts that
/// disagree, a mix of sharded and unsharded files, and missing shards unless
/// allowed. Shards of one runner class may come from different CPU models:
/// then every merged workload records its shard's CPU model (cpu_model). The result has the first shard's metadata, the earliest start
/// time, no shard marker, and workloads ordered by shard index then file order.
Result<Results> MergeShards(const std::vector<Results>& shards, const std::vector<std::string>& names,
                            const MergeOptions& options = {});

}  // namespace gpugate
