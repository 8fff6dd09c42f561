// Multi-rank reduction and comparison (trace/ranks.h).
#include "trace/ranks.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <thread>

#include "util/strings.h"

namespace gpugate {
namespace {

/// Collective names, longest first where one is a prefix of another.
constexpr const char* kCollectives[] = {"AllReduce", "AllGather", "AllToAll", "ReduceScatter", "Reduce",
                                        "Broadcast", "SendRecv",  "Send",     "Recv"};

/// The collective `text` starts with, or "" (longest match first).
std::string_view CollectivePrefix(std::string_view text) {
  for (const char* c : kCollectives) {
    std::string_view name(c);
    if (text.substr(0, name.size()) == name) return name;
  }
  return {};
}

/// Median of integers: the middle one, or the mean of the middle two (rounded down).
int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const int64_t upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const int64_t lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2;
}

void FindStragglers(RanksReport& r) {
  const size_t n = r.ranks.size();
  r.straggler_count.assign(n, 0);
  // Step number -> duration per rank; a step is kept only if every rank has it.
  std::map<int64_t, std::vector<int64_t>> by_step;
  for (size_t i = 0; i < n; ++i)
    for (const ProfilerStep& st : r.ranks[i].steps) {
      std::vector<int64_t>& d = by_step[st.number];
      d.resize(n, -1);
      d[i] = st.end_ns - st.start_ns;
    }
  for (auto& [number, durations] : by_step) {
    if (std::count(durations.begin(), durations.end(), -1) > 0) {
      ++r.steps_not_in_all;
      continue;
    }
    StepStraggler s;
    s.step = number;
    s.duration_ns = std::move(durations);
    s.median_ns = Median(s.duration_ns);
    s.slowest = static_cast<size_t>(std::max_element(s.duration_ns.begin(), s.duration_ns.end()) -
                                    s.duration_ns.begin());
    s.excess_ns = s.duration_ns[s.slowest] - s.median_ns;
    s.excess_fraction = s.median_ns > 0 ? static_cast<double>(s.excess_ns) / static_cast<double>(s.median_ns) : 0;
    s.flagged = n > 1 && s.excess_fraction > r.options.straggler_threshold;
    if (s.flagged) ++r.straggler_count[s.slowest];
    r.steps.push_back(std::move(s));
  }
}

void FindImbalance(RanksReport& r) {
  if (r.ranks.empty()) return;
  double sum = 0;  // of up to 4096 ranks' 64-bit figures: as a double
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    sum += static_cast<double>(r.ranks[i].compute_ns);
    if (r.ranks[i].compute_ns > r.ranks[r.most_compute].compute_ns) r.most_compute = i;
    if (r.ranks[i].compute_ns < r.ranks[r.least_compute].compute_ns) r.least_compute = i;
  }
  if (sum <= 0) return;
  const double mean = sum / static_cast<double>(r.ranks.size());
  r.compute_imbalance = static_cast<double>(r.ranks[r.most_compute].compute_ns) / mean;
}

void PairWithBaseline(RanksReport& r) {
  if (r.baseline.empty()) return;
  std::map<int64_t, RankDelta> by_rank;
  for (size_t i = 0; i < r.baseline.size(); ++i) {
    RankDelta& d = by_rank[r.baseline[i].rank];
    d.rank = r.baseline[i].rank;
    d.base = i;
  }
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    RankDelta& d = by_rank[r.ranks[i].rank];
    d.rank = r.ranks[i].rank;
    d.current = i;
  }
  for (auto& [rank, d] : by_rank) r.deltas.push_back(d);
}

bool ByRank(const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; }

}  // namespace

std::string NcclCollective(std::string_view name) {
  for (std::string_view prefix : {std::string_view("ncclKernel_"), std::string_view("ncclDevKernel_")}) {
    const size_t at = name.find(prefix);
    if (at == std::string_view::npos) continue;
    std::string_view rest = name.substr(at + prefix.size());
    std::string_view token = rest.substr(0, rest.find_first_of("_(<"));
    std::string_view c = CollectivePrefix(token);
    if (c.empty() || c.size() != token.size()) return "other";
    return c == "Send" || c == "Recv" ? "SendRecv" : std::string(c);
  }
  // Older NCCL: "ncclAllReduceRingLLKernel_sum_f32".
  const size_t at = name.find("nccl");
  if (at != std::string_view::npos) {
    std::string_view c = CollectivePrefix(name.substr(at + 4));
    if (!c.empty()) return c == "Send" || c == "Recv" ? "SendRecv" : std::string(c);
  }
  return "other";
}

std::optional<double> RankSummary::OverlapFraction() const {
  if (communication_total_ns <= 0) return std::nullopt;
  return static_cast<double>(overlap_ns) / static_cast<double>(communication_total_ns);
}

