// The history dashboard's pages (report/dashboard.h): one per history and
// workload, change points with their commits, hostile names kept as text,
// names that slug alike kept apart, and the bound on runs.
#include "report/dashboard.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate {
namespace {

Results Run(int i, const std::vector<std::pair<std::string, double>>& workloads) {
  Results r;
  r.run.run_id = "run" + std::to_string(i);
  char t[32];
  std::snprintf(t, sizeof t, "2026-11-%02dT03:00:00Z", 1 + i % 28);
  r.run.time_utc = t;
  r.run.git_sha = "c0de" + std::to_string(1000 + i) + "0123456789abcdef";
  for (const auto& [name, level] : workloads) {
    WorkloadResult w;
    w.name = name;
    w.kind = "synthetic";
    w.backend = "synthetic";
    // Three rounds around the level (+-0.5%), so each run's median is the level.
    w.rounds = {{level * 0.995, level, level * 1.005}, {level, level * 1.002}, {level * 0.998, level}};
    r.workloads.push_back(std::move(w));
  }
  return r;
}

DashboardInput History(int runs, const std::string& hostile) {
  DashboardInput in;
  in.source = "baselines/suite/ci.json";
  in.runner_class = "ci";
  in.baseline.suite = "suite";
  for (int i = 0; i < runs; ++i) {
    const double step = i >= runs / 2 ? 1.3 : 1.0;  // "slow" steps up by 30% halfway
    in.baseline.runs.push_back(Run(i, {{"slow", 1e-3 * step * (1 + 0.001 * (i % 3))},
                                       {"flat", 2e-3 * (1 + 0.001 * (i % 2))},
                                       {hostile, 3e-3},
                                       {"a b", 1e-3},
                                       {"a-b", 1e-3}}));
  }
  return in;
}

const std::string kHostile = "<script>alert(1)</script>\"'&";

std::string PageOf(const std::map<std::string, std::string>& files, const std::string& prefix) {
  for (const auto& [path, html] : files)
    if (path.find("/" + prefix) != std::string::npos && path.find("index.html") == std::string::npos) return html;
  ADD_FAILURE() << "no page " << prefix;
  return "";
}

TEST(Dashboard, PagesForEveryHistoryAndWorkload) {
  const auto files = RenderDashboard({History(12, kHostile)}, {});
  // index, the class page, 5 workload pages.
  EXPECT_EQ(files.size(), 7u);
  ASSERT_TRUE(files.count("index.html"));
  EXPECT_NE(files.at("index.html").find(">ci</a>"), std::string::npos);
  int class_pages = 0;
  for (const auto& [path, html] : files) {
    class_pages += path != "index.html" && path.find("/index.html") != std::string::npos;
    // Every page: no markup from a name, and the one CSP.
    EXPECT_EQ(html.find("<script>alert"), std::string::npos) << path;
    EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos) << path;
    for (char c : path) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '/') << path;
  }
  EXPECT_EQ(class_pages, 1);
}

TEST(Dashboard, ChangePointWithItsCommit) {
  const auto files = RenderDashboard({History(12, kHostile)}, {});
  const std::string slow = PageOf(files, "slow-");
  EXPECT_NE(slow.find("Change points (1)"), std::string::npos);
  EXPECT_NE(slow.find("+30.0%"), std::string::npos) << slow;
  EXPECT_NE(slow.find("<td>c0de10060123"), std::string::npos);  // run 7, the first at the new level
  EXPECT_NE(slow.find("class=\"cp\""), std::string::npos);
  const std::string flat = PageOf(files, "flat-");
  EXPECT_NE(flat.find("Change points (0)"), std::string::npos);
  EXPECT_NE(flat.find("No step change."), std::string::npos);
}

TEST(Dashboard, NamesThatSlugAlikeGetPagesOfTheirOwn) {
  const auto files = RenderDashboard({History(4, kHostile)}, {});
  std::vector<std::string> ab;
  for (const auto& [path, html] : files)
    if (path.find("/a-b-") != std::string::npos) ab.push_back(path);
  EXPECT_EQ(ab.size(), 2u);
}

