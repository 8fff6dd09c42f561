// Suite configuration: reads suite.yaml (version 1) with yaml-cpp into plain
// WorkloadSpec structs, merging defaults and expanding parameters; plus the
// size/duration parsers, name globs, tag filters and shard selection the CLI
// applies to the expanded list. Every error is "file:line:col: message".
#include "config/suite.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "config/builtin_kernels.h"
#include "config/yaml_util.h"
#include "cupti/profile.h"
#include "util/fs.h"
#include "util/text/escape.h"
#include "util/text/format.h"
#include "util/random.h"
#include "util/strings.h"

namespace gpugate {

std::string SourceLocation::ToString() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

const std::vector<std::string>& BuiltinKernelNames() {
  static const std::vector<std::string> kNames = {"copy",   "triad",       "saxpy",
                                                  "reduce", "sgemm_naive", "sgemm_blocked"};
  return kNames;
}

namespace {

constexpr int kSuiteVersion = 1;
// Guards against a params typo that would expand into millions of workloads.
constexpr int64_t kMaxWorkloads = kMaxSuiteWorkloads;

const std::vector<std::string>& TopLevelKeys() {
  static const std::vector<std::string> kKeys = {"version", "name", "defaults", "workloads"};
  return kKeys;
}

const std::vector<std::string>& SamplingKeys() {
  static const std::vector<std::string> kKeys = {"warmup",   "min_samples",   "max_samples",
                                                 "min_time", "max_time",      "target_rel_ci",
                                                 "rounds",   "timeout"};
  return kKeys;
}

const std::vector<std::string>& KindNames() {
  static const std::vector<std::string> kKinds = {"builtin", "command", "synthetic", "gbench",
                                                  "nvbench", "static"};
  return kKinds;
}

// Keys every workload may carry, whatever its kind (sampling keys added below).
const std::vector<std::string>& CommonWorkloadKeys() {
  static const std::vector<std::string> kKeys = {"name", "kind", "params", "tags", "metrics", "chip"};
  return kKeys;
}

// Keys that belong to one kind only, in the order of KindNames().
const std::vector<std::vector<std::string>>& KindSpecificKeys() {
  static const std::vector<std::vector<std::string>> kKeys = {
      {"backend", "kernel", "l2", "skip_unchanged"},
      {"argv", "shell", "env", "cwd", "profile", "measure", "cache_sim", "results", "bigger_is_better",
       "skip_unchanged"},
      {"synthetic"},
      {"argv", "env", "cwd", "filter", "repetitions", "profile", "skip_unchanged"},
      {"argv", "env", "cwd", "benchmarks", "axes", "skip_unchanged"},
      {"file", "ptxas_log"},
  };
  return kKeys;
}

const std::vector<std::string>& SyntheticKeys() {
  static const std::vector<std::string> kKeys = {
      "median",        "cv",             "round_drift", "run_drift", "outlier_rate",
      "outlier_scale", "bimodal_ratio",  "bimodal_weight", "slowdown", "seed"};
  return kKeys;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}


std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", s);
  return buf;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !IsIdentStart(s[0])) return false;
  return std::all_of(s.begin(), s.end(), IsIdentChar);
}

// `{ident}` placeholders of a text, in order, as found (duplicates kept).
std::vector<std::string> Placeholders(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') continue;
    size_t j = i + 1;
    while (j < text.size() && IsIdentChar(text[j])) ++j;
    if (j < text.size() && text[j] == '}' && j > i + 1 && IsIdentStart(text[i + 1])) {
      out.push_back(text.substr(i + 1, j - i - 1));
      i = j;
    }
  }
  return out;
}

using ParamValues = std::vector<std::pair<std::string, std::string>>;

// Replaces `{p}` for every parameter p; other braces stay as written.
std::string Substitute(const std::string& text, const ParamValues& values) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      size_t j = i + 1;
      while (j < text.size() && IsIdentChar(text[j])) ++j;
      if (j < text.size() && text[j] == '}') {
        std::string ident = text.substr(i + 1, j - i - 1);
        auto it = std::find_if(values.begin(), values.end(),
                               [&](const auto& kv) { return kv.first == ident; });
        if (it != values.end()) {
          out += it->second;
          i = j;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}

// The size Substitute(text, values) would have, without making it.
uint64_t SubstitutedSize(const std::string& text, const ParamValues& values) {
  uint64_t size = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      size_t j = i + 1;
      while (j < text.size() && IsIdentChar(text[j])) ++j;
      if (j < text.size() && text[j] == '}') {
        const std::string_view ident(text.data() + i + 1, j - i - 1);
        auto it = std::find_if(values.begin(), values.end(), [&](const auto& kv) { return kv.first == ident; });
        if (it != values.end()) {
          size += it->second.size();
          i = j;
          continue;
        }
      }
    }
    ++size;
  }
  return size;
}

// What one string of a workload costs beyond its bytes (the string object;
// a map entry holds two and a node), for the bound on expanded text: a list
// of a hundred thousand one-byte arguments is megabytes, not kilobytes.
constexpr uint64_t kStringCost = sizeof(std::string);
constexpr uint64_t kEntryCost = 2 * sizeof(std::string) + 32;

// Where each sampling field was last set, and which were set at the level
// (defaults or one workload) being checked.
struct SamplingOrigin {
  std::map<std::string, SourceLocation> at;
  std::set<std::string> here;
};

struct Param {
  std::string name;
  std::vector<std::string> values;
  std::vector<YamlField> fields;  ///< one per value, for positioned errors
  YAML::Node key;                 ///< the parameter's name in the file
};

// Size names a builtin workload might be expected to take but no builtin
// kernel reads (each reads kBuiltinSizeParam alone).
const std::vector<std::string>& UnreadSizeParams() {
  static const std::vector<std::string> kNames = {"m", "k"};
  return kNames;
}

// Bytes of text an expanded workload holds (the strings parameters are
// substituted into and those copied with them), to bound what params
// expansion copies.
uint64_t SpecTextBytes(const WorkloadSpec& w) {
  uint64_t bytes = sizeof(WorkloadSpec) + w.name.size() + w.template_name.size() + w.kernel.size() + w.cwd.size() +
                   w.results.size() + w.filter.size() + w.file.size() + w.ptxas_log.size() + w.chip.size() +
                   w.location.file.size();
  for (const auto& [k, v] : w.params) bytes += kEntryCost + k.size() + v.size();
  for (const auto& [k, v] : w.env) bytes += kEntryCost + k.size() + v.size();
  for (const auto* list : {&w.tags, &w.argv, &w.benchmarks, &w.axes, &w.skip_unchanged})
    for (const std::string& s : *list) bytes += kStringCost + s.size();
  for (const MetricRequest& m : w.metrics) bytes += sizeof(MetricRequest) + m.name.size() + m.location.file.size();
  return bytes;
}

// A workload as written: everything parsed, placeholders not yet substituted.
struct Template {
  WorkloadSpec spec;
  YamlField name_field;
  std::vector<Param> params;
  SourceLocation params_location;  ///< of the `params:` key, when there is one
  /// `params: *p`: where the alias is written (the parameters are at the anchor).
  std::optional<SourceLocation> params_alias_at;
  std::optional<SourceLocation> alias_at;  ///< where `- *alias` brought the workload in
};

struct SeenName {
  SourceLocation at;
  size_t template_index;
  int64_t combination;  ///< which combination of the template's params made it
  std::string name;     ///< as written (the map's key is its look-alike form)
};

class SuiteParser {
 public:
  explicit SuiteParser(const std::string& file) : y_(file) {}

  Result<Suite> Parse(const std::string& text) const {
    try {
      return ParseDocument(text);
    } catch (const YAML::Exception& e) {
      // Defensive: the reader checks node types before access, so yaml-cpp
      // should not throw here; if it does, report its mark.
      return YamlReader::ErrorAt(y_.At(e.mark), "invalid suite: " + e.msg);
    } catch (const std::exception& e) {
      return YamlReader::ErrorAt(SourceLocation{y_.file(), 1, 1},
                                 std::string("invalid suite: ") + e.what());
    }
  }

 private:
  Result<Suite> ParseDocument(const std::string& text) const {
    GPUGATE_ASSIGN_OR_RETURN(YAML::Node root, y_.Parse(text));
    if (!root.IsDefined() || root.IsNull())
      return YamlReader::ErrorAt(SourceLocation{y_.file(), 1, 1},
                                 "empty suite: expected a mapping with 'version' and 'workloads'");
    if (!root.IsMap())
      return y_.ErrorAt(root, "a suite must be a mapping with 'version' and 'workloads', got " +
                                  YamlReader::Describe(root));
    GPUGATE_RETURN_IF_ERROR(y_.CheckKeys(root, TopLevelKeys()));

    Suite suite;
    suite.path = y_.file();
    GPUGATE_RETURN_IF_ERROR(ParseVersion(root, &suite));
    GPUGATE_RETURN_IF_ERROR(ParseSuiteName(root, &suite));
    SamplingOrigin origin;
    GPUGATE_RETURN_IF_ERROR(ParseDefaults(root, &suite.defaults, &origin));
    GPUGATE_RETURN_IF_ERROR(ParseWorkloads(root, suite.defaults, origin, &suite.workloads, &suite.warnings));
    return suite;
  }

  Status ParseVersion(const YAML::Node& root, Suite* suite) const {
    GPUGATE_ASSIGN_OR_RETURN(YamlField f, y_.Require(root, "version"));
    GPUGATE_ASSIGN_OR_RETURN(int64_t v, y_.Int(f));
    if (v != kSuiteVersion)
      return y_.ErrorAt(f, "unsupported suite version " + std::to_string(v) +
                               " (this gpugate reads version " + std::to_string(kSuiteVersion) +
                               ")");
    suite->version = static_cast<int>(v);
    return Status::Ok();
  }

