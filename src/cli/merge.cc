// `gpugate merge A.json B.json ... -o ALL.json`: join the shards of one run
// (`gpugate run --shard i/N` on N runners) into one results file.
#include <sys/stat.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "model/merge.h"
#include "model/results_json.h"
#include "util/file_write.h"
#include "util/fs.h"
#include "util/gzip.h"
#include "util/text/escape.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

// One file named twice ("s2.json s2.json", "./s2.json", a hard link) is a
// slip of the command line, said as such before any shard is read.
// Each input is looked up once (its name, and its device and inode where it
// exists), so 4,096 shards cost 4,096 stat calls, not one per pair.
Status CheckNamedOnce(const std::vector<std::string>& names) {
  std::unordered_map<std::string, size_t> by_name;
  std::map<std::pair<dev_t, ino_t>, size_t> by_file;
  for (size_t i = 0; i < names.size(); ++i) {
    std::optional<size_t> first;
    if (auto it = by_name.find(names[i]); it != by_name.end()) first = it->second;
    struct stat st {};
    const bool exists = ::stat(names[i].c_str(), &st) == 0;
    if (exists) {
      auto [it, fresh] = by_file.emplace(std::make_pair(st.st_dev, st.st_ino), i);
      if (!fresh && (!first || it->second < *first)) first = it->second;
    }
    if (first) {
      const size_t j = *first;
      return InputError(names[i] + " is given twice (inputs " + std::to_string(j + 1) + " and " +
                        std::to_string(i + 1) + (names[i] == names[j] ? "" : ", as " + names[j]) +
                        "); name each shard once");
    }
    by_name.emplace(names[i], i);
  }
  return Status::Ok();
}

}  // namespace

int MergeCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("inputs", po::value<std::vector<std::string>>()->required(), "shard results files")
      ("output,o", po::value<std::string>()->required(), "merged results file ('-' = stdout)")
      ("allow-partial", "merge even when some shards are missing (the result stays marked partial)");
  po::positional_options_description positional;
  positional.add("inputs", -1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());

  const auto names = vm["inputs"].as<std::vector<std::string>>();
  if (Status st = CheckNamedOnce(names); !st.ok()) return ReportError(st.error());
  std::vector<Results> shards;
  for (const auto& name : names) {
    Result<std::string> text = ReadFile(name);
    if (!text.ok()) return ReportError(text.error());
    if (HasGzipMagic(*text))
      return ReportError(InputError(name + ": a gzip file; merge reads shards uncompressed (gunzip it first; "
                                           "compare and gate read results compressed)"));
    Result<Results> r = ResultsFromJson(*text, name);
    if (!r.ok()) return ReportError(r.error());
    shards.push_back(std::move(r).value());
  }
  MergeOptions merge_options;
  merge_options.allow_partial = vm.count("allow-partial") > 0;
  Result<Results> merged = MergeShards(shards, names, merge_options);
  if (!merged.ok()) return ReportError(merged.error());
  const std::string out = vm["output"].as<std::string>();
  if (Status st = WriteResultsFile(out, *merged); !st.ok()) return ReportError(st.error());
  if (!IsStdoutPath(out))
    std::cerr << "gpugate: merged " << FormatCount(shards.size(), "shard") << " of run "
              << EscapeTerminal(merged->run.run_id) << " (" << FormatCount(merged->workloads.size(), "workload")
              << ") into " << EscapeTerminal(out) << "\n";
  if (merged->run.shard) ReportWarning("shards are missing; the merged run is marked " + *merged->run.shard);
  // Within one runner class shards may run on different CPU models: say so
  // (each merged workload records its CPU model).
  std::map<std::string, std::vector<std::string>> cpus;
  for (size_t i = 0; i < shards.size(); ++i)
    cpus[shards[i].run.env.cpu_model].push_back(shards[i].run.shard.value_or(names[i]));
  if (cpus.size() > 1) {
    std::string what;
    for (const auto& [model, which] : cpus) {
      std::string list;
      for (const auto& w : which) list += (list.empty() ? "" : ", ") + w;
      what += (what.empty() ? "" : "; ") + EscapeTerminal(model) + " (" + EscapeTerminal(list) + ")";
    }
    ReportWarning("the shards ran on " + std::to_string(cpus.size()) + " CPU models of runner class '" +
                  EscapeTerminal(merged->run.env.runner_class.value_or("")) + "': " + what +
                  "; each workload records its CPU model, and compare removes each CPU's speed "
                  "factor separately (it needs at least 5 workloads per CPU; with fewer, that CPU's "
                  "workloads are incomparable)");
  }
  return 0;
}

}  // namespace gpugate