// Two names whose slugs (cut at 48 characters) and 32-bit hashes are the
// same: each keeps a page of its own, and its index row links to it.
TEST(Dashboard, NamesWhosePathsCollideGetPagesOfTheirOwn) {
  const std::string a = "BM_MatrixMultiplyBlockedTiled_Float32_RowMajor/256/794";
  const std::string b = "BM_MatrixMultiplyBlockedTiled_Float32_RowMajor/284/940";
  DashboardInput in;
  in.source = "baselines/suite/ci.json";
  in.runner_class = "ci";
  in.baseline.suite = "suite";
  for (int i = 0; i < 3; ++i) in.baseline.runs.push_back(gpugate::Run(i, {{a, 1e-3}, {b, 2e-3}}));
  const auto files = RenderDashboard({in}, {});
  std::vector<std::string> pages;
  for (const auto& [path, html] : files)
    if (!path.ends_with("index.html")) pages.push_back(path);
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_NE(files.at(pages[0]).find("<h1>"), std::string::npos);
  const bool first_is_a = files.at(pages[0]).find("256/794") != std::string::npos;
  EXPECT_NE(files.at(pages[first_is_a ? 1 : 0]).find("284/940"), std::string::npos);
  std::string class_page;
  for (const auto& [path, html] : files)
    if (path != "index.html" && path.ends_with("/index.html")) class_page = html;
  for (const std::string& page : pages)
    EXPECT_NE(class_page.find(page.substr(page.rfind('/') + 1)), std::string::npos) << page;
}

// Two branches' baselines hold the same suite and runner class: each keeps
// pages of its own, and the index tells them apart by their file.
TEST(Dashboard, OneSuiteAndClassFromTwoFilesKeepsBoth) {
  DashboardInput main = History(6, "x"), release = History(3, "x");
  main.source = "br/main/suite/ci.json";
  release.source = "br/release/suite/ci.json";
  const auto files = RenderDashboard({main, release}, {});
  std::vector<std::string> class_pages;
  for (const auto& [path, html] : files)
    if (path != "index.html" && path.ends_with("/index.html")) class_pages.push_back(path);
  ASSERT_EQ(class_pages.size(), 2u);
  EXPECT_NE(class_pages[0], class_pages[1]);
  const std::string& index = files.at("index.html");
  EXPECT_NE(index.find("br/main/suite/ci.json"), std::string::npos);
  EXPECT_NE(index.find("br/release/suite/ci.json"), std::string::npos);
  EXPECT_EQ(files.size(), 1u + 2 * (1 + 5));  // index, and per history its page and 5 workloads
  // One history alone keeps the plain path (links do not move).
  const auto alone = RenderDashboard({main}, {});
  EXPECT_TRUE(alone.count(class_pages[0]) == 0 && alone.count(class_pages[1]) == 0);
}

TEST(Dashboard, ShortHistoriesSaySoAndLongOnesAreBounded) {
  auto files = RenderDashboard({History(4, kHostile)}, {});
  EXPECT_NE(PageOf(files, "slow-").find("Too few runs to test"), std::string::npos);
  files = RenderDashboard({History(8, "x")}, {});
  EXPECT_NE(PageOf(files, "slow-").find("Too few runs to find a step reliably at p ≤ 0.01 (11 or more are needed)."),
            std::string::npos);
  files = RenderDashboard({History(static_cast<int>(kDashboardRuns) + 20, "x")}, {});
  bool said = false;
  for (const auto& [path, html] : files)
    said = said || html.find("(the newest 500 of 520, runs 21–520)") != std::string::npos;
  EXPECT_TRUE(said);
}

// A bounded history keeps the run numbers of `gpugate history` and
// `baseline show` (counted from the oldest stored run) and says what was
// left out.
TEST(Dashboard, ABoundedHistoryKeepsItsRunNumbers) {
  const auto files = RenderDashboard({History(static_cast<int>(kDashboardRuns) + 20, "x")}, {});
  const std::string slow = PageOf(files, "slow-");
  // "slow" steps up at run index 260: run 261 of 520, not run 241 of the newest 500.
  EXPECT_NE(slow.find("(run 261)"), std::string::npos) << slow.substr(0, 2000);
  EXPECT_EQ(slow.find("(run 241)"), std::string::npos);
  EXPECT_NE(slow.find("time in 500 of the newest 500 runs (runs 21–520; the 20 older runs are left out)"),
            std::string::npos)
      << slow.substr(0, 2000);
  EXPECT_NE(slow.find("<tr><td class=\"num\">520</td>"), std::string::npos);  // the newest run
  EXPECT_NE(slow.find("<tr><td class=\"num\">21</td>"), std::string::npos);   // the oldest one drawn
  EXPECT_EQ(slow.find("<tr><td class=\"num\">1</td>"), std::string::npos);
}

}  // namespace
}  // namespace gpugate