  Status ParseSuiteName(const YAML::Node& root, Suite* suite) const {
    suite->name = FileStem(y_.file());
    std::optional<YamlField> f = y_.Find(root, "name");
    // The file's name stands in for `name:` and goes where it would (results,
    // baselines, reports): it is checked the same way.
    if (!f) {
      if (std::optional<std::string> problem = WrittenNameProblem(suite->name))
        return y_.ErrorAt(root, "the suite is named after its file, " + QuoteInput(suite->name) +
                                    ", which must be printable text: " + *problem +
                                    "; rename the file or give the suite a 'name:'");
      return Status::Ok();
    }
    GPUGATE_ASSIGN_OR_RETURN(std::string name, y_.String(*f));
    if (Trim(name).empty()) return y_.ErrorAt(*f, "'name' must not be empty");
    if (std::optional<std::string> problem = WrittenNameProblem(name))
      return y_.ErrorAt(*f, "suite 'name' must be printable text: " + *problem);
    suite->name = name;
    return Status::Ok();
  }

  Status ParseDefaults(const YAML::Node& root, Sampling* defaults, SamplingOrigin* origin) const {
    std::optional<YamlField> f = y_.Find(root, "defaults");
    if (!f || f->value.IsNull()) return Status::Ok();
    GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(*f));
    GPUGATE_RETURN_IF_ERROR(y_.CheckKeys(*f, SamplingKeys()));
    GPUGATE_RETURN_IF_ERROR(ParseSamplingKeys(f->value, defaults, origin));
    return CheckSampling(*defaults, *origin, /*rounds_of_samples=*/false);
  }

  Status ParseWorkloads(const YAML::Node& root, const Sampling& defaults, const SamplingOrigin& origin,
                        std::vector<WorkloadSpec>* out, std::vector<std::string>* warnings) const {
    std::optional<YamlField> f = y_.Find(root, "workloads");
    if (!f)
      return y_.ErrorAt(root, "missing required key 'workloads' (a list of workloads to run)");
    if (!f->value.IsSequence() || f->value.size() == 0) {
      std::string got = f->value.IsSequence() ? "an empty list" : YamlReader::Describe(f->value);
      return y_.ErrorAt(*f, "'workloads' must be a non-empty list, got " + got);
    }
    std::map<std::string, SeenName> seen;
    uint64_t text_bytes = 0;  // of the expanded workloads so far
    size_t index = 0;
    for (const YamlField& item : y_.Elements(f->value, "workloads")) {
      if (out->size() >= static_cast<size_t>(kMaxWorkloads))
        return y_.ErrorAt(item, "more than " + std::to_string(kMaxWorkloads) +
                                    " workloads in one suite");
      GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(item));
      GPUGATE_ASSIGN_OR_RETURN(Template t, ParseWorkload(item.value, defaults, origin));
      // `- *w`: the workload is where the alias is written, not its anchor.
      if (!item.alias.is_null()) t.spec.location = t.alias_at.emplace(y_.Where(item));
      GPUGATE_RETURN_IF_ERROR(Expand(t, index++, &seen, &text_bytes, out));
      WarnUnreadParams(t, warnings);
    }
    return CheckSkipUnchanged(out);
  }

  // The texts of a workload that Instantiate substitutes parameters into
  // and that change what runs: the name aside, and skip_unchanged (names of
  // other workloads) too.
  static std::vector<const std::string*> ParamTexts(const WorkloadSpec& spec) {
    std::vector<const std::string*> out;
    for (const std::string& a : spec.argv) out.push_back(&a);
    for (const auto& [k, v] : spec.env) out.push_back(&v);
    for (const std::string* s : {&spec.cwd, &spec.filter, &spec.results, &spec.file, &spec.ptxas_log})
      out.push_back(s);
    for (const std::string& b : spec.benchmarks) out.push_back(&b);
    for (const std::string& a : spec.axes) out.push_back(&a);
    return out;
  }

  // A parameter with several values that only the name reads makes
  // workloads that all run the same thing under different names: almost
  // always a placeholder missing or misspelt in argv (`{T}` for `{t}`). So
  // do two values of a builtin's n that are the same size (1Ki and 1024).
  // A warning, not an error: copies of one workload are sometimes meant.
  // Called once the template has expanded within the limits; it costs
  // O(texts + params) and names at most kMaxNamed parameters.
  void WarnUnreadParams(const Template& t, std::vector<std::string>* warnings) const {
    constexpr size_t kMaxNamed = 5;       // parameters named one by one; the rest are counted
    constexpr size_t kMaxNearMisses = 64;  // placeholders looked at for a "did you mean"
    std::set<std::string> names, written;  // the parameters; the placeholders the texts hold
    for (const Param& p : t.params) names.insert(p.name);
    for (const std::string* text : ParamTexts(t.spec))
      for (std::string& ph : Placeholders(*text)) written.insert(std::move(ph));
    // Placeholders that name no parameter, {bin} (the build folder) aside:
    // candidates for a misspelt one.
    std::vector<std::string> strays;
    for (const std::string& ph : written)
      if (!names.count(ph) && ph != "bin" && strays.size() < kMaxNearMisses) strays.push_back(ph);
    // Where a parameter is written: its key, or the alias that brought the
    // params (`params: *p`) or the whole workload (`- *w`) in.
    auto where = [&](const Param& p) {
      if (t.alias_at) return *t.alias_at;
      return t.params_alias_at ? *t.params_alias_at : y_.Where(p.key);
    };
    size_t named = 0, more = 0;
    for (const Param& p : t.params) {
      if (p.values.size() < 2 || written.count(p.name)) continue;
      std::string what;
      if (t.spec.kind == WorkloadKind::kBuiltin && p.name == kBuiltinSizeParam) {
        // The kernel reads n: only values of the same size are copies. One
        // warning for the parameter, naming at most kMaxNamed groups of at
        // most kMaxNamed values each.
        std::map<int64_t, std::vector<std::string>> by_size;
        for (const std::string& v : p.values)
          if (Result<int64_t> size = ParseSize(v); size.ok()) by_size[*size].push_back(v);
        std::vector<std::string> groups;
        size_t copies = 0, unnamed_groups = 0;
        for (const auto& [size, same] : by_size) {
          if (same.size() < 2) continue;
          copies += same.size() - 1;
          if (groups.size() >= kMaxNamed) {
            ++unnamed_groups;
            continue;
          }
          std::vector<std::string> quoted;
          for (size_t i = 0; i < same.size() && i < kMaxNamed; ++i) quoted.push_back(QuoteInput(same[i]));
          if (same.size() > kMaxNamed) quoted.push_back(std::to_string(same.size() - kMaxNamed) + " more");
          std::string values = quoted[0];
          for (size_t i = 1; i < quoted.size(); ++i) values += (i + 1 == quoted.size() ? " and " : ", ") + quoted[i];
          groups.push_back(values + " are " + std::to_string(size));
        }
        if (groups.empty()) continue;
        if (named++ >= kMaxNamed) {
          ++more;
          continue;
        }
        std::string list = groups[0];
        for (size_t i = 1; i < groups.size(); ++i) list += "; " + groups[i];
        if (unnamed_groups > 0) list += "; and " + FormatCount(unnamed_groups, "more group");
        warnings->push_back(where(p).ToString() + ": values of " + QuoteInput(p.name) + " that are the same size (" +
                            list + "): " + FormatCount(copies, "workload") + " of " +
                            QuoteInput(t.spec.template_name) + (copies == 1 ? " repeats" : " repeat") +
                            " another's work; keep one value of each size");
        continue;
      }
      if (named++ >= kMaxNamed) {
        ++more;
        continue;
      }
      switch (t.spec.kind) {
        case WorkloadKind::kBuiltin: what = "kernel " + QuoteInput(t.spec.kernel) + " reads only n"; break;
        case WorkloadKind::kSynthetic: what = "a synthetic workload reads no parameter"; break;
        default: what = "no argv, env, cwd or other field holds {" + p.name + "}"; break;
      }
      std::string hint;
      for (const std::string& ph : strays)
        if (!DidYouMean(ph, {p.name}).empty()) {
          hint = "; did you mean {" + p.name + "} where the workload has {" + ph + "}?";
          break;
        }
      warnings->push_back(where(p).ToString() + ": parameter " + QuoteInput(p.name) + " has " +
                          std::to_string(p.values.size()) + " values but only the name reads it (" + what +
                          "): the workloads of " + QuoteInput(t.spec.template_name) +
                          " all run the same work" +
                          (hint.empty() ? "; use {" + p.name + "} where it changes the work, or drop it "
                                          "if the copies are not meant"
                                        : hint));
    }
    if (more > 0)
      warnings->push_back(t.params_location.ToString() + ": and " + FormatCount(more, "more parameter") + " of " +
                          QuoteInput(t.spec.template_name) + " that make copies of one workload");
  }

  // Every name in a skip_unchanged list is a static workload of the suite;
  // `true` needs at least one, and gets the one list of them all, shared.
  Status CheckSkipUnchanged(std::vector<WorkloadSpec>* workloads) const {
    std::vector<std::string> statics;
    for (const WorkloadSpec& w : *workloads)
      if (w.kind == WorkloadKind::kStatic) statics.push_back(w.name);
    const std::set<std::string> static_set(statics.begin(), statics.end());
    auto all = std::make_shared<const std::vector<std::string>>(statics);
    for (WorkloadSpec& w : *workloads) {
      if (w.skip_unchanged.empty()) continue;
      if (statics.empty())
        return YamlReader::ErrorAt(w.skip_unchanged_location,
                                   "'skip_unchanged' needs a kind: static workload in the suite: its SASS "
                                   "hashes tell whether the code changed");
      if (w.skip_unchanged.size() == 1 && w.skip_unchanged[0] == "*") {
        w.skip_unchanged.clear();
        w.skip_unchanged_all = all;
        continue;
      }
      for (size_t i = 0; i < w.skip_unchanged.size(); ++i) {
        const std::string& n = w.skip_unchanged[i];
        if (!static_set.count(n))
          return YamlReader::ErrorAt(i < w.skip_unchanged_element_locations.size()
                                         ? w.skip_unchanged_element_locations[i]
                                         : w.skip_unchanged_location,
                                     "'skip_unchanged' names " + QuoteInput(n) + ", which is not a static workload "
                                     "of this suite (static workloads: " + JoinAtMost(statics, 20) + ")" +
                                         DidYouMean(n, statics));
      }
    }
    return Status::Ok();
  }

  // ---- sampling -------------------------------------------------------------

  Status ParseSamplingKeys(const YAML::Node& map, Sampling* s, SamplingOrigin* origin) const {
    origin->here.clear();
    for (const YamlField& f : y_.Entries(map)) {
      if (!Contains(SamplingKeys(), f.name)) continue;
      GPUGATE_RETURN_IF_ERROR(ParseSamplingKey(f, s));
      origin->at[f.name] = y_.Where(f);
      origin->here.insert(f.name);
    }
    return Status::Ok();
  }

  Status ParseSamplingKey(const YamlField& f, Sampling* s) const {
    if (f.name == "warmup") {
      GPUGATE_ASSIGN_OR_RETURN(int64_t v, y_.IntInRange(f, 0, kMaxSamplesPerWorkload));
      s->warmup = static_cast<int>(v);
    } else if (f.name == "min_samples") {
      GPUGATE_ASSIGN_OR_RETURN(int64_t v, y_.IntInRange(f, 1, kMaxSamplesPerWorkload));
      s->min_samples = static_cast<int>(v);
    } else if (f.name == "max_samples") {
      GPUGATE_ASSIGN_OR_RETURN(int64_t v, y_.IntInRange(f, 1, kMaxSamplesPerWorkload));
      s->max_samples = static_cast<int>(v);
    } else if (f.name == "rounds") {
      GPUGATE_ASSIGN_OR_RETURN(int64_t v, y_.IntInRange(f, 1, kMaxRounds));
      s->rounds = static_cast<int>(v);
    } else if (f.name == "min_time") {
      GPUGATE_ASSIGN_OR_RETURN(s->min_time, y_.Duration(f));
    } else if (f.name == "max_time") {
      GPUGATE_ASSIGN_OR_RETURN(s->max_time, PositiveDuration(f));
    } else if (f.name == "timeout") {
      GPUGATE_ASSIGN_OR_RETURN(s->timeout, PositiveDuration(f));
    } else if (f.name == "target_rel_ci") {
      GPUGATE_ASSIGN_OR_RETURN(double v, y_.Fraction(f));
      if (!(v > 0.0 && v < 1.0))
        return y_.ErrorAt(f, "'target_rel_ci' must be a fraction between 0 and 1 (like 0.01 or "
                             "1%), got " + YamlReader::Describe(f.value));
      s->target_rel_ci = v;
    }
    return Status::Ok();
  }

  Result<double> PositiveDuration(const YamlField& f) const {
    GPUGATE_ASSIGN_OR_RETURN(double v, y_.Duration(f));
    if (!(v > 0.0))
      return y_.ErrorAt(f, QuoteInput(f.name) + " must be greater than 0, got " +
                               YamlReader::Describe(f.value));
    return v;
  }

  // Cross-field rules. An inconsistency is reported at the level that made it:
  // at one of the two fields if this level set it, else not at all (the level
  // that set both was checked already). The rules about samples hold only for
  // workloads whose rounds are samples, so `defaults` is not checked for them
  // (its values may serve only benchmark programs): a workload that uses them
  // reports the inconsistency at the defaults' key.
  Status CheckSampling(const Sampling& s, const SamplingOrigin& o, bool rounds_of_samples = true) const {
    auto pick = [&](const char* first, const char* second) -> std::optional<SourceLocation> {
      if (o.here.count(first)) return o.at.at(first);
      if (o.here.count(second)) return o.at.at(second);
      return std::nullopt;
    };
    auto pick_any = [&](const char* first, const char* second) -> std::optional<SourceLocation> {
      if (auto at = pick(first, second)) return at;
      if (o.at.count(first)) return o.at.at(first);
      if (o.at.count(second)) return o.at.at(second);
      return std::nullopt;
    };
    if (rounds_of_samples && s.max_samples < s.min_samples) {
      if (auto at = pick_any("max_samples", "min_samples"))
        return YamlReader::ErrorAt(*at, "max_samples (" + std::to_string(s.max_samples) +
                                            ") is less than min_samples (" +
                                            std::to_string(s.min_samples) + ")");
    }
    // A benchmark program's min_time is per benchmark (Google Benchmark's),
    // its max_time bounds the processes: the two do not bound each other.
    // Where rounds are samples gpugate takes, the rule holds wherever the
    // two were set (in `defaults` too, pointed at there), as the sample rules do.
    if (rounds_of_samples && s.max_time < s.min_time) {
      if (auto at = pick_any("max_time", "min_time"))
        return YamlReader::ErrorAt(*at, "max_time (" + FormatSeconds(s.max_time) +
                                            ") is less than min_time (" +
                                            FormatSeconds(s.min_time) + ")");
    }
    // Sampling goes on until min_time is measured, inside the timeout: a
    // min_time as long as the timeout fails the workload every time.
    if (rounds_of_samples && s.min_time >= s.timeout) {
      if (auto at = pick_any("min_time", "timeout"))
        return YamlReader::ErrorAt(*at, "min_time (" + FormatSeconds(s.min_time) +
                                            ") is not below timeout (" + FormatSeconds(s.timeout) +
                                            "): the workload would be stopped before it had "
                                            "measured enough; raise timeout");
    }
    if (rounds_of_samples && s.rounds > s.max_samples) {
      if (auto at = pick_any("rounds", "max_samples"))
        return YamlReader::ErrorAt(*at, "rounds (" + std::to_string(s.rounds) +
                                            ") exceeds max_samples (" +
                                            std::to_string(s.max_samples) +
                                            "): every round needs at least one sample");
    }
    return Status::Ok();
  }

  // ---- one workload ---------------------------------------------------------

  Result<Template> ParseWorkload(const YAML::Node& map, const Sampling& defaults,
                                 SamplingOrigin origin) const {
    Template t;
    t.spec.location = y_.Where(map);
    t.spec.sampling = defaults;

    size_t kind_index = 0;
    if (std::optional<YamlField> kf = y_.Find(map, "kind")) {
      static const std::vector<std::string> kLaterKinds = {"trace"};
      if (kf->value.IsScalar() && Contains(kLaterKinds, kf->value.Scalar()))
        return y_.ErrorAt(*kf, "kind '" + kf->value.Scalar() +
                                   "' is not supported by this gpugate version (supported: " +
                                   JoinNames(KindNames()) + ")");
      GPUGATE_ASSIGN_OR_RETURN(std::string kind, y_.Choice(*kf, "kind", KindNames()));
      kind_index = std::find(KindNames().begin(), KindNames().end(), kind) - KindNames().begin();
    }
    t.spec.kind = static_cast<WorkloadKind>(kind_index);
    if (std::optional<YamlField> mf = y_.Find(map, "measure"); mf && IsBenchmarkProgram(t.spec.kind))
      return y_.ErrorAt(mf->key, std::string("'measure' is not built for kind ") + ToString(t.spec.kind) +
                                     ": the program sizes its iterations by time, so an instruction "
                                     "count of it would not be deterministic; run one benchmark with "
                                     "a fixed iteration count as a command workload with measure: "
                                     "instructions");
    GPUGATE_RETURN_IF_ERROR(CheckWorkloadKeys(map, kind_index));

    GPUGATE_ASSIGN_OR_RETURN(t.name_field, y_.Require(map, "name"));
    GPUGATE_ASSIGN_OR_RETURN(t.spec.template_name, y_.String(t.name_field));
    GPUGATE_RETURN_IF_ERROR(CheckName(t.name_field, t.spec.template_name));

    GPUGATE_RETURN_IF_ERROR(ParseSamplingKeys(map, &t.spec.sampling, &origin));
    // The keys that do not apply to a kind are named first; then the
    // cross-field rules, of which those about samples hold only where a
    // round is made of samples gpugate takes (not a process of a benchmark
    // program, an execution counted, or a program that writes its results).
    if (IsBenchmarkProgram(t.spec.kind))
      GPUGATE_RETURN_IF_ERROR(ProgramSampling(map, origin, &t.spec));
    if (t.spec.kind == WorkloadKind::kCommand) {
      GPUGATE_RETURN_IF_ERROR(ParseMeasure(map, origin, &t.spec));
      GPUGATE_RETURN_IF_ERROR(ParseResultsFile(map, origin, &t.spec));
    }
    if (t.spec.kind == WorkloadKind::kStatic) GPUGATE_RETURN_IF_ERROR(StaticSampling(map));
    const bool rounds_of_samples = !IsBenchmarkProgram(t.spec.kind) &&
                                   t.spec.kind != WorkloadKind::kStatic &&
                                   t.spec.measure != "instructions" && t.spec.results.empty();
    GPUGATE_RETURN_IF_ERROR(CheckSampling(t.spec.sampling, origin, rounds_of_samples));

    if (std::optional<YamlField> pf = y_.Find(map, "params")) {
      t.params_location = y_.Where(pf->key);
      if (!pf->alias.is_null()) t.params_alias_at = y_.Where(*pf);
      GPUGATE_RETURN_IF_ERROR(ParseParams(*pf, &t.params));
    }
    GPUGATE_RETURN_IF_ERROR(CheckNamePlaceholders(t));
    if (std::optional<YamlField> tf = y_.Find(map, "tags"))
      GPUGATE_RETURN_IF_ERROR(ParseTags(*tf, &t.spec.tags));

    switch (t.spec.kind) {
      case WorkloadKind::kBuiltin:
        GPUGATE_RETURN_IF_ERROR(ParseBuiltin(map, &t.spec));
        GPUGATE_RETURN_IF_ERROR(CheckSizeParams(t.params, t.spec.kernel));
        break;
      case WorkloadKind::kCommand:
        GPUGATE_RETURN_IF_ERROR(ParseCommand(map, &t.spec));
        break;
      case WorkloadKind::kSynthetic:
        GPUGATE_RETURN_IF_ERROR(ParseSynthetic(map, &t.spec.synthetic));
        break;
      case WorkloadKind::kGbench:
      case WorkloadKind::kNvbench:
        GPUGATE_RETURN_IF_ERROR(ParseProgram(map, &t.spec));
        break;
      case WorkloadKind::kStatic:
        GPUGATE_RETURN_IF_ERROR(ParseStatic(map, &t.spec));
        break;
    }
    GPUGATE_RETURN_IF_ERROR(ParseSkipUnchanged(map, &t.spec));
    GPUGATE_RETURN_IF_ERROR(ParseMetrics(map, &t.spec));
    return t;
  }

  // kind: static reads a binary once: nothing is sampled or timed.
  Status StaticSampling(const YAML::Node& map) const {
    for (const YamlField& f : y_.Entries(map))
      if (Contains(SamplingKeys(), f.name))
        return y_.ErrorAt(f.key, "key " + QuoteInput(f.name) +
                                     " does not apply to a static workload: it reads the binary "
                                     "once, nothing is timed");
    return Status::Ok();
  }

  // kind: static: `file:` (required) and `ptxas_log:`.
  Status ParseStatic(const YAML::Node& map, WorkloadSpec* spec) const {
    std::optional<YamlField> ff = y_.Find(map, "file");
    if (!ff)
      return y_.ErrorAt(map, "missing required key 'file' for a static workload (a cubin, fatbin, "
                             "object, library or executable with device code)");
    GPUGATE_ASSIGN_OR_RETURN(spec->file, y_.String(*ff));
    if (spec->file.empty()) return y_.ErrorAt(*ff, "'file' must not be empty");
    if (std::optional<YamlField> lf = y_.Find(map, "ptxas_log")) {
      GPUGATE_ASSIGN_OR_RETURN(spec->ptxas_log, y_.String(*lf));
      if (spec->ptxas_log.empty()) return y_.ErrorAt(*lf, "'ptxas_log' must not be empty");
    }
    return Status::Ok();
  }

  // `skip_unchanged:` true, or a list of static workload names; checked
  // against the suite's static workloads once all are read.
  Status ParseSkipUnchanged(const YAML::Node& map, WorkloadSpec* spec) const {
    std::optional<YamlField> f = y_.Find(map, "skip_unchanged");
    if (!f) return Status::Ok();
    spec->skip_unchanged_location = y_.Where(*f);
    if (f->value.IsScalar()) {
      GPUGATE_ASSIGN_OR_RETURN(bool on, y_.Bool(*f));
      if (on) spec->skip_unchanged = {"*"};
      return Status::Ok();
    }
    GPUGATE_ASSIGN_OR_RETURN(spec->skip_unchanged, y_.StringList(*f, false));
    for (size_t i = 0; i < spec->skip_unchanged.size(); ++i)
      spec->skip_unchanged_element_locations.push_back(y_.Where(y_.ElementOf(*f, i)));
    if (spec->skip_unchanged.empty())
      return y_.ErrorAt(*f, "'skip_unchanged' must be true, false or a non-empty list of static workload names");
    for (size_t i = 0; i < spec->skip_unchanged.size(); ++i)
      if (spec->skip_unchanged[i].empty() || spec->skip_unchanged[i] == "*")
        return YamlReader::ErrorAt(spec->skip_unchanged_element_locations[i],
                                   "'skip_unchanged' entries are names of static workloads");
    return Status::Ok();
  }

  // metrics: [names] and chip: CHIP. The names are only checked for form
  // here; whether the chip has them is metrics/suite_metrics.h's question
  // (it needs CUPTI).
  Status ParseMetrics(const YAML::Node& map, WorkloadSpec* spec) const {
    std::optional<YamlField> mf = y_.Find(map, "metrics");
    std::optional<YamlField> cf = y_.Find(map, "chip");
    if (!mf && !cf) return Status::Ok();
    if (!mf) return y_.ErrorAt(cf->key, "'chip' applies only with 'metrics' (the chip their names are checked against)");
    if (spec->kind == WorkloadKind::kSynthetic)
      return y_.ErrorAt(mf->key, "'metrics' does not apply to a synthetic workload: it runs no GPU kernels");
    if (spec->kind == WorkloadKind::kStatic)
      return y_.ErrorAt(mf->key, "'metrics' does not apply to a static workload: it reads a binary, nothing runs");
    if (spec->kind == WorkloadKind::kBuiltin && spec->backend == "cpu")
      return y_.ErrorAt(mf->key, "'metrics' does not apply to backend: cpu: hardware counters are GPU counters");
    if (!cf)
      return y_.ErrorAt(mf->key, "'metrics' needs 'chip' (the GPU chip the names are checked against, "
                                 "like GH100; 'gpugate metrics --list-chips' lists them)");
    GPUGATE_ASSIGN_OR_RETURN(spec->chip, y_.String(*cf));
    if (spec->chip.empty() || !std::all_of(spec->chip.begin(), spec->chip.end(), IsIdentChar))
      return y_.ErrorAt(*cf, "'chip' must be a chip name like GH100 or GA100, got " + QuoteInput(spec->chip));
    spec->chip_location = y_.Where(*cf);
    GPUGATE_RETURN_IF_ERROR(y_.ExpectList(*mf));
    const std::vector<YamlField> entries = y_.Elements(mf->value, "metrics");
    if (entries.empty()) return y_.ErrorAt(*mf, "'metrics' must not be empty");
    for (const YamlField& e : entries) {
      GPUGATE_ASSIGN_OR_RETURN(std::string name, y_.String(e));
      const bool well_formed = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return IsIdentChar(c) || c == '.';
      });
      if (!well_formed)
        return y_.ErrorAt(e, "a metric name is letters, digits, '_' and '.', like dram__bytes_read.sum; got " +
                                 QuoteInput(name));
      for (const MetricRequest& have : spec->metrics)
        if (have.name == name) return y_.ErrorAt(e, "metric " + QuoteInput(name) + " is listed twice");
      spec->metrics.push_back(MetricRequest{name, y_.Where(e)});
    }
    return Status::Ok();
  }

  Status CheckWorkloadKeys(const YAML::Node& map, size_t kind_index) const {
    std::vector<std::string> allowed = CommonWorkloadKeys();
    allowed.insert(allowed.end(), SamplingKeys().begin(), SamplingKeys().end());
    const std::vector<std::string>& own = KindSpecificKeys()[kind_index];
    allowed.insert(allowed.end(), own.begin(), own.end());
    for (const YamlField& f : y_.Entries(map)) {
      if (Contains(allowed, f.name)) continue;
      std::vector<std::string> kinds;  // the kinds the key belongs to
      for (size_t k = 0; k < KindNames().size(); ++k)
        if (k != kind_index && Contains(KindSpecificKeys()[k], f.name)) kinds.push_back(KindNames()[k]);
      if (!kinds.empty()) {
        std::string list;
        for (size_t i = 0; i < kinds.size(); ++i)
          list += (i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ") + kinds[i];
        return y_.ErrorAt(f.key, "key " + QuoteInput(f.name) + " applies only to kind " + list +
                                     " workloads, but this workload is kind " + KindNames()[kind_index]);
      }
    }
    return y_.CheckKeys(map, allowed);
  }

  Status CheckName(const YamlField& f, const std::string& name) const {
    if (Trim(name).empty()) return y_.ErrorAt(f, "workload 'name' must not be empty");
    if (std::optional<std::string> problem = WrittenNameProblem(name))
      return y_.ErrorAt(f, "workload name must be printable text: " + *problem);
    return Status::Ok();
  }

  // The name after substitution: a parameter value must not bring in what a
  // written name may not hold (control characters, invalid UTF-8, bidi
  // controls), nor leave it empty.
  Status CheckExpandedName(const Template& t, const std::vector<size_t>& pick,
                           const std::string& name) const {
    std::optional<std::string> problem = WrittenNameProblem(name);
    if (!problem && !Trim(name).empty()) return Status::Ok();
    std::vector<std::string> in_name = Placeholders(t.spec.template_name);
    for (size_t i = 0; i < t.params.size(); ++i) {
      const Param& p = t.params[i];
      if (!Contains(in_name, p.name)) continue;
      const std::string& value = p.values[pick[i]];
      std::optional<std::string> bad = WrittenNameProblem(value);
      if (!bad && !Trim(value).empty()) continue;
      const YamlField& at = p.fields[std::min(pick[i], p.fields.size() - 1)];
      return y_.ErrorAt(at, "value of parameter '" + p.name + "' cannot go into workload name " +
                                QuoteInput(t.spec.template_name) + ": " +
                                (Trim(value).empty() ? std::string("it is blank") : *bad));
    }
    return y_.ErrorAt(t.name_field, "workload name " + QuoteInput(t.spec.template_name) +
                                        (problem ? " after expansion: " + *problem
                                                 : " is blank after expansion"));
  }

  Status ParseParams(const YamlField& f, std::vector<Param>* params) const {
    GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(f));
    GPUGATE_RETURN_IF_ERROR(y_.CheckUniqueKeys(f.value));
    for (const YamlField& e : y_.Entries(f.value)) {
      if (!IsIdentifier(e.name))
        return y_.ErrorAt(e.key, "parameter name " + QuoteInput(e.name) +
                                     " must be letters, digits and '_' (not starting with a digit)");
      // {bin} is the build folder of --bin (ab: --base and --head); a
      // parameter would replace it first, and the option would be ignored.
      if (e.name == "bin")
        return y_.ErrorAt(e.key, "parameter name 'bin' is reserved: {bin} stands for the build folder given "
                                 "with --bin (ab: --base and --head); name the parameter otherwise");
      YamlField named{"params." + e.name, e.key, e.value, e.alias};
      if (e.value.IsNull() || (e.value.IsSequence() && e.value.size() == 0))
        return y_.ErrorAt(named, "parameter " + QuoteInput(e.name) + " has no values");
      GPUGATE_ASSIGN_OR_RETURN(std::vector<std::string> values, y_.StringList(named, true));
      std::vector<YamlField> fields;
      if (e.value.IsSequence()) {
        fields = y_.Elements(e.value, named.name);
      } else {
        fields.push_back(named);
      }
      params->push_back(Param{e.name, std::move(values), std::move(fields), e.key});
    }
    return Status::Ok();
  }

  Status CheckNamePlaceholders(const Template& t) const {
    std::vector<std::string> names;
    for (const Param& p : t.params) names.push_back(p.name);
    for (const std::string& ph : Placeholders(t.spec.template_name)) {
      if (Contains(names, ph)) continue;
      std::string hint = DidYouMean(ph, names);
      if (hint.empty())
        hint = names.empty() ? " (this workload has no params)" : " (params: " + JoinNames(names) + ")";
      return y_.ErrorAt(t.name_field, "unknown placeholder '{" + ph + "}' in name " +
                                          QuoteInput(t.spec.template_name) + hint);
    }
    return Status::Ok();
  }

  Status ParseTags(const YamlField& f, std::vector<std::string>* tags) const {
    GPUGATE_ASSIGN_OR_RETURN(std::vector<std::string> list, y_.StringList(f, true));
    std::set<std::string> seen(tags->begin(), tags->end());
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string& tag = list[i];
      const YamlField at = y_.ElementOf(f, i);
      if (tag.empty()) return y_.ErrorAt(at, "a tag must not be empty");
      // Control characters (and invalid UTF-8) first, named by the check
      // every name gets; then the blanks and commas that would split a tag.
      if (std::optional<std::string> problem = NameProblem(tag))
        return y_.ErrorAt(at, "a tag must be printable text: " + *problem);
      for (char c : tag)
        if (c == ',' || c == ' ' || c == '\t')
          return y_.ErrorAt(at, "tag " + QuoteInput(tag) + " must not contain spaces or commas");
      if (std::optional<std::string> problem = WrittenNameProblem(tag, /*no_blank=*/true))
        return y_.ErrorAt(at, "a tag must be printable text: " + *problem);
      if (seen.insert(tag).second) tags->push_back(tag);
    }
    return Status::Ok();
  }

  Status ParseBuiltin(const YAML::Node& map, WorkloadSpec* spec) const {
    static const std::vector<std::string> kBackends = {"auto", "cpu", "cuda"};
    static const std::vector<std::string> kL2Modes = {"cold", "hot"};
    if (std::optional<YamlField> f = y_.Find(map, "backend")) {
      GPUGATE_ASSIGN_OR_RETURN(spec->backend, y_.Choice(*f, "backend", kBackends));
    }
    std::optional<YamlField> kf = y_.Find(map, "kernel");
    if (!kf)
      return y_.ErrorAt(map, "missing required key 'kernel' for a builtin workload (one of " +
                                 JoinNames(BuiltinKernelNames()) + ")");
    GPUGATE_ASSIGN_OR_RETURN(spec->kernel, y_.Choice(*kf, "kernel", BuiltinKernelNames()));
    if (std::optional<YamlField> f = y_.Find(map, "l2")) {
      GPUGATE_ASSIGN_OR_RETURN(std::string l2, y_.Choice(*f, "l2 mode", kL2Modes));
      spec->l2_cold = l2 == "cold";
      if (spec->backend == "cpu")
        return y_.ErrorAt(f->key, "'l2' does not apply to backend: cpu: it sets the GPU's L2 cache "
                                  "between samples (the CPU backend does not flush its caches)");
    }
    return Status::Ok();
  }

  // n of a builtin kernel must be a size of at least 1 whose buffers the
  // kernel can allocate (config/builtin_kernels.h). m and k are read by no
  // kernel: workloads that differ in them alone would measure the same work.
  Status CheckSizeParams(const std::vector<Param>& params, const std::string& kernel) const {
    for (const Param& p : params) {
      if (Contains(UnreadSizeParams(), p.name))
        return y_.ErrorAt(p.key, "parameter " + QuoteInput(p.name) + " is not read by kernel " +
                                     QuoteInput(kernel) + ", which takes one size, n (" +
                                     (IsBuiltinGemm(kernel) ? "an n x n product" : "n elements") +
                                     "): its workloads would all measure the same work; remove it (or give "
                                     "it another name if it only labels the workload)");
      if (p.name != kBuiltinSizeParam) continue;
      for (const YamlField& f : p.fields) {
        GPUGATE_ASSIGN_OR_RETURN(int64_t size, y_.Size(f));
        if (size < 1) return y_.ErrorAt(f, QuoteInput(f.name) + " must be at least 1, got 0");
        if (std::optional<std::string> problem = BuiltinSizeProblem(kernel, size))
          return y_.ErrorAt(f, QuoteInput(f.name) + " " + YamlReader::Describe(f.value) + " is too large: " + *problem);
      }
    }
    return Status::Ok();
  }

  Status ParseCommand(const YAML::Node& map, WorkloadSpec* spec) const {
    if (std::optional<YamlField> f = y_.Find(map, "shell")) {
      GPUGATE_ASSIGN_OR_RETURN(spec->shell, y_.Bool(*f));
    }
    GPUGATE_RETURN_IF_ERROR(ParseProcess(map, spec));
    return ParseProfile(map, spec);
  }

  // `profile:` of a command or gbench workload (docs/cupti.md).
  Status ParseProfile(const YAML::Node& map, WorkloadSpec* spec) const {
    std::optional<YamlField> f = y_.Find(map, "profile");
    if (!f) return Status::Ok();
    static const std::vector<std::string> kProfiles = {"none", "cupti"};
    GPUGATE_ASSIGN_OR_RETURN(spec->profile, y_.Choice(*f, "profile", kProfiles));
    if (spec->profile != "cupti") return Status::Ok();
    if (!CuptiProfileBuilt())
      return y_.ErrorAt(*f, "profile 'cupti' is not built in this gpugate: it was built without CUDA, "
                            "so its kernels would not be recorded (remove the key, or use profile: none)");
    if (spec->measure == "instructions")
      return y_.ErrorAt(*f, "profile: cupti and measure: instructions do not go together (the count "
                            "runs the command under valgrind)");
    if (!spec->results.empty())
      return y_.ErrorAt(*f, "profile: cupti and 'results' do not go together: the kernels of one "
                            "execution cannot be told apart by benchmark");
    return Status::Ok();
  }

  // argv, env and cwd of a workload that runs a process (command, gbench,
  // nvbench).
  Status ParseProcess(const YAML::Node& map, WorkloadSpec* spec) const {
    const std::string kind = ToString(spec->kind);
    std::optional<YamlField> af = y_.Find(map, "argv");
    if (!af)
      return y_.ErrorAt(map, "missing required key 'argv' for a " + kind +
                             " workload (a list: program, then its arguments)");
    if (af->value.IsScalar() && !spec->shell)
      return y_.ErrorAt(*af, "'argv' must be a list of strings like [/bin/sleep, \"0.01\"]; "
                             "to run a shell command line, set shell: true");
    GPUGATE_ASSIGN_OR_RETURN(spec->argv, y_.StringList(*af, spec->shell));
    if (spec->argv.empty()) return y_.ErrorAt(*af, "'argv' must not be empty");
    // A NUL byte ends a C string: the program would get a shorter argument.
    for (size_t i = 0; i < spec->argv.size(); ++i) {
      if (spec->argv[i].find('\0') == std::string::npos) continue;
      const YamlField at = y_.ElementOf(*af, i);
      return y_.ErrorAt(at, "'argv[" + std::to_string(i) + "]' holds a NUL byte, which a program's "
                            "arguments cannot carry (the argument would end there)");
    }
    if (spec->argv[0].empty()) return y_.ErrorAt(*af, "'argv[0]' (the program) must not be empty");
    if (spec->shell && spec->argv.size() != 1)
      return y_.ErrorAt(*af, "with shell: true, 'argv' must have exactly one element (the "
                             "command line for /bin/sh -c), got " +
                                 std::to_string(spec->argv.size()));
    if (std::optional<YamlField> f = y_.Find(map, "env")) {
      GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(*f));
      GPUGATE_RETURN_IF_ERROR(y_.CheckUniqueKeys(f->value));
      for (const YamlField& e : y_.Entries(f->value)) {
        if (!e.key.IsScalar())
          return y_.ErrorAt(e.key, "an environment variable name must be a plain name, got " +
                                       YamlReader::Describe(e.key));
        if (e.name.empty() || e.name.find_first_of(std::string("=\0", 2)) != std::string::npos)
          return y_.ErrorAt(e.key, "environment variable name " + QuoteInput(e.name) +
                                       " must be non-empty and without '=' or a NUL byte");
        YamlField named{"env." + e.name, e.key, e.value, e.alias};
        GPUGATE_ASSIGN_OR_RETURN(spec->env[e.name], y_.String(named));
        if (spec->env[e.name].find('\0') != std::string::npos)
          return y_.ErrorAt(named, QuoteInput(named.name) + " holds a NUL byte, which an environment "
                                   "variable cannot carry (the value would end there)");
      }
    }
    if (std::optional<YamlField> f = y_.Find(map, "cwd")) {
      GPUGATE_ASSIGN_OR_RETURN(spec->cwd, y_.String(*f));
      if (spec->cwd.empty()) return y_.ErrorAt(*f, "'cwd' must not be empty");
    }
    return Status::Ok();
  }

  // `results:` of a command workload: the benchmark file it writes. Each
  // execution is a round of every benchmark in it, as for a benchmark program.
  Status ParseResultsFile(const YAML::Node& map, const SamplingOrigin& origin, WorkloadSpec* spec) const {
    std::optional<YamlField> rf = y_.Find(map, "results");
    std::optional<YamlField> bf = y_.Find(map, "bigger_is_better");
    if (bf) {
      if (!rf) return y_.ErrorAt(bf->key, "'bigger_is_better' applies only with 'results'");
      GPUGATE_ASSIGN_OR_RETURN(spec->bigger_is_better, y_.Bool(*bf));
    }
    if (!rf) return Status::Ok();
    GPUGATE_ASSIGN_OR_RETURN(spec->results, y_.String(*rf));
    if (spec->results.empty()) return y_.ErrorAt(*rf, "'results' must not be empty");
    if (spec->measure == "instructions")
      return y_.ErrorAt(rf->key, "'results' and measure: instructions do not go together: the "
                                 "count is of the whole command, not of its benchmarks");
    static const std::vector<std::string> kNotHere = {"warmup", "min_samples", "max_samples",
                                                      "min_time", "target_rel_ci"};
    for (const YamlField& f : y_.Entries(map))
      if (Contains(kNotHere, f.name))
        return y_.ErrorAt(f.key, "key " + QuoteInput(f.name) +
                                     " does not apply to a command with 'results': the program "
                                     "measures its own benchmarks; an execution is one round "
                                     "(set 'rounds')");
    if (!origin.at.count("rounds")) spec->sampling.rounds = kProgramDefaultRounds;
    return Status::Ok();
  }

  // `measure:` of a command workload. Instructions are counted per execution
  // (a round of one sample); the sampling keys about time do not apply.
  Status ParseMeasure(const YAML::Node& map, const SamplingOrigin& origin, WorkloadSpec* spec) const {
    static const std::vector<std::string> kMeasures = {"time", "instructions"};
    if (std::optional<YamlField> f = y_.Find(map, "measure")) {
      GPUGATE_ASSIGN_OR_RETURN(spec->measure, y_.Choice(*f, "measure", kMeasures));
    }
    std::optional<YamlField> cf = y_.Find(map, "cache_sim");
    if (cf) {
      GPUGATE_ASSIGN_OR_RETURN(spec->cache_sim, y_.Bool(*cf));
      if (spec->measure != "instructions")
        return y_.ErrorAt(cf->key, "'cache_sim' applies only with measure: instructions");
    }
    if (spec->measure != "instructions") return Status::Ok();
    static const std::vector<std::string> kNotHere = {"warmup", "min_samples", "max_samples",
                                                      "min_time", "max_time", "target_rel_ci"};
    for (const YamlField& f : y_.Entries(map))
      if (Contains(kNotHere, f.name))
        return y_.ErrorAt(f.key, "key " + QuoteInput(f.name) +
                                     " does not apply with measure: instructions: each execution "
                                     "is one count, and all 'rounds' of them are made (set 'rounds' "
                                     "for how many, 'timeout' to bound each)");
    if (!origin.at.count("rounds")) spec->sampling.rounds = kInstructionDefaultRounds;
    return Status::Ok();
  }

  // kind gbench / nvbench: the process keys and the program's selection.
  Status ParseProgram(const YAML::Node& map, WorkloadSpec* spec) const {
    GPUGATE_RETURN_IF_ERROR(ParseProcess(map, spec));
    if (spec->kind == WorkloadKind::kGbench) {
      GPUGATE_RETURN_IF_ERROR(ParseProfile(map, spec));
      if (std::optional<YamlField> f = y_.Find(map, "filter")) {
        GPUGATE_ASSIGN_OR_RETURN(spec->filter, y_.String(*f));
        if (spec->filter.empty()) return y_.ErrorAt(*f, "'filter' must not be empty");
      }
      if (std::optional<YamlField> f = y_.Find(map, "repetitions")) {
        GPUGATE_ASSIGN_OR_RETURN(int64_t v, y_.IntInRange(*f, 1, kMaxRepetitions));
        spec->repetitions = static_cast<int>(v);
      }
    } else {
      if (std::optional<YamlField> f = y_.Find(map, "benchmarks")) {
        GPUGATE_ASSIGN_OR_RETURN(spec->benchmarks, y_.StringList(*f, true));
        for (size_t i = 0; i < spec->benchmarks.size(); ++i)
          if (spec->benchmarks[i].empty())
            return y_.ErrorAt(y_.ElementOf(*f, i), "'benchmarks' entries must not be empty");
      }
      if (std::optional<YamlField> f = y_.Find(map, "axes")) {
        GPUGATE_ASSIGN_OR_RETURN(spec->axes, y_.StringList(*f, true));
        for (size_t i = 0; i < spec->axes.size(); ++i)
          if (spec->axes[i].find('=') == std::string::npos)
            return y_.ErrorAt(y_.ElementOf(*f, i), "'axes' entries are nvbench --axis values like "
                                                   "\"Elements=[1024,4096]\", got '" + spec->axes[i] + "'");
      }
    }
    for (size_t i = 0; i < spec->argv.size(); ++i) {
      const std::string& a = spec->argv[i];
      if (a.find("{bin}") == std::string::npos && a.rfind("--benchmark_out", 0) == 0) {
        std::optional<YamlField> af = y_.Find(map, "argv");
        return y_.ErrorAt(af ? y_.ElementOf(*af, i) : YamlField{"argv", YAML::Node(), map, YAML::Mark::null_mark()},
                          "argv must not set " + a.substr(0, a.find('=')) +
                              ": gpugate writes the program's JSON itself");
      }
    }
    return Status::Ok();
  }

  // Sampling of a benchmark program: a process is a round. The program times
  // its own iterations, so the per-sample keys do not apply on the workload;
  // `min_time` set on the workload is passed to Google Benchmark; `rounds`
  // defaults to kProgramDefaultRounds processes.
  Status ProgramSampling(const YAML::Node& map, const SamplingOrigin& origin,
                         WorkloadSpec* spec) const {
    static const std::vector<std::string> kNotHere = {"warmup", "min_samples", "max_samples",
                                                      "target_rel_ci"};
    for (const YamlField& f : y_.Entries(map)) {
      if (Contains(kNotHere, f.name))
        return y_.ErrorAt(f.key, "key " + QuoteInput(f.name) + " does not apply to a " +
                                     ToString(spec->kind) +
                                     " workload: the program decides its own iterations and "
                                     "samples; a process is one round (set 'rounds')");
      if (f.name == "min_time") {
        if (spec->kind != WorkloadKind::kGbench)
          return y_.ErrorAt(f.key, "key 'min_time' does not apply to an nvbench workload "
                                   "(pass nvbench's --min-time in argv)");
        spec->program_min_time = spec->sampling.min_time;
      }
    }
    if (!origin.at.count("rounds")) spec->sampling.rounds = kProgramDefaultRounds;
    return Status::Ok();
  }

  Status ParseSynthetic(const YAML::Node& map, SyntheticSpec* s) const {
    std::optional<YamlField> sf = y_.Find(map, "synthetic");
    if (!sf || sf->value.IsNull()) return Status::Ok();
    GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(*sf));
    GPUGATE_RETURN_IF_ERROR(y_.CheckKeys(*sf, SyntheticKeys()));
    for (YamlField f : y_.Entries(sf->value)) {
      std::string key = f.name;
      f.name = "synthetic." + key;
      if (key == "median") {
        GPUGATE_ASSIGN_OR_RETURN(s->median, PositiveDuration(f));
      } else if (key == "seed") {
        GPUGATE_ASSIGN_OR_RETURN(s->seed, y_.Uint64(f));
      } else if (key == "outlier_scale" || key == "bimodal_ratio" || key == "slowdown") {
        GPUGATE_ASSIGN_OR_RETURN(double v, y_.Double(f));
        if (!(v >= 1e-3) || v > 1e6)
          return y_.ErrorAt(f, QuoteInput(f.name) + " must be a factor from 0.001 to 1e6, got " +
                                   YamlReader::Describe(f.value));
        (key == "outlier_scale" ? s->outlier_scale
                                : key == "bimodal_ratio" ? s->bimodal_ratio : s->slowdown) = v;
      } else {
        // cv, round_drift, run_drift, outlier_rate, bimodal_weight: fractions.
        GPUGATE_ASSIGN_OR_RETURN(double v, y_.Fraction(f));
        // A spread beyond 100% is not a timing a machine produces, and its
        // draws would leave the range of a double.
        bool probability = key == "outlier_rate" || key == "bimodal_weight";
        if (v < 0.0 || v > 1.0)
          return y_.ErrorAt(f, QuoteInput(f.name) + " must be " +
                                   (probability ? "between 0 and 1" : "from 0 to 100%") + ", got " +
                                   YamlReader::Describe(f.value));
        // A spread of 1 is 100%, far more often meant as 1% (as in a policy's
        // thresholds); a probability of 1 is what it says.
        if (!probability) GPUGATE_RETURN_IF_ERROR(y_.NotABarePercentage(f, v));
        if (key == "cv") s->cv = v;
        else if (key == "round_drift") s->round_drift_cv = v;
        else if (key == "run_drift") s->run_drift_cv = v;
        else if (key == "outlier_rate") s->outlier_rate = v;
        else s->bimodal_weight = v;
      }
    }
    // The fastest typical sample must stay a time a results file can hold.
    const double fastest = s->median * std::min({1.0, s->slowdown, s->bimodal_ratio, s->outlier_scale});
    if (fastest < 1e-9)
      return y_.ErrorAt(*sf, "synthetic samples would be faster than 1 ns (median " +
                                 FormatSeconds(s->median) + " times the smallest factor): raise "
                                 "median or the factors below 1");
    const double slowest = s->median * std::max(1.0, s->slowdown) * std::max(1.0, s->bimodal_ratio) *
                           std::max(1.0, s->outlier_scale);
    if (!(slowest < 1e6))
      return y_.ErrorAt(*sf, "synthetic samples would take 1e6 s or more (median " +
                                 FormatSeconds(s->median) + " times its factors): a results file "
                                 "holds times below 1e9 s; lower median or the factors");
    return Status::Ok();
  }

  // ---- expansion ------------------------------------------------------------

  // Cartesian product of the params in declared order (the last one varies
  // fastest), each combination substituted into name, argv, env and cwd.
  // The text of every workload is a copy of its template's: the count of
  // combinations times the most text one of them can hold is checked before
  // anything is copied (`text_bytes` sums that bound over the suite).
  Status Expand(const Template& t, size_t template_index, std::map<std::string, SeenName>* seen,
                uint64_t* text_bytes, std::vector<WorkloadSpec>* out) const {
    int64_t combos = 1;
    for (const Param& p : t.params) {
      // combos <= kMaxWorkloads here and a list has at most kMaxYamlNodes
      // values, so the product cannot overflow.
      combos *= static_cast<int64_t>(p.values.size());
      if (combos + static_cast<int64_t>(out->size()) > kMaxWorkloads)
        return y_.ErrorAt(t.spec.location, "params expand to more than " +
                                               std::to_string(kMaxWorkloads) + " workloads");
    }
    // combos <= kMaxWorkloads and each <= kMaxSuiteTextBytes when they are
    // multiplied: the product cannot overflow.
    const uint64_t each = LongestTextBytes(t);
    if (!t.params.empty() && each > kMaxSuiteTextBytes) return TooMuchText(t, combos, each);
    *text_bytes += static_cast<uint64_t>(combos) * each;
    if (!t.params.empty() && *text_bytes > kMaxSuiteTextBytes) return TooMuchText(t, combos, each);
    std::vector<size_t> pick(t.params.size(), 0);
    for (int64_t c = 0; c < combos; ++c) {
      ParamValues values;
      for (size_t i = 0; i < t.params.size(); ++i)
        values.emplace_back(t.params[i].name, t.params[i].values[pick[i]]);
      WorkloadSpec spec = Instantiate(t, values);
      GPUGATE_RETURN_IF_ERROR(CheckExpandedName(t, pick, spec.name));
      GPUGATE_RETURN_IF_ERROR(CheckNoNul(t, spec));
      GPUGATE_RETURN_IF_ERROR(Remember(t, template_index, c, spec.name, seen));
      out->push_back(std::move(spec));
      for (size_t i = t.params.size(); i-- > 0;) {  // odometer step
        if (++pick[i] < t.params[i].values.size()) break;
        pick[i] = 0;
      }
    }
    return Status::Ok();
  }

  // The most bytes of text one workload of the template can hold: as made
  // with the longest value of every parameter (a text only grows with the
  // values put into it, wherever a placeholder repeats), counted without
  // making it (that alone could be the copy the bound is for).
  uint64_t LongestTextBytes(const Template& t) const {
    ParamValues longest;
    uint64_t bytes = SpecTextBytes(t.spec);
    for (const Param& p : t.params) {
      longest.emplace_back(p.name, *std::max_element(p.values.begin(), p.values.end(),
                                                     [](const std::string& a, const std::string& b) {
                                                       return a.size() < b.size();
                                                     }));
      bytes += kEntryCost + p.name.size() + longest.back().second.size();  // spec.params
    }
    // A relative path is made absolute from the suite file's folder (a
    // filter is a pattern, not a path).
    std::error_code ec;
    const uint64_t folder = std::filesystem::absolute(DirName(y_.file()), ec).string().size() + 1;
    auto grown = [&](const std::string& text) { return SubstitutedSize(text, longest) - text.size(); };
    const WorkloadSpec& w = t.spec;
    bytes += SubstitutedSize(w.template_name, longest);  // the name
    bytes += grown(w.filter);
    for (const std::string* text : {&w.cwd, &w.results, &w.file, &w.ptxas_log}) {
      bytes += grown(*text);
      if (!text->empty()) bytes += folder;
    }
    for (const auto* list : {&w.argv, &w.skip_unchanged, &w.benchmarks, &w.axes})
      for (const std::string& text : *list) bytes += grown(text);
    for (const auto& [k, v] : w.env) bytes += grown(v);
    return bytes;
  }

  Status TooMuchText(const Template& t, int64_t combos, uint64_t each) const {
    return YamlReader::ErrorAt(
        t.params_location,
        "params expand " + QuoteInput(t.spec.template_name) + " to " + std::to_string(combos) +
            (combos == 1 ? " workload of " : " workloads of ") + std::to_string(each) +
            " bytes each (argv, env, names..., each string with its own storage): more than " +
            std::to_string(kMaxSuiteTextBytes >> 20) + " MiB in the suite; use fewer values or shorter texts");
  }

  WorkloadSpec Instantiate(const Template& t, const ParamValues& values) const {
    WorkloadSpec spec = t.spec;
    spec.params = values;
    spec.name = Substitute(t.spec.template_name, values);
    for (std::string& a : spec.argv) a = Substitute(a, values);
    for (auto& [k, v] : spec.env) v = Substitute(v, values);
    if (!spec.cwd.empty()) spec.cwd = ResolvePath(Substitute(spec.cwd, values));
    spec.filter = Substitute(spec.filter, values);
    if (!spec.results.empty()) spec.results = Substitute(spec.results, values);
    if (!spec.file.empty()) spec.file = ResolvePath(Substitute(spec.file, values));
    if (!spec.ptxas_log.empty()) spec.ptxas_log = ResolvePath(Substitute(spec.ptxas_log, values));
    for (std::string& n : spec.skip_unchanged)
      if (n != "*") n = Substitute(n, values);
    for (std::string& b : spec.benchmarks) b = Substitute(b, values);
    for (std::string& a : spec.axes) a = Substitute(a, values);
    if (spec.kind == WorkloadKind::kBuiltin) {
      for (const auto& [name, text] : values) {
        Result<int64_t> size = ParseSize(text);
        if (size.ok()) spec.sizes[name] = *size;
      }
    }
    return spec;
  }

  // A static workload's file: relative to the suite file's folder, unless it
  // starts with {bin} (the build folder given at run time).
  std::string ResolvePath(const std::string& path) const {
    if (path.rfind("{bin}", 0) == 0) return path;
    return ResolveCwd(path);
  }

  // A relative cwd is taken from the suite file's folder; the result is made
  // absolute (and lexically normal) so later stages need not know the suite path.
  std::string ResolveCwd(const std::string& cwd) const {
    namespace fs = std::filesystem;
    fs::path path(cwd);
    if (path.is_relative()) path = fs::path(DirName(y_.file())) / path;
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    if (!ec) path = absolute;
    std::string out = path.lexically_normal().string();
    if (out.size() > 1 && out.back() == '/') out.pop_back();
    return out;
  }

  // A NUL byte ends a C string: an argument, a variable, a path or a
  // benchmark selection would be cut there (a parameter value can bring one
  // into any of them).
  Status CheckNoNul(const Template& t, const WorkloadSpec& spec) const {
    std::vector<std::pair<std::string, const std::string*>> texts = {
        {"cwd", &spec.cwd}, {"results", &spec.results}, {"filter", &spec.filter},
        {"file", &spec.file}, {"ptxas_log", &spec.ptxas_log}};
    for (size_t i = 0; i < spec.argv.size(); ++i) texts.push_back({"argv[" + std::to_string(i) + "]", &spec.argv[i]});
    for (const auto& [k, v] : spec.env) {
      texts.push_back({"env name " + QuoteInput(k), &k});
      texts.push_back({"env." + k, &v});
    }
    for (const std::string& b : spec.benchmarks) texts.push_back({"benchmarks", &b});
    for (const std::string& a : spec.axes) texts.push_back({"axes", &a});
    for (const auto& [what, text] : texts)
      if (text->find('\0') != std::string::npos)
        return y_.ErrorAt(t.spec.location, "workload " + QuoteInput(spec.name) + ": " + what +
                                               " holds a NUL byte, which a program's arguments, "
                                               "environment and paths cannot carry (it would be cut there)");
    return Status::Ok();
  }

  // The value index of every parameter in combination `c` (the last
  // parameter varies fastest, as Expand counts).
  static std::vector<size_t> Pick(const Template& t, int64_t c) {
    std::vector<size_t> pick(t.params.size(), 0);
    for (size_t i = t.params.size(); i-- > 0;) {
      const int64_t count = static_cast<int64_t>(t.params[i].values.size());
      pick[i] = static_cast<size_t>(c % count);
      c /= count;
    }
    return pick;
  }

  // A name seen twice, or two names that look the same (a letter with an
  // accent written precomposed in one and as a letter and a combining mark
  // in the other: ComposeLatinLetters). From two templates: at the second
  // name, citing the first. From two combinations of one template: at the
  // value of the first parameter in which they differ, citing that
  // parameter's other value (the name field is the same for both).
  Status Remember(const Template& t, size_t template_index, int64_t combination, const std::string& name,
                  std::map<std::string, SeenName>* seen) const {
    SourceLocation here = t.alias_at ? *t.alias_at : y_.Where(t.name_field);
    auto [it, inserted] =
        seen->emplace(ComposeLatinLetters(name), SeenName{here, template_index, combination, name});
    if (inserted) return Status::Ok();
    SourceLocation other = it->second.at;
    std::string hint;
    if (it->second.template_index == template_index) {
      const std::vector<size_t> now = Pick(t, combination), then = Pick(t, it->second.combination);
      for (size_t i = 0; i < t.params.size(); ++i) {
        if (now[i] == then[i]) continue;
        const Param& p = t.params[i];
        here = y_.Where(p.fields[std::min(now[i], p.fields.size() - 1)]);
        other = y_.Where(p.fields[std::min(then[i], p.fields.size() - 1)]);
        break;
      }
      std::vector<std::string> in_name = Placeholders(t.spec.template_name);
      for (const Param& p : t.params)
        if (p.values.size() > 1 && !Contains(in_name, p.name)) {
          hint = "; parameter '" + p.name + "' has " + std::to_string(p.values.size()) +
                 " values, so the name needs {" + p.name + "}";
          break;
        }
    }
    const bool expanded = !t.params.empty();
    if (it->second.name != name)
      return YamlReader::ErrorAt(here, "workload name " + QuoteInput(name) + (expanded ? " after expansion" : "") +
                                           " looks the same as the name at " + other.ToString() +
                                           ": they differ only in how an accented letter is written (as one "
                                           "character, or as a letter and a combining mark); write both alike" +
                                           hint);
    return YamlReader::ErrorAt(here, "duplicate workload name " + QuoteInput(name) +
                                         (expanded ? " after expansion" : "") + " (also at " + other.ToString() +
                                         ")" + hint);
  }

  YamlReader y_;
};

