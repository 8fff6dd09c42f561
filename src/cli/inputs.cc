// Comparison inputs of any supported format.
#include "cli/inputs.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "ingest/format.h"
#include "model/baseline.h"
#include "model/results_json.h"
#include "trace/to_results.h"

namespace gpugate {

namespace {

Result<std::string> ReadHead(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return InputError(path + ": cannot open: " + std::strerror(errno));
  std::string head(kSniffBytes, '\0');
  size_t n = std::fread(head.data(), 1, head.size(), f);
  std::fclose(f);
  head.resize(n);
  return head;
}

}  // namespace

Result<std::vector<Results>> LoadRuns(const std::string& path, const IngestOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::string found;
    int n = 0;
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         !ec && it != std::filesystem::recursive_directory_iterator() && n < 5; it.increment(ec)) {
      if (it->is_regular_file(ec) && it->path().extension() == ".json") {
        found += (n++ ? ", " : " (JSON files there: ") + it->path().string();
      }
    }
    if (n > 0) found += n == 5 ? ", ...)" : ")";
    return InputError(path + ": is a folder; give one file (gpugate baseline update keeps "
                             "<folder>/<suite>/<environment>.json)" + found);
  }
  Result<std::string> head = ReadHead(path);
  if (!head.ok()) return head.error();
  if (head->empty()) return InputError(path + ": empty file");
  InputFormat format = SniffFormat(*head);
  auto one = [](Result<Results> r) -> Result<std::vector<Results>> {
    if (!r.ok()) return r.error();
    std::vector<Results> v;
    v.push_back(std::move(r).value());
    return v;
  };
  switch (format) {
    case InputFormat::kGpugateResults:
      return one(ReadResultsFile(path));
    case InputFormat::kGpugateBaseline: {
      Result<Baseline> b = ReadBaselineFile(path);
      if (!b.ok()) return b.error();
      if (b->runs.empty()) return InputError(path + ": the baseline holds no runs");
      return std::move(b->runs);
    }
    case InputFormat::kGbench:
    case InputFormat::kNvbench:
    case InputFormat::kCustom:
    case InputFormat::kPytest:
      return one(IngestBenchmarkFile(path, options));
    case InputFormat::kChromeTrace:
      return one(TraceToResults(path));
    case InputFormat::kUnknown:
      break;
  }
  return InputError(path + ": unrecognised input: expected gpugate results or baseline, " +
                    kBenchmarkFormatsText + ", or a Chrome/Kineto trace");
}

Result<Results> LoadRun(const std::string& path, const IngestOptions& options) {
  Result<std::vector<Results>> runs = LoadRuns(path, options);
  if (!runs.ok()) return runs.error();
  return std::move(runs->back());
}

}  // namespace gpugate
