// nvbench JSON -> results. Recipe: parse, check the JSON format version, read
// the devices into GpuInfo, then turn every state of every benchmark into a
// workload: raw samples from the --jsonbin sidecar when it can be used, the
// summaries (mean GPU time with its noise) otherwise.
#include "ingest/nvbench.h"


#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "model/environment.h"
#include "ingest/ingest_util.h"
#include "model/limits.h"
#include "stats/summary.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strings.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

using detail::FieldReader;

// The JSON format major version this reader understands (meta.version.json).
constexpr int64_t kNvbenchJsonMajor = 1;

struct Device {
  int64_t id = 0;
  GpuInfo gpu;
};

// One summary's data entries, by data name (usually just "value").
struct SummaryData {
  std::map<std::string, double> numbers;       // finite numbers only
  std::map<std::string, const JsonValue*> at;  // where each number was written
  std::map<std::string, std::string> strings;  // type "string"
};

// Parses nvbench's number-as-string ("0.001", "499", "nan", "inf").
std::optional<double> ParseNumberText(const std::string& s) {
  double v = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

Result<SummaryData> ReadSummaryData(const std::string& file, const JsonValue& summary,
                                    const std::string& path) {
  SummaryData out;
  FieldReader f(file, summary, path);
  Result<const JsonValue*> data = f.Array("data");
  if (!data.ok()) return data.error();
  if (*data == nullptr) return out;
  for (size_t i = 0; i < (*data)->items.size(); ++i) {
    const JsonValue& d = (*data)->items[i];
    std::string dpath = path + ".data[" + std::to_string(i) + "]";
    if (!d.IsObject())
      return JsonError(file, d, dpath, std::string("expected an object, got ") + d.TypeName());
    FieldReader df(file, d, dpath);
    auto name = df.String("name");
    if (!name.ok()) return name.error();
    auto type = df.String("type");
    if (!type.ok()) return type.error();
    if (!*name) return df.Missing("name", d, dpath, "missing \"name\"");
    const JsonValue* value = d.Find("value");
    if (value == nullptr || value->IsNull()) continue;  // e.g. infinite noise written as null
    std::string t = type->value_or("");
    if (t == "string") {
      if (!value->IsString())
        return JsonError(file, *value, dpath + ".value",
                         std::string("expected a string, got ") + value->TypeName());
      out.strings[**name] = value->string;
      continue;
    }
    // int64 / float64: written as strings to keep precision; plain numbers accepted.
    double number = 0;
    if (value->IsNumber()) {
      number = value->number;
    } else if (value->IsString()) {
      std::optional<double> parsed = ParseNumberText(value->string);
      if (!parsed) {
        if (t == "int64" || t == "float64")
          return JsonError(file, *value, dpath + ".value",
                           "expected a number in a string, got " + QuoteInput(value->string));
        out.strings[**name] = value->string;  // an unknown type: keep the text
        continue;
      }
      number = *parsed;
    } else {
      return JsonError(file, *value, dpath + ".value",
                       std::string("expected a number or a string, got ") + value->TypeName());
    }
    if (std::isfinite(number)) {  // NaN/inf: missing
      out.numbers[**name] = number;
      out.at[**name] = value;
    }
  }
  return out;
}

Result<std::vector<Device>> ReadDevices(const std::string& file, const JsonValue* devices) {
  std::vector<Device> out;
  if (devices == nullptr) return out;
  for (size_t i = 0; i < devices->items.size(); ++i) {
    const JsonValue& d = devices->items[i];
    std::string path = "devices[" + std::to_string(i) + "]";
    if (!d.IsObject())
      return JsonError(file, d, path, std::string("expected an object, got ") + d.TypeName());
    FieldReader f(file, d, path);
    Device dev;
    auto id = f.Integer("id");
    if (!id.ok()) return id.error();
    auto name = f.String("name");
    if (!name.ok()) return name.error();
    auto sm = f.Integer("sm_version");
    if (!sm.ok()) return sm.error();
    auto clock = f.Number("sm_default_clock_rate");
    if (!clock.ok()) return clock.error();
    auto sms = f.Integer("number_of_sms");
    if (!sms.ok()) return sms.error();
    auto mem = f.Integer("global_memory_size");
    if (!mem.ok()) return mem.error();
    auto mem_clock = f.Number("global_memory_bus_peak_clock_rate");
    if (!mem_clock.ok()) return mem_clock.error();
    auto l2 = f.Integer("l2_cache_size");
    if (!l2.ok()) return l2.error();
    auto ecc = f.Bool("ecc_state");
    if (!ecc.ok()) return ecc.error();
    // A device no machine has switches the environment checks off: refused.
    auto bad = [&](const char* key, const std::string& what) {
      return JsonError(file, *d.Find(key), path + "." + key, what);
    };
    if (*name && (*name)->empty()) return bad("name", "expected the device's name, got an empty string");
    if (*sms && **sms < 1) return bad("number_of_sms", "expected a positive count, got " + std::to_string(**sms));
    if (*clock && !(**clock > 0 && std::isfinite(**clock)))
      return bad("sm_default_clock_rate", "expected a positive clock rate");
    if (*mem_clock && !(**mem_clock > 0 && std::isfinite(**mem_clock)))
      return bad("global_memory_bus_peak_clock_rate", "expected a positive clock rate");
    if (*mem && **mem < 1) return bad("global_memory_size", "expected a positive size, got " + std::to_string(**mem));
    if (*l2 && **l2 < 0) return bad("l2_cache_size", "expected a size of 0 or more, got " + std::to_string(**l2));
    dev.id = id->value_or(static_cast<int64_t>(i));
    dev.gpu.name = *name;
    if (*sm) {
      // sm_version is major*100 + minor*10: 700 -> "7.0", 860 -> "8.6", 1200 -> "12.0".
      dev.gpu.compute_capability =
          std::to_string(**sm / 100) + "." + std::to_string((**sm % 100) / 10);
    }
    dev.gpu.device_index = static_cast<int>(dev.id);
    if (*sms) dev.gpu.sm_count = static_cast<int>(**sms);
    if (*clock && std::isfinite(**clock)) dev.gpu.sm_clock_hz = **clock;
    if (*mem_clock && std::isfinite(**mem_clock)) dev.gpu.mem_clock_hz = **mem_clock;
    dev.gpu.memory_bytes = *mem;
    dev.gpu.l2_bytes = *l2;
    dev.gpu.ecc_enabled = *ecc;
    out.push_back(std::move(dev));
  }
  return out;
}

const Device* FindDevice(const std::vector<Device>& devices, int64_t id) {
  for (const Device& d : devices)
    if (d.id == id) return &d;
  return nullptr;
}

// The environment's GPU: the one device the states ran on, or, when they ran
// on several different models, their names and compute capabilities joined
// with " + " and no per-device numbers (they would describe only one of them).
GpuInfo EnvironmentGpu(const std::vector<Device>& devices, const std::set<int64_t>& used) {
  std::vector<const Device*> list;
  for (int64_t id : used)
    if (const Device* d = FindDevice(devices, id)) list.push_back(d);
  if (list.empty() && devices.size() == 1) list.push_back(&devices.front());
  if (list.empty()) return GpuInfo{};
  bool same = true;
  for (const Device* d : list)
    same = same && d->gpu.name == list.front()->gpu.name &&
           d->gpu.compute_capability == list.front()->gpu.compute_capability;
  if (list.size() == 1 || same) {
    GpuInfo g = list.front()->gpu;
    if (list.size() > 1) g.device_index.reset();
    return g;
  }
  GpuInfo g;
  std::string names, ccs;
  for (const Device* d : list) {
    names += (names.empty() ? "" : " + ") + d->gpu.name.value_or("?");
    ccs += (ccs.empty() ? "" : " + ") + d->gpu.compute_capability.value_or("?");
  }
  g.name = names;
  g.compute_capability = ccs;
  return g;
}

// Reads `count` little-endian float32 values; nullopt when the file is
// missing, has another size, or holds a negative or non-finite value, or --
// with `require_positive`, for times -- one that is not below 1e9 s and > 0.
std::optional<std::vector<double>> ReadFloat32File(const std::string& path, int64_t count,
                                                   bool require_positive) {
  // The name comes from the JSON: only a regular file is read (a FIFO could
  // block, a device never end).
  if (!IsRegularFile(path)) return std::nullopt;
  Result<std::string> bytes = ReadFile(path);
  if (!bytes.ok() || count <= 0 || bytes->size() != static_cast<size_t>(count) * 4)
    return std::nullopt;
  std::vector<double> out;
  out.reserve(static_cast<size_t>(count));
  const unsigned char* p = reinterpret_cast<const unsigned char*>(bytes->data());
  for (int64_t i = 0; i < count; ++i, p += 4) {
    uint32_t bits = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                    static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    double v = f;
    if (!std::isfinite(v) || (require_positive && (v <= 0 || v >= kMaxTimeSeconds)) || v < 0)
      return std::nullopt;
    out.push_back(v);
  }
  return out;
}

// nvbench writes sidecar names relative to the JSON file's folder (older
// versions: relative to the launch folder, usually the JSON's parent).
// Where a sidecar named `file` may be read: next to the JSON, then in its
// parent (older nvbench wrote names relative to the launch folder). A name
// is data from a file that may come from anyone: it is followed only within
// those two folders, never up out of them or to a file elsewhere. nvbench
// writes an absolute name when given an absolute --json path; such a name
// is used when it lies within them; and since the file may have been moved
// (as an artifact is), its last two parts ("out.json-bin/3.bin") are looked
// for next to the JSON last.
std::vector<std::string> SidecarCandidates(const std::string& base_dir, const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path base = fs::absolute(fs::path(base_dir.empty() ? "." : base_dir), ec).lexically_normal();
  if (ec) return {};
  const fs::path parent = base.has_relative_path() ? base.parent_path() : base;
  auto within = [](const fs::path& p, const fs::path& dir) {
    const fs::path rel = p.lexically_relative(dir);
    return !rel.empty() && *rel.begin() != ".." && !rel.is_absolute();
  };
  const fs::path name(file);
  std::vector<std::string> out;
  auto add = [&](const fs::path& p) {
    const fs::path normal = p.lexically_normal();
    if ((within(normal, base) || within(normal, parent)) &&
        std::find(out.begin(), out.end(), normal.string()) == out.end())
      out.push_back(normal.string());
  };
  if (name.is_absolute()) {
    add(name);
  } else {
    add(base / name);
    add(parent / name);
  }
  {
    // The last two parts, next to the JSON.
    fs::path tail;
    for (const fs::path& part : name) {
      if (part == ".." || part == "." || part == "/" || part.empty()) continue;
      tail = tail.empty() ? part : tail.filename() / part;
    }
    if (!tail.empty()) add(base / tail);
  }
  return out;
}

enum class SidecarState { kAbsent, kUsed, kUnusable };

SidecarState LoadSidecar(const std::map<std::string, SummaryData>& summaries,
                         const std::string& tag, const std::string& base_dir, bool positive,
                         std::vector<double>* out) {
  auto it = summaries.find(tag);
  if (it == summaries.end()) return SidecarState::kAbsent;
  auto file = it->second.strings.find("filename");
  auto size = it->second.numbers.find("size");
  if (file == it->second.strings.end() || size == it->second.numbers.end() ||
      !(size->second >= 1 && size->second <= static_cast<double>(kMaxSamplesPerResult)))
    return SidecarState::kUnusable;  // nvbench could not write it, or a count no run has
  for (const std::string& path : SidecarCandidates(base_dir, file->second)) {
    if (auto values = ReadFloat32File(path, static_cast<int64_t>(size->second), positive)) {
      *out = std::move(*values);
      return SidecarState::kUsed;
    }
  }
  return SidecarState::kUnusable;
}

// A summary's tag is also a key of the workload's "counters": printable
// text (NameProblem, as names are checked), so that no two become one key
// where the writer repairs text, and not a name gpugate gives its own
// counters (docs/ingest.md; "processes" by `run`, docs/suite.md), which
// would overwrite it or be overwritten.
Status CheckSummaryTag(const FieldReader& f, const JsonValue& at, const std::string& path, const std::string& tag) {
  if (std::optional<std::string> problem = NameProblem(tag))
    return f.ErrorAt(at, path, "a summary tag must be printable text: " + *problem);
  static const std::set<std::string, std::less<>> own = {
      "processes", "nvbench_device", "cpu_only", "sample_size", "stdev_rel", "cpu_time", "batch_gpu_time",
      "batch_sample_size", "items_per_second", "bytes_per_second", "bw_utilization", "sample_file_missing",
      "only_summary", "single_sample", "summary_is_mean"};
  if (own.count(tag))
    return f.ErrorAt(at, path,
                     "tag " + QuoteInput(tag) + ": gpugate writes a counter of this name itself (docs/ingest.md)");
  return Status::Ok();
}

std::optional<double> Value(const std::map<std::string, SummaryData>& summaries,
                            const std::string& tag) {
  auto it = summaries.find(tag);
  if (it == summaries.end()) return std::nullopt;
  auto v = it->second.numbers.find("value");
  if (v == it->second.numbers.end()) return std::nullopt;
  return v->second;
}

// Names, counters, work counts and throughput from the summaries. Element
// and byte counts are whole numbers from 0 to below 1e18, and so are their
// sums (a results file holds no other): anything else is an error at the
// count (`file`, `path` name the state).
Status ApplySummaryCounters(const std::map<std::string, SummaryData>& summaries, const std::string& prefix,
                            const std::string& file, const std::string& path, WorkloadResult* w) {
  double items = 0, bytes = 0;
  bool has_items = false, has_bytes = false;
  for (const auto& [tag, data] : summaries) {
    auto v = data.numbers.find("value");
    if (v == data.numbers.end()) continue;
    w->counters[tag] = v->second;
    const bool is_items = StartsWith(tag, "nv/element_count/");
    const bool is_bytes = StartsWith(tag, "nv/gmem/reads/") || StartsWith(tag, "nv/gmem/writes/");
    if (!is_items && !is_bytes) continue;
    double& sum = is_items ? items : bytes;
    std::optional<std::string> problem = CountProblem(v->second);
    if (!problem && sum + v->second >= kMaxMetricValue)
      problem = "makes the state's " + std::string(is_items ? "element" : "byte") + " count 1e18 or more";
    if (problem) {
      auto at = data.at.find("value");
      return at != data.at.end() && at->second != nullptr
                 ? Status(JsonError(file, *at->second, path + " summary '" + tag + "'", "count " + *problem))
                 : Status(InputError(file + ": " + path + " summary '" + tag + "': count " + *problem));
    }
    sum += v->second;
    (is_items ? has_items : has_bytes) = true;
  }
  if (has_items) w->work.items = static_cast<int64_t>(items);
  if (has_bytes) w->work.bytes = static_cast<int64_t>(bytes);
  if (auto v = Value(summaries, prefix + "/sample_size")) w->counters["sample_size"] = *v;
  std::string time = prefix == "nv/cold" ? "/time/gpu" : "/time/cpu";
  if (auto v = Value(summaries, prefix + time + "/stdev/relative")) w->counters["stdev_rel"] = *v;
  if (auto v = Value(summaries, "nv/cold/time/cpu/mean")) w->counters["cpu_time"] = *v;
  if (auto v = Value(summaries, "nv/batch/time/gpu/mean")) w->counters["batch_gpu_time"] = *v;
  if (auto v = Value(summaries, "nv/batch/sample_size")) w->counters["batch_sample_size"] = *v;
  if (auto v = Value(summaries, prefix + "/bw/item_rate")) w->counters["items_per_second"] = *v;
  if (auto v = Value(summaries, prefix + "/bw/global/bytes_per_second"); v && *v >= 0) {
    w->bytes_per_second = *v;
    w->counters["bytes_per_second"] = *v;
  }
  if (auto v = Value(summaries, prefix + "/bw/global/utilization"))
    w->counters["bw_utilization"] = *v;
  if (auto v = Value(summaries, "nv/cold/sm_clock_rate/mean"))
    w->clocks.push_back(ClockReading{0, *v, std::nullopt, std::nullopt, std::nullopt});
  return Status::Ok();
}

struct StateContext {
  const std::string& file;
  const std::string& base_dir;
  const std::vector<Device>& devices;
  bool several_devices = false;
};

// "Device=0 BlockSize=2^6" -> "BlockSize=2^6"; "Device=1" -> "".
std::string StripDevice(const std::string& state_name) {
  if (!StartsWith(state_name, "Device=")) return state_name;
  size_t space = state_name.find(' ');
  return space == std::string::npos ? "" : Trim(state_name.substr(space + 1));
}

Result<WorkloadResult> ReadState(const StateContext& ctx, const std::string& bench,
                                 const JsonValue& state, const std::string& path) {
  if (!state.IsObject())
    return JsonError(ctx.file, state, path, std::string("expected an object, got ") + state.TypeName());
  FieldReader f(ctx.file, state, path);
  auto state_name = f.String("name");
  if (!state_name.ok()) return state_name.error();
  auto device = f.Integer("device");
  if (!device.ok()) return device.error();
  auto is_skipped = f.Bool("is_skipped");
  if (!is_skipped.ok()) return is_skipped.error();
  auto skip_reason = f.String("skip_reason");
  if (!skip_reason.ok()) return skip_reason.error();
  auto axis_values = f.Array("axis_values");
  if (!axis_values.ok()) return axis_values.error();
  auto summaries_json = f.Array("summaries");
  if (!summaries_json.ok()) return summaries_json.error();

  if (const JsonValue* n = state.Find("name"); n && n->IsString()) {
    if (std::optional<std::string> problem = NameProblem(n->string))
      return f.ErrorAt(*n, f.PathOf("name"), "a state name must be printable text: " + *problem);
  }
  WorkloadResult w;
  w.kind = "nvbench";
  w.backend = "ingest";
  std::string axes = StripDevice(state_name->value_or(""));
  w.name = axes.empty() ? bench : bench + "/" + axes;
  if (*axis_values) {
    for (size_t i = 0; i < (*axis_values)->items.size(); ++i) {
      const JsonValue& a = (*axis_values)->items[i];
      std::string apath = path + ".axis_values[" + std::to_string(i) + "]";
      if (!a.IsObject())
        return JsonError(ctx.file, a, apath, std::string("expected an object, got ") + a.TypeName());
      FieldReader af(ctx.file, a, apath);
      auto an = af.String("name");
      if (!an.ok()) return an.error();
      // An axis name is a key of the workload's "params": printable text
      // (NameProblem, as names are checked), once per state.
      if (const JsonValue* n = a.Find("name"); n && n->IsString()) {
        if (std::optional<std::string> problem = NameProblem(n->string))
          return af.ErrorAt(*n, af.PathOf("name"), "an axis name must be printable text: " + *problem);
        for (const auto& param : w.params)
          if (param.first == n->string)
            return af.ErrorAt(*n, af.PathOf("name"), "axis " + QuoteInput(n->string) + " is named twice in this state");
      }
      const JsonValue* av = a.Find("value");
      std::string value;
      if (av && av->IsString()) value = av->string;
      else if (av && av->IsNumber()) value = detail::FormatNumber(av->number);
      else if (av && !av->IsNull())
        return JsonError(ctx.file, *av, apath + ".value",
                         std::string("expected a string or a number, got ") + av->TypeName());
      w.params.emplace_back(an->value_or(""), value);
    }
  }
  // The device of every state, whatever the file's naming: compare matches
  // a state of a one-device file with the same state of a file of several.
  if (*device) w.counters["nvbench_device"] = static_cast<double>(**device);
  if (ctx.several_devices && *device) {
    for (const auto& param : w.params)
      if (param.first == "device")
        return JsonError(ctx.file, state, path,
                         "an axis named 'device' in a file of several devices, whose states gpugate names by "
                         "their device (params.device)");
    w.name += " [dev" + std::to_string(**device) + "]";
    w.params.emplace_back("device", std::to_string(**device));
    if (const Device* d = FindDevice(ctx.devices, **device); d && d->gpu.name)
      w.tags.push_back("device:" + *d->gpu.name);
  }
  if (is_skipped->value_or(false)) {
    w.status = WorkloadStatus::kSkipped;
    w.reason = "skipped by nvbench" + (*skip_reason ? ": " + **skip_reason : std::string());
    return w;
  }

  std::map<std::string, SummaryData> summaries;
  if (*summaries_json) {
    for (size_t i = 0; i < (*summaries_json)->items.size(); ++i) {
      const JsonValue& s = (*summaries_json)->items[i];
      std::string spath = path + ".summaries[" + std::to_string(i) + "]";
      if (!s.IsObject())
        return JsonError(ctx.file, s, spath, std::string("expected an object, got ") + s.TypeName());
      FieldReader sf(ctx.file, s, spath);
      auto tag = sf.String("tag");
      if (!tag.ok()) return tag.error();
      if (!*tag) return sf.Missing("tag", s, spath, "missing \"tag\"");
      if (Status st = CheckSummaryTag(sf, *s.Find("tag"), spath + ".tag", **tag); !st.ok()) return st.error();
      Result<SummaryData> data = ReadSummaryData(ctx.file, s, spath);
      if (!data.ok()) return data.error();
      summaries[**tag] = std::move(*data);
    }
  }

  // GPU (cold) measurements, or a CPU-only benchmark's.
  std::string prefix = "nv/cold";
  std::optional<double> mean = Value(summaries, "nv/cold/time/gpu/mean");
  if (!mean) {
    mean = Value(summaries, "nv/cpu_only/time/cpu/mean");
    if (mean) {
      prefix = "nv/cpu_only";
      w.counters["cpu_only"] = 1;
    }
  }
  if (Status st = ApplySummaryCounters(summaries, prefix, ctx.file, path, &w); !st.ok()) return st.error();

  if (mean && *mean != 0) {
    if (std::optional<std::string> problem = TimeProblem(*mean)) {
      const std::string tag = prefix + (prefix == "nv/cold" ? "/time/gpu/mean" : "/time/cpu/mean");
      const SummaryData& data = summaries.at(tag);
      return JsonError(ctx.file, *data.at.at("value"), path + " summary '" + tag + "'",
                       "mean time " + *problem);
    }
  }

  std::vector<double> samples;
  SidecarState sidecar = LoadSidecar(summaries, "nv/json/bin:" + prefix + "/sample_times",
                                     ctx.base_dir, /*positive=*/true, &samples);
  if (sidecar == SidecarState::kUsed) {
    w.rounds.push_back(std::move(samples));
    // Per-sample SM clock rates (Hz): their mean is the round's clock reading
    // when the summaries did not already give one.
    std::vector<double> freqs;
    if (LoadSidecar(summaries, "nv/json/freqs-bin:" + prefix + "/sample_freqs", ctx.base_dir,
                    /*positive=*/false, &freqs) == SidecarState::kUsed &&
        !freqs.empty() && w.clocks.empty()) {
      double sum = 0;
      for (double hz : freqs) sum += hz;
      w.clocks.push_back(ClockReading{0, sum / static_cast<double>(freqs.size()), std::nullopt,
                                      std::nullopt, std::nullopt});
    }
  } else {
    if (sidecar == SidecarState::kUnusable) w.counters["sample_file_missing"] = 1;
    if (!mean || *mean <= 0) {
      w.status = WorkloadStatus::kSkipped;
      w.reason = mean ? "mean time is not positive"
                      : "no time summary (nv/cold/time/gpu/mean or nv/cpu_only/time/cpu/mean)";
      return w;
    }
    w.rounds.push_back({*mean});
    w.counters["only_summary"] = 1;
    w.counters["single_sample"] = 1;
    // The summary is a mean: a side that kept its samples is read as their
    // mean against it, not their median (a skewed state's mean is well
    // above its median).
    w.counters["summary_is_mean"] = 1;
  }
  w.summary = Summarize(AllSamples(w));
  return w;
}

Status ReadMeta(const std::string& file, const JsonValue* meta, RunInfo* run) {
  if (meta == nullptr) return Status::Ok();
  FieldReader f(file, *meta, "meta");
  auto argv = f.Array("argv");
  if (!argv.ok()) return argv.error();
  if (*argv) {
    std::string joined;
    for (const JsonValue& a : (*argv)->items)
      if (a.IsString()) joined += (joined.empty() ? "" : " ") + a.string;
    run->source_context["argv"] = joined;
    // Without a program's name (an empty argv[0]) the suite stays the file's.
    if (!(*argv)->items.empty() && (*argv)->items[0].IsString())
      if (const std::string program = ProgramName((*argv)->items[0].string); !program.empty())
        run->suite = NameFromFileName(program);
  }
  auto version = f.Object("version");
  if (!version.ok()) return version.error();
  if (*version == nullptr) return Status::Ok();
  FieldReader vf(file, **version, "meta.version");
  auto json = vf.Object("json");
  if (!json.ok()) return json.error();
  if (*json) {
    FieldReader jf(file, **json, "meta.version.json");
    auto major = jf.Integer("major");
    if (!major.ok()) return major.error();
    auto text = jf.String("string");
    if (!text.ok()) return text.error();
    if (*text) run->source_context["nvbench_json_version"] = **text;
    if (*major && **major != kNvbenchJsonMajor)
      return JsonError(file, *(*json)->Find("major"), "meta.version.json.major",
                       "nvbench JSON format " + std::to_string(**major) +
                           ".x is not supported (this reader knows " +
                           std::to_string(kNvbenchJsonMajor) + ".x)");
  }
  auto nvbench = vf.Object("nvbench");
  if (!nvbench.ok()) return nvbench.error();
  if (*nvbench) {
    for (const char* key : {"string", "git_sha", "git_version"}) {
      const JsonValue* v = (*nvbench)->Find(key);
      if (v && v->IsString())
        run->source_context[std::string("nvbench_") + (std::string(key) == "string" ? "version" : key)] =
            v->string;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Results> NvbenchFromJson(std::string_view text, const std::string& name,
                                const std::string& base_dir) {
  Result<JsonValue> doc = ParseJson(text, name);
  if (!doc.ok()) return doc.error();
  const JsonValue& root = *doc;
  if (!root.IsObject())
    return JsonError(name, root, "document",
                     std::string("expected an object with \"devices\" and \"benchmarks\", got ") +
                         root.TypeName());
  FieldReader top(name, root, "");
  Result<const JsonValue*> benchmarks = top.Array("benchmarks");
  if (!benchmarks.ok()) return benchmarks.error();
  if (*benchmarks == nullptr)
    return top.Missing("benchmarks", root, "document", "missing \"benchmarks\" array (not nvbench JSON?)");
  Result<const JsonValue*> devices_json = top.Array("devices");
  if (!devices_json.ok()) return devices_json.error();
  Result<const JsonValue*> meta = top.Object("meta");
  if (!meta.ok()) return meta.error();

  Results results;
  results.run.source_format = "nvbench";
  results.run.tool_version = GPUGATE_VERSION;
  results.run.suite = NameFromFileName(DataFileStem(name));
  results.run.run_id = detail::ContentRunId("nvbench", text);
  Status st = ReadMeta(name, *meta, &results.run);
  if (!st.ok()) return st.error();
  Result<std::vector<Device>> devices = ReadDevices(name, *devices_json);
  if (!devices.ok()) return devices.error();

  // Which devices the states ran on decides the naming and the environment.
  std::set<int64_t> used;
  for (const JsonValue& b : (*benchmarks)->items) {
    const JsonValue* states = b.IsObject() ? b.Find("states") : nullptr;
    if (states == nullptr || !states->IsArray()) continue;
    for (const JsonValue& s : states->items) {
      const JsonValue* d = s.IsObject() ? s.Find("device") : nullptr;
      if (d && d->IsNumber() && d->is_integer) used.insert(d->integer);
    }
  }
  results.run.env.gpu = EnvironmentGpu(*devices, used);
  // Each device's own fingerprint, compared device by device
  // (environment_check.cc): the environment's GPU holds one device's numbers.
  // Only the devices a state ran on: another GPU in the machine is not part
  // of the measurement.
  for (const Device& d : *devices)
    if (used.count(d.id) || (used.empty() && devices->size() == 1))
      results.run.source_context[kGpuDeviceContextPrefix + std::to_string(d.id)] = GpuFingerprint(d.gpu);
  StateContext ctx{name, base_dir, *devices, used.size() > 1};

  std::map<std::string, const JsonValue*> seen;  // workload name -> its state
  for (size_t i = 0; i < (*benchmarks)->items.size(); ++i) {
    const JsonValue& b = (*benchmarks)->items[i];
    std::string path = "benchmarks[" + std::to_string(i) + "]";
    if (!b.IsObject())
      return JsonError(name, b, path, std::string("expected an object, got ") + b.TypeName());
    FieldReader bf(name, b, path);
    auto bench = bf.String("name");
    if (!bench.ok()) return bench.error();
    if (!*bench) return bf.Missing("name", b, path, "missing \"name\"");
    if (std::optional<std::string> problem = NameProblem(**bench))
      return JsonError(name, *b.Find("name"), path + ".name",
                       "a benchmark name must be printable text: " + *problem);
    auto states = bf.Array("states");
    if (!states.ok()) return states.error();
    if (*states == nullptr) continue;
    for (size_t j = 0; j < (*states)->items.size(); ++j) {
      Result<WorkloadResult> w = ReadState(ctx, **bench, (*states)->items[j],
                                           path + ".states[" + std::to_string(j) + "]");
      if (!w.ok()) return w.error();
      // nvbench names each state of a benchmark once: a repeat is an error.
      const JsonValue& state = (*states)->items[j];
      auto [it, fresh] = seen.emplace(w->name, &state);
      if (!fresh)
        return JsonError(name, state, path + ".states[" + std::to_string(j) + "]",
                         "state " + QuoteInput(w->name) + " appears twice (first at " +
                             std::to_string(it->second->line) + ":" +
                             std::to_string(it->second->column) + ")");
      results.workloads.push_back(std::move(*w));
    }
  }
  return results;
}

}  // namespace gpugate