// Exact decimal arithmetic for sizes ("1.5K" = 1500) in 128 bits.
using U128 = unsigned __int128;
constexpr U128 kInt64Max = static_cast<U128>(std::numeric_limits<int64_t>::max());

Error BadSize(const std::string& text, const std::string& why) {
  return InputError("invalid size " + QuoteInput(text) + ": " + why);
}

// Globs compare characters, not bytes: `?` and a class match one UTF-8
// character (a code point; a byte of invalid UTF-8 is one of its own, see
// CharacterAt), and class ranges are ranges of code points.

// One `[...]` class at pattern[*pos] (which is '['). On success advances *pos
// past ']' and sets *matched; returns false for an unclosed class.
bool MatchClass(std::string_view pattern, size_t* pos, char32_t c, bool* matched) {
  size_t i = *pos + 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  size_t first = i;
  bool hit = false;
  while (i < pattern.size() && (pattern[i] != ']' || i == first)) {
    const TextCharacter lo = CharacterAt(pattern, i);
    const size_t dash = i + lo.len;
    if (dash + 1 < pattern.size() && pattern[dash] == '-' && pattern[dash + 1] != ']') {
      const TextCharacter hi = CharacterAt(pattern, dash + 1);
      hit = hit || (c >= lo.value && c <= hi.value);
      i = dash + 1 + hi.len;
    } else {
      hit = hit || c == lo.value;
      i = dash;
    }
  }
  if (i >= pattern.size()) return false;  // no closing ']'
  *pos = i + 1;
  *matched = hit != negate;
  return true;
}

