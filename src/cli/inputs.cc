// Comparison inputs of any supported format.
#include "cli/inputs.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <optional>

#include "ingest/format.h"
#include "model/baseline.h"
#include "model/results_json.h"
#include "trace/to_results.h"
#include "util/fs.h"
#include "util/gzip.h"
#include "util/json.h"

namespace gpugate {

namespace {

Result<std::string> ReadHead(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return CannotOpen(path, errno);
  std::string head(kSniffBytes, '\0');
  size_t n = std::fread(head.data(), 1, head.size(), f);
  std::fclose(f);
  head.resize(n);
  return head;
}

}  // namespace

Result<std::vector<Results>> LoadRuns(const std::string& path, const IngestOptions& options,
                                      InputFormat* told) {
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
  // A regular file is sniffed from its head and read by the format's reader
  // (a trace streams); a FIFO or device can be read once only, so it is
  // read whole, within the input size limit, and parsed from memory.
  const bool stream = !IsRegularFile(path) && std::filesystem::exists(path, ec);
  std::optional<std::string> whole;
  Result<std::string> head = std::string();
  if (stream) {
    Result<std::string> text = ReadFile(path, InputKind::kData);
    if (!text.ok()) return text.error();
    whole = std::move(text).value();
    head = whole->substr(0, kSniffBytes);
  } else {
    head = ReadHead(path);
    if (!head.ok()) return head.error();
  }
  if (head->find_first_not_of(" \t\r\n") == std::string::npos && head->size() < kSniffBytes)
    return InputError(path + ": empty file" + (head->empty() ? "" : " (only blanks)"));
  InputFormat format = SniffFormat(*head);
  bool all_seen_text = false;  // `whole` holds the decompressed text of a gzip file
  // gzip: the format is told from the decompressed head. A trace streams
  // through the trace reader's own decompression. Any other format, and a
  // head that does not tell (keys sorted, or a gzip header or empty members
  // longer than the head), is decompressed whole within the input size limit,
  // which then counts decompressed bytes, and told from the whole text; what
  // is too large to hold is left to the trace reader, which streams it and
  // says what it lacks.
  const bool gzip = HasGzipMagic(*head);
  if (gzip) {
    const bool file_seen = head->size() < kSniffBytes;
    // A file held whole is inflated whole, trailer and CRC checked; of a
    // larger one the head is enough to tell the format.
    bool head_too_large = false;
    Result<std::string> inner = Gunzip(*head, kSniffBytes, path, /*prefix_only=*/!file_seen,
                                       &head_too_large);
    if (!inner.ok() && file_seen && !head_too_large) return inner.error();
    if (!inner.ok() && head_too_large) inner = Gunzip(*head, kSniffBytes, path, /*prefix_only=*/true);
    if (inner.ok() && HasGzipMagic(*inner))
      return InputError(path + ": gzip data inside gzip data (compressed twice?): decompress it "
                               "once (gunzip) and give the result");
    format = inner.ok() ? SniffFormat(*inner) : InputFormat::kUnknown;
    const bool all_seen = file_seen && inner.ok() && inner->size() < kSniffBytes;
    if (format != InputFormat::kChromeTrace && !(format == InputFormat::kUnknown && all_seen)) {
      Result<int64_t> limit = MaxInputBytes(InputKind::kData);
      if (!limit.ok()) return limit.error();
      if (!whole) {
        Result<std::string> text = ReadFile(path, InputKind::kData);
        if (!text.ok()) return text.error();
        whole = std::move(text).value();
      }
      bool too_large = false;
      Result<std::string> text = Gunzip(*whole, static_cast<size_t>(*limit), path, false, &too_large);
      if (text.ok()) {
        whole = std::move(text).value();
        if (format == InputFormat::kUnknown) format = SniffFormat(*whole);
        all_seen_text = true;
      } else if (too_large && format == InputFormat::kUnknown) {
        format = InputFormat::kChromeTrace;
      } else {
        return text.error();
      }
    } else if (all_seen) {
      whole = std::move(inner).value();
      all_seen_text = true;
    }
    if (all_seen_text && whole->find_first_not_of(" \t\r\n") == std::string::npos)
      return InputError(path + ": empty file (after gzip decompression)");
  }
  // The keys that tell the formats apart may all come after the first
  // kSniffBytes (a file whose keys were sorted, `jq -S`: "benchmarks" with
  // every result before "context" or "devices"): look at the whole file.
  if (format == InputFormat::kUnknown && !gzip && head->size() >= kSniffBytes) {
    if (!whole) {
      Result<std::string> text = ReadFile(path, InputKind::kData);
      if (!text.ok()) return text.error();
      whole = std::move(text).value();
    }
    format = SniffFormat(*whole);
  }
  auto one = [](Result<Results> r) -> Result<std::vector<Results>> {
    if (!r.ok()) return r.error();
    std::vector<Results> v;
    v.push_back(std::move(r).value());
    return v;
  };
  if (told) *told = format;
  switch (format) {
    case InputFormat::kGpugateResults:
      return one(whole ? ResultsFromJson(*whole, path) : ReadResultsFile(path));
    case InputFormat::kGpugateBaseline: {
      Result<Baseline> b = whole ? BaselineFromJson(*whole, path) : ReadBaselineFile(path);
      if (!b.ok()) return b.error();
      if (b->runs.empty()) return InputError(path + ": the baseline holds no runs");
      return std::move(b->runs);
    }
    case InputFormat::kGbench:
    case InputFormat::kNvbench:
    case InputFormat::kCustom:
    case InputFormat::kPytest:
      return one(whole ? IngestBenchmarkText(*whole, path, options)
                       : IngestBenchmarkFile(path, options));
    case InputFormat::kChromeTrace:
      return one(whole ? TraceTextToResults(*whole, path) : TraceToResults(path));
    case InputFormat::kUnknown:
      break;
  }
  // Another file gpugate writes (its verdicts, a device profile): say which,
  // not "unrecognised" (a plain, short schema name only).
  const std::string schema = SniffSchema(whole ? *whole : *head);
  if (schema.starts_with("gpugate/") && schema.size() <= 64 &&
      schema.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789/._-") == std::string::npos)
    return InputError(path + ": a '" + schema +
                      "' file, which gpugate writes but does not read as a run: compare and gate read "
                      "results ('gpugate/results/...'), baselines ('gpugate/baseline/...') and benchmark files");
  // A file cut short before the keys that tell its format: say where it ends.
  std::string what = ": unrecognised input";
  if (std::optional<std::string> wide = WideEncodingText(whole ? *whole : *head))
    return InputError(path + ": " + *wide);
  if (whole || head->size() < kSniffBytes) {
    if (auto at = JsonCutShortAt(whole ? *whole : *head))
      what = ":" + std::to_string(at->first) + ":" + std::to_string(at->second) +
             ": unexpected end of file (truncated?) before its format could be told";
  }
  return InputError(path + what + (gzip ? " (after gzip decompression)" : "") +
                    ": expected gpugate results or baseline, " + kBenchmarkFormatsText +
                    ", or a Chrome/Kineto trace");
}

BaselineInFolder FindBaselineInFolder(const std::string& folder, const std::string& suite,
                                      const std::vector<std::string>& keys) {
  GPUGATE_CHECK(!keys.empty());
  BaselineInFolder out;
  std::error_code ec;
  for (const std::string& key : keys) {
    std::string path = BaselinePath(folder, suite, key);
    if (std::filesystem::is_regular_file(path, ec)) {
      out.path = path;
      out.exists = true;
      break;
    }
  }
  if (!out.exists) out.path = BaselinePath(folder, suite, keys.front());
  const std::filesystem::path dir = std::filesystem::path(out.path).parent_path();
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() != ".json" || it->path().string() == out.path) continue;
    out.others.push_back(it->path().stem().string());
    if (out.others.size() >= 50) break;
  }
  std::sort(out.others.begin(), out.others.end());
  return out;
}