RankSummary SummarizeRank(const TraceReport& report, int64_t rank, bool from_trace) {
  RankSummary s;
  s.rank = rank;
  s.rank_from_trace = from_trace;
  s.path = report.info.path;
  s.world_size = report.info.world_size;
  std::map<std::string, CollectiveStats> collectives;
  // Each device's figures fit 64-bit nanoseconds; their sum over a rank's
  // devices saturates rather than wrap (docs/trace.md, "Limits").
  auto add = [](int64_t& sum, int64_t v) {
    if (__builtin_add_overflow(sum, v, &sum)) sum = v > 0 ? INT64_MAX : INT64_MIN;
  };
  for (const DeviceStats& d : report.devices) {
    ++s.devices;
    add(s.window_ns, d.WindowNs());
    add(s.busy_ns, d.busy_ns);
    add(s.compute_ns, d.compute_ns);
    add(s.communication_ns, d.communication_ns);
    add(s.communication_total_ns, d.communication_total_ns);
    add(s.overlap_ns, d.comm_compute_overlap_ns);
    add(s.idle_ns, d.window_idle_ns);
    add(s.kernel_count, d.kernel_count);
    add(s.kernel_time_ns, d.kernel_time_ns);
    for (const KernelStats& k : d.kernels) {
      if (!k.communication) continue;
      std::string c = NcclCollective(k.name);
      CollectiveStats& cs = collectives[c];
      cs.collective = c;
      add(cs.count, k.count);
      add(cs.total_ns, k.total_ns);
    }
  }
  for (auto& [name, cs] : collectives) s.collectives.push_back(std::move(cs));
  std::set<int64_t> seen;
  for (const ProfilerStep& st : report.steps)
    if (st.number >= 0 && seen.insert(st.number).second) s.steps.push_back(st);
  std::sort(s.steps.begin(), s.steps.end(),
            [](const ProfilerStep& a, const ProfilerStep& b) { return a.number < b.number; });
  std::vector<int64_t> durations;
  durations.reserve(s.steps.size());
  for (const ProfilerStep& st : s.steps) durations.push_back(st.end_ns - st.start_ns);
  s.step_median_ns = Median(std::move(durations));
  return s;
}

Result<std::vector<std::string>> ExpandTraceInputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(input, ec)) {
      out.push_back(input);  // the reader reports a missing or unreadable file
      continue;
    }
    std::vector<std::string> found;
    for (auto it = std::filesystem::directory_iterator(input, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!(EndsWith(name, ".json") || EndsWith(name, ".json.gz"))) continue;
      std::error_code type_ec;
      if (it->is_regular_file(type_ec)) found.push_back(it->path().string());
    }
    if (ec) return InputError(input + ": cannot list the directory: " + ec.message());
    if (found.empty()) return InputError(input + ": no *.json or *.json.gz traces in the directory");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

Result<std::vector<RankSummary>> AnalyzeRankTraces(const std::vector<std::string>& paths,
                                                    const AnalysisOptions& options, int jobs) {
  const size_t n = paths.size();
  std::vector<std::optional<Result<RankSummary>>> slots(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        Result<TraceReport> report = AnalyzeTrace(paths[i], options);
        if (!report.ok()) {
          slots[i].emplace(report.error());
          continue;
        }
        const bool from_trace = report->info.rank.has_value();
        slots[i].emplace(SummarizeRank(*report, from_trace ? *report->info.rank : static_cast<int64_t>(i),
                                       from_trace));
      } catch (const std::exception& e) {
        slots[i].emplace(ToolError(paths[i] + ": analysis failed: " + e.what()));
      }
    }
  };
  const size_t threads = std::min(n, static_cast<size_t>(std::max(jobs, 1)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  std::vector<RankSummary> out;
  std::map<int64_t, const std::string*> seen;
  for (size_t i = 0; i < n; ++i) {
    Result<RankSummary>& r = *slots[i];
    if (!r.ok()) return r.error();
    auto [it, inserted] = seen.emplace(r->rank, &paths[i]);
    if (!inserted)
      return InputError("duplicate rank " + std::to_string(r->rank) + ": " + *it->second + " and " + paths[i] +
                        (r->rank_from_trace ? " (distributedInfo.rank)" : ""));
    out.push_back(std::move(r).value());
  }
  return out;
}

int64_t RanksReport::FlaggedSteps() const {
  return std::count_if(steps.begin(), steps.end(), [](const StepStraggler& s) { return s.flagged; });
}

RanksReport AnalyzeRanks(std::vector<RankSummary> ranks, std::vector<RankSummary> baseline,
                         const RanksOptions& options) {
  RanksReport r;
  r.options = options;
  r.ranks = std::move(ranks);
  r.baseline = std::move(baseline);
  std::sort(r.ranks.begin(), r.ranks.end(), ByRank);
  std::sort(r.baseline.begin(), r.baseline.end(), ByRank);
  FindStragglers(r);
  FindImbalance(r);
  std::set<std::string> names;
  for (const RankSummary& s : r.ranks)
    for (const CollectiveStats& c : s.collectives) names.insert(c.collective);
  r.collectives.assign(names.begin(), names.end());
  PairWithBaseline(r);
  return r;
}

}  // namespace gpugate