// Tries to match one pattern element at *p against the character c;
// advances *p past the element on success.
bool MatchOne(std::string_view pattern, size_t* p, char32_t c) {
  const char pc = pattern[*p];
  if (pc == '?') {
    ++*p;
    return true;
  }
  if (pc == '[') {
    size_t pos = *p;
    bool matched = false;
    if (MatchClass(pattern, &pos, c, &matched)) {
      if (matched) *p = pos;
      return matched;
    }
    // Unclosed '[' is a literal.
  }
  size_t at = *p;
  if (pc == '\\' && at + 1 < pattern.size()) ++at;
  const TextCharacter literal = CharacterAt(pattern, at);
  if (literal.value != c) return false;
  *p = at + literal.len;
  return true;
}

}  // namespace

Result<Suite> LoadSuiteFromString(const std::string& text, const std::string& name) {
  return SuiteParser(name).Parse(text);
}

const char* ToString(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kBuiltin: return "builtin";
    case WorkloadKind::kCommand: return "command";
    case WorkloadKind::kSynthetic: return "synthetic";
    case WorkloadKind::kGbench: return "gbench";
    case WorkloadKind::kNvbench: return "nvbench";
    case WorkloadKind::kStatic: return "static";
  }
  return "?";
}

Result<Suite> LoadSuiteFile(const std::string& path) {
  Result<std::string> text = ReadFile(path, InputKind::kConfig);
  if (!text.ok()) return text.error();
  return LoadSuiteFromString(*text, path);
}

