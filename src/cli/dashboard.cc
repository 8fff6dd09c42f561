// `gpugate dashboard BASELINES... -o SITE/`: a static site over baseline
// histories (report/dashboard.h). A folder is searched for baseline files
// (<suite>/<runner class>.json, as `baseline update` keeps them); each file
// is one history. Every page is written atomically, index.html last.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "cli/progress.h"
#include "model/baseline.h"
#include "model/history_series.h"
#include "report/dashboard.h"
#include "util/file_write.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/text/escape.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

namespace fs = std::filesystem;

// The baseline files a path names: the file itself, or every *.json under a
// folder (sorted), skipping results and other JSON that are not baselines.
Result<std::vector<std::string>> BaselineFiles(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) return InputError(path + ": no such file or folder");
    return std::vector<std::string>{path};
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".json") files.push_back(it->path().string());
  }
  if (ec) return ToolError(path + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

/// Whether the file is whole JSON of another kind (results, a report): its
/// first bytes do not name the baseline schema, and it parses. An empty,
/// cut or binary file is not: in a baselines folder it is a broken history.
bool IsOtherJson(const std::string& path) {
  Result<std::string> text = ReadFile(path, InputKind::kData);
  if (!text.ok()) return false;
  if (text->substr(0, 4096).find("\"gpugate/baseline/") != std::string::npos) return false;
  return ParseJson(*text, path).ok();
}

/// The pages in the order they are written: workload pages, then each
/// history's page, then index.html last, so a write that fails midway
/// leaves the old index (and history pages) linking to pages that exist,
/// never a new index over old pages.
std::vector<std::pair<const std::string*, const std::string*>> WriteOrder(
    const std::map<std::string, std::string>& files) {
  auto rank = [](const std::string& rel) { return rel == "index.html" ? 2 : rel.ends_with("/index.html") ? 1 : 0; };
  std::vector<std::pair<const std::string*, const std::string*>> order;
  for (const auto& [rel, html] : files) order.emplace_back(&rel, &html);
  std::stable_sort(order.begin(), order.end(),
                   [&](const auto& a, const auto& b) { return rank(*a.first) < rank(*b.first); });
  return order;
}

}  // namespace

int DashboardCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("baselines", po::value<std::vector<std::string>>()->composing(),
       "baseline history files, or folders searched for them (<suite>/<runner class>.json)")
      ("output,o", po::value<std::string>()->required(), "folder to write the site into (created when missing)")
      ("metric", po::value<std::string>()->default_value("time"),
       "time | throughput | peak_memory, or a workload's own primary metric")
      ("title", po::value<std::string>()->default_value("gpugate performance history"), "title of the index page")
      ("alpha", po::value<double>()->default_value(0.01), "permutation p-value a change point must reach")
      ("quiet,q", "no summary on stdout");
  po::positional_options_description positional;
  positional.add("baselines", -1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  if (!vm.count("baselines")) return ReportError(InputError("give at least one baseline file or folder"));

  DashboardOptions opts;
  opts.metric = vm["metric"].as<std::string>();
  opts.title = vm["title"].as<std::string>();
  opts.change_points.alpha = vm["alpha"].as<double>();
  if (!(opts.change_points.alpha > 0 && opts.change_points.alpha < 1))
    return ReportError(InputError("--alpha must be in (0, 1)"));

  const std::string out = vm["output"].as<std::string>();
  if (out == "-" || IsStdoutPath(out))
    return ReportError(InputError("--output " + out + ": the site is a folder of pages; name a folder"));
  if (Status st = CheckOutputFolder("output", out); !st.ok()) return ReportError(st.error());
  std::vector<DashboardInput> inputs;
  // One history named twice ("h.json ./h.json", a file and its folder, a
  // hard link) once: by its path, and by its device and inode.
  std::set<std::string> seen;
  std::set<std::pair<dev_t, ino_t>> seen_files;
  for (const std::string& arg : vm["baselines"].as<std::vector<std::string>>()) {
    Result<std::vector<std::string>> files = BaselineFiles(arg);
    if (!files.ok()) return ReportError(files.error());
    const bool folder = files->size() != 1 || (*files)[0] != arg;
    for (const std::string& f : *files) {
      std::error_code same_ec;
      const std::string key = fs::weakly_canonical(fs::absolute(f, same_ec), same_ec).string();
      if (!seen.insert(same_ec ? f : key).second) continue;
      struct stat st {};
      if (::stat(f.c_str(), &st) == 0 && !seen_files.insert({st.st_dev, st.st_ino}).second) continue;
      Result<Baseline> b = ReadBaselineFile(f);
      if (!b.ok()) {
        // In a folder, JSON that is not a baseline (results, reports) is
        // skipped, said once; a history that is broken (cut short, a bad
        // sample) is an error: a site without it would hide a suite.
        if (folder && IsOtherJson(f)) {
          ReportWarning("skipped " + f + ": not a baseline history (" + b.error().message + ")");
          continue;
        }
        return ReportError(b.error());
      }
      DashboardInput in;
      in.source = f;
      in.runner_class = fs::path(f).stem().string();
      in.baseline = std::move(b).value();
      inputs.push_back(std::move(in));
    }
  }
  if (inputs.empty()) return ReportError(InputError("no baseline history found in the given paths"));
  bool known = false;
  for (const DashboardInput& in : inputs) known = known || HistoryHasMetric(in.baseline, opts.metric);
  if (!known)
    return ReportError(InputError("--metric: no history has '" + EscapeTerminal(opts.metric) +
                                  "' (time, throughput, peak_memory or a workload's own metric)"));

  const std::map<std::string, std::string> files = RenderDashboard(inputs, opts);
  // A page that is one of the histories read (a link planted in the site
  // folder, a site folder that holds a baselines folder) would replace it:
  // every page is checked before the first is written, a link followed to
  // its target as the write would follow it.
  // One stat per page against the histories' (device, inode), read above.
  std::map<std::pair<dev_t, ino_t>, const DashboardInput*> read_files;
  for (const DashboardInput& in : inputs)
    if (struct stat st {}; ::stat(in.source.c_str(), &st) == 0) read_files.emplace(std::pair{st.st_dev, st.st_ino}, &in);
  for (const auto& [rel, html] : files) {
    const std::string page = (fs::path(out) / rel).string();
    struct stat st {};
    if (::stat(ResolveFinalSymlinks(page).c_str(), &st) != 0) continue;  // a new page
    if (auto in = read_files.find({st.st_dev, st.st_ino}); in != read_files.end())
      return ReportError(InputError("--output " + out + ": the page " + EscapeTerminal(page) + " is the history " +
                                    EscapeTerminal(in->second->source) +
                                    " (through a link); writing the site would replace it: name another folder"));
  }
  size_t bytes = 0;
  for (const auto& [rel, html] : WriteOrder(files)) {
    const fs::path path = fs::path(out) / *rel;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return ReportError(ToolError(path.parent_path().string() + ": cannot create: " + ec.message()));
    if (Status st = WriteFileAtomic(path.string(), *html); !st.ok()) return ReportError(st.error());
    bytes += html->size();
  }
  if (!vm.count("quiet"))
    std::cout << "wrote " << files.size() << " pages (" << bytes / 1024 << " KiB) for " << inputs.size()
              << " baseline histor" << (inputs.size() == 1 ? "y" : "ies") << " to "
              << EscapeTerminal((std::filesystem::path(out) / "index.html").lexically_normal().string()) << "\n";
  return 0;
}

}  // namespace gpugate