std::string FirstRunText(const std::string& path, const std::string& store,
                         const BaselineInFolder* found, const std::string& folder,
                         const std::string& suite, const std::string& key) {
  // Where the store is not this machine's to write (the Action reads a
  // scratch copy of its baseline branch), the caller says what starts it.
  const char* hint = std::getenv("GPUGATE_FIRST_RUN_HINT");
  const bool use_hint = hint != nullptr && *hint != '\0' && std::strpbrk(hint, "\r\n") == nullptr;
  std::string text = "no baseline yet at " + path + ": nothing was compared" +
                     (use_hint ? "; " + std::string(hint) : ", this run starts it (" + store + ")");
  if (found == nullptr) return text;
  if (found->others.empty()) return text + "; " + folder + " holds no baseline of suite '" + suite + "' yet";
  text += "; " + folder + " holds suite '" + suite + "' for the runner class" +
          (found->others.size() == 1 ? " " : "es ");
  for (size_t i = 0; i < found->others.size(); ++i) text += (i ? ", " : "") + found->others[i];
  return text + ", not for '" + key + "': name one with --env-key";
}

Result<Results> LoadRun(const std::string& path, const IngestOptions& options) {
  InputFormat format = InputFormat::kUnknown;
  Result<std::vector<Results>> runs = LoadRuns(path, options, &format);
  if (!runs.ok()) return runs.error();
  if (format == InputFormat::kGpugateBaseline) {
    const size_t n = runs->size();
    return InputError(path + ": a baseline history (" + std::to_string(n) + (n == 1 ? " run" : " runs") +
                      ") given as a current run: the baseline comes first and the current runs after it "
                      "(gpugate compare BASELINE CURRENT...); to compare with one run of a history, "
                      "give that run's results file");
  }
  return std::move(runs->back());
}

}  // namespace gpugate