Result<int64_t> ParseSize(const std::string& raw) {
  std::string text = Trim(raw);
  if (text.empty()) return BadSize(raw, "empty");
  if (text[0] == '-') return BadSize(raw, "a size must not be negative");
  size_t i = 0;
  U128 whole = 0;
  size_t whole_digits = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, ++whole_digits) {
    whole = whole * 10 + static_cast<unsigned>(text[i] - '0');
    if (whole > kInt64Max) return BadSize(raw, "too large (the limit is 2^63-1)");
  }
  U128 frac = 0, frac_scale = 1;
  size_t frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      if (++frac_digits > 18) return BadSize(raw, "too many decimals");
      frac = frac * 10 + static_cast<unsigned>(text[i] - '0');
      frac_scale *= 10;
    }
    if (frac_digits == 0) return BadSize(raw, "expected digits after '.'");
  }
  if (whole_digits == 0)
    return BadSize(raw, "expected a number with an optional K, M, G, T or Ki, Mi, Gi, Ti suffix "
                        "(e.g. 4096, 1M, 16Mi)");
  std::string suffix = Trim(std::string_view(text).substr(i));
  U128 multiplier = 1;
  if (!suffix.empty()) {
    static constexpr char kPrefixes[] = "KMGT";
    char letter = suffix[0] == 'k' ? 'K' : suffix[0];
    const char* at = std::char_traits<char>::find(kPrefixes, 4, letter);
    bool binary = suffix.size() == 2 && suffix[1] == 'i';
    if (at == nullptr || (suffix.size() != 1 && !binary))
      return BadSize(raw, "unknown suffix " + QuoteInput(suffix) +
                              " (use K, M, G, T for powers of 1000 or Ki, Mi, Gi, Ti for 1024)");
    for (int k = 0; k <= at - kPrefixes; ++k) multiplier *= binary ? 1024 : 1000;
  }
  U128 frac_part = frac * multiplier;
  if (frac_part % frac_scale != 0) return BadSize(raw, "not a whole number");
  U128 value = whole * multiplier + frac_part / frac_scale;
  if (value > kInt64Max) return BadSize(raw, "too large (the limit is 2^63-1)");
  return static_cast<int64_t>(value);
}

