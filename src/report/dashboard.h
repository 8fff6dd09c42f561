// `gpugate dashboard`: a static site over baseline histories, for GitHub
// Pages or any file server. Pure: baselines in, files (relative path ->
// bytes) out; src/cli/dashboard.cc reads and writes. docs/dashboard.md.
//
//   index.html                              every suite and runner class
//   <suite>/<class>/index.html              its workloads: last level, change
//                                           over the history, steps, a sparkline
//   <suite>/<class>/<workload>.html         the trend over runs, its change
//                                           points and the commits they fall on,
//                                           and every run
//
// Path parts are slugs with a hash of the full name (names are untrusted
// and may collide after slugging); every text is escaped. Bounded: at most
// kDashboardRuns runs per history and kDashboardWorkloads workloads per
// history are drawn (the page says what was left out).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/baseline.h"
#include "stats/change_point.h"

namespace gpugate {

inline constexpr size_t kDashboardRuns = 500;
inline constexpr size_t kDashboardWorkloads = 2000;

/// One baseline history and where it came from.
struct DashboardInput {
  std::string source;        ///< the file it was read from (shown)
  std::string runner_class;  ///< its runner class: the file stem, or the environment key
  Baseline baseline;
};

struct DashboardOptions {
  std::string title = "gpugate performance history";
  std::string metric = "time";
  ChangePointOptions change_points;
};

/// The site's files by relative path ("index.html", "<suite>/<class>/...").
std::map<std::string, std::string> RenderDashboard(const std::vector<DashboardInput>& inputs,
                                                   const DashboardOptions& options);

}  // namespace gpugate