Result<double> ParseDuration(const std::string& raw) {
  std::string text = Trim(raw);
  auto bad = [&](const std::string& why) {
    return InputError("invalid duration " + QuoteInput(raw) + ": " + why);
  };
  if (text.empty()) return bad("empty");
  if (text[0] == '-') return bad("a duration must not be negative");
  std::string_view number = text;
  if (number[0] == '+') number.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v,
                                   std::chars_format::general);
  // A number beyond a double's range (1e400), or so small that it would
  // read as 0 (1e-400), is out of range rather than malformed. (strtod only
  // tells which: it gives HUGE_VAL for the one, about 0 for the other.)
  if (ec == std::errc::result_out_of_range && ptr != number.data()) {
    const std::string digits(number.data(), ptr);
    return bad(std::fabs(std::strtod(digits.c_str(), nullptr)) >= 1
                   ? "the number is out of range (a duration must be below 1e9 s)"
                   : "the number is too small to tell from 0 (write 0, or use a smaller unit such as ns)");
  }
  if (ec != std::errc() || ptr == number.data() || !std::isfinite(v))
    return bad("expected a number with a unit ns, us (or µs), ms, s, m or h (e.g. 500ms, 2s)");
  std::string unit = Trim(std::string_view(ptr, number.data() + number.size() - ptr));
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1.0;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") scale = 1e-6;  // "µs" (micro sign), "μs" (mu)
  else if (unit == "ns") scale = 1e-9;
  else if (unit == "m" || unit == "min") scale = 60.0;
  else if (unit == "h") scale = 3600.0;
  else return bad("unknown unit " + QuoteInput(unit) + " (use ns, us or µs, ms, s, m or h)");
  if (v < 0) return bad("a duration must not be negative");
  if (!(v * scale < kMaxDurationSeconds))
    return bad("must be below 1e9 s (about 31 years)");
  return v * scale;
}

bool GlobMatch(const std::string& pattern, const std::string& text) {
  // Iterative wildcard matching: on a mismatch, backtrack to the last '*' and
  // let it absorb one more character. Every other element matches exactly
  // one character, so this is right and takes at most pattern x text steps
  // (no recursion, nothing exponential).
  size_t p = 0, t = 0;
  size_t star_p = std::string::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star_p = ++p;
      star_t = t;
      continue;
    }
    const TextCharacter c = CharacterAt(text, t);
    if (p < pattern.size() && MatchOne(pattern, &p, c.value)) {
      t += c.len;
      continue;
    }
    if (star_p == std::string::npos) return false;
    p = star_p;
    star_t += CharacterAt(text, star_t).len;
    t = star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<WorkloadSpec> FilterWorkloads(const std::vector<WorkloadSpec>& in,
                                          const std::vector<std::string>& globs,
                                          const std::vector<std::string>& tags) {
  std::vector<WorkloadSpec> out;
  for (const WorkloadSpec& w : in) {
    bool name_ok = globs.empty() || std::any_of(globs.begin(), globs.end(), [&](const auto& g) {
                     return GlobMatch(g, w.name);
                   });
    bool tag_ok = tags.empty() || std::any_of(tags.begin(), tags.end(), [&](const auto& tag) {
                    return Contains(w.tags, tag);
                  });
    if (name_ok && tag_ok) out.push_back(w);
  }
  return out;
}

Result<std::pair<int, int>> ParseShard(const std::string& text) {
  auto bad = [&]() {
    return InputError("invalid shard " + QuoteInput(text) + ": expected i/N with 1 <= i <= N <= " +
                      std::to_string(kMaxShards) + " (e.g. 2/4)");
  };
  size_t slash = text.find('/');
  if (slash == std::string::npos) return bad();
  auto parse = [](std::string_view s, int* out) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        }))
      return false;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && ptr == s.data() + s.size();
  };
  int index = 0, count = 0;
  std::string_view view = text;
  if (!parse(view.substr(0, slash), &index) || !parse(view.substr(slash + 1), &count)) return bad();
  if (count < 1 || index < 1 || index > count || count > kMaxShards) return bad();
  return std::make_pair(index, count);
}

std::vector<WorkloadSpec> SelectShard(const std::vector<WorkloadSpec>& in, int index, int count) {
  GPUGATE_CHECK(count >= 1 && index >= 1 && index <= count);
  std::vector<WorkloadSpec> out;
  for (const WorkloadSpec& w : in)
    if (Fnv1a64(w.name) % static_cast<uint64_t>(count) == static_cast<uint64_t>(index - 1))
      out.push_back(w);
  return out;
}

}  // namespace gpugate
