// Policy reader: policies/*.yaml (version 1) -> Policy, with positioned errors.
// YAML access goes through YamlReader (yaml_util.h), which turns yaml-cpp
// exceptions into Errors.
#include "config/policy.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "config/yaml_util.h"
#include "rules/engine.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/text/escape.h"

namespace gpugate {

namespace {


bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// YYYY-MM-DD with a real calendar date.
bool IsIsoDate(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  int y = std::stoi(s.substr(0, 4)), m = std::stoi(s.substr(5, 2)), d = std::stoi(s.substr(8, 2));
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  int max_day = kDays[m - 1] + (m == 2 && IsLeap(y) ? 1 : 0);
  return d <= max_day;
}

// Per-metric thresholds a policy file does not name.
std::map<std::string, double> BuiltinMetricThresholds() {
  // Instructions executed (measure: instructions) are deterministic: the same
  // binary on the same input counts the same, so a small threshold holds.
  // The static lane's code size (kind: static) is deterministic too, but
  // code grows for good reasons (unrolling, inlining): 10%, and a warning.
  return {{"peak_memory", 0.10},       {"kernel", 0.10},    {"instructions", 0.005},
          {"sass_instructions", 0.10}, {"sass_bytes", 0.10}};
}

// Severity of a regression on a metric no threshold rule names: a failure,
// except the static lane's code size, which warns (its gate is the rules:
// new spills, registers, occupancy; docs/static-lane.md).
Severity BuiltinSeverity(const std::string& metric) {
  return metric == "sass_instructions" || metric == "sass_bytes" ? Severity::kWarn : Severity::kFail;
}

// Rule ids: lower case letters, digits and dashes, as in docs/rules.md.
bool IsRuleId(const std::string& id) {
  if (id.empty() || id.size() > 64 || id.front() == '-') return false;
  for (char c : id)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
      return false;
  return true;
}

class PolicyParser {
 public:
  /// `builtin`: the text is the built-in policy itself (its rules are not
  /// merged with themselves).
  PolicyParser(const std::string& name, bool builtin) : y_(name), builtin_(builtin) {}

  Result<Policy> Parse(const std::string& text) {
    GPUGATE_ASSIGN_OR_RETURN(YAML::Node root, y_.Parse(text));
    SplitLines(y_.Text());  // the lines yaml-cpp read (decoded, no byte order mark)
    if (!root.IsDefined() || root.IsNull())
      return YamlReader::ErrorAt(SourceLocation{y_.file(), 1, 1},
                                 "empty policy: expected a mapping with 'version'");
    if (!root.IsMap())
      return y_.ErrorAt(root, "a policy must be a mapping with 'version', got " +
                                  YamlReader::Describe(root));
    static const std::vector<std::string> kKeys = {"version", "name", "defaults", "rules",
                                                   "builtin_rules", "waivers"};
    GPUGATE_RETURN_IF_ERROR(y_.CheckKeys(root, kKeys));

    Policy policy;
    // Per-metric thresholds the file does not name keep the built-in ones.
    policy.defaults.metric_thresholds = BuiltinMetricThresholds();
    policy.name = FileStem(y_.file());
    policy.path = y_.file();
    GPUGATE_ASSIGN_OR_RETURN(YamlField version, y_.Require(root, "version"));
    GPUGATE_ASSIGN_OR_RETURN(int64_t v, y_.Int(version));
    if (v != kPolicyVersion)
      return y_.ErrorAt(version, "unsupported policy version " + std::to_string(v) +
                                     " (this gpugate reads version " +
                                     std::to_string(kPolicyVersion) + ")");
    if (auto f = y_.Find(root, "name")) {
      GPUGATE_ASSIGN_OR_RETURN(policy.name, y_.String(*f));
    }
    if (auto f = y_.Find(root, "defaults")) {
      GPUGATE_RETURN_IF_ERROR(ParseDefaults(*f, &policy.defaults));
    }
    if (auto f = y_.Find(root, "rules")) {
      if (!f->value.IsNull()) {
        GPUGATE_RETURN_IF_ERROR(y_.ExpectList(*f));
        std::vector<ExprRule> own;
        for (const YamlField& e : y_.Elements(f->value, "rules")) {
          const YAML::Node& entry = e.value;  // const: a lookup never adds a key
          if (entry.IsMap() && (entry["id"] || entry["when"])) {
            GPUGATE_ASSIGN_OR_RETURN(ExprRule r, ParseExprRule(e, own));
            own.push_back(std::move(r));
            continue;
          }
          GPUGATE_ASSIGN_OR_RETURN(PolicyRule r, ParseRule(e));
          policy.rules.push_back(std::move(r));
        }
        own_rules_ = std::move(own);
      }
    }
    bool with_builtin = !builtin_;
    bool builtin_rules_off = false;
    if (auto f = y_.Find(root, "builtin_rules")) {
      GPUGATE_ASSIGN_OR_RETURN(with_builtin, y_.Bool(*f));
      builtin_rules_off = !with_builtin;
      with_builtin = with_builtin && !builtin_;
    }
    if (with_builtin) policy.expr_rules = DefaultPolicy().expr_rules;
    for (ExprRule& r : own_rules_) {
      auto same = std::find_if(policy.expr_rules.begin(), policy.expr_rules.end(),
                               [&](const ExprRule& b) { return b.id == r.id; });
      if (same != policy.expr_rules.end()) {
        if (r.emit == RuleEmit::kOff)
          policy.expr_rules.erase(same);
        else
          *same = std::move(r);
      } else if (r.emit == RuleEmit::kOff && !builtin_) {
        // Switching off a rule that is not there is a typo, not a no-op.
        std::vector<std::string> ids;
        for (const ExprRule& b : DefaultPolicy().expr_rules) ids.push_back(b.id);
        return YamlReader::ErrorAt(
            r.location, "no built-in rule '" + r.id + "' to switch off" +
                            (builtin_rules_off ? ": builtin_rules: false left none (drop the entry)"
                                               : DidYouMean(r.id, ids)));
      } else {
        policy.expr_rules.push_back(std::move(r));
      }
    }
    if (auto f = y_.Find(root, "waivers")) {
      if (!f->value.IsNull()) {
        GPUGATE_RETURN_IF_ERROR(y_.ExpectList(*f));
        for (const YamlField& e : y_.Elements(f->value, "waivers")) {
          GPUGATE_ASSIGN_OR_RETURN(Waiver w, ParseWaiver(e));
          policy.waivers.push_back(std::move(w));
        }
      }
    }
    return policy;
  }

 private:
  // A threshold: "3%" or a fraction 0.03, in [0, 10]. A bare number of 1
  // or more is a percentage written without its sign far more often than
  // a change of 100% or more: it is refused with both readings.
  Result<double> Threshold(const YamlField& f) {
    GPUGATE_ASSIGN_OR_RETURN(double t, y_.Fraction(f));
    if (!(t >= 0) || t > 10)
      return y_.ErrorAt(f, QuoteInput(f.name) + " must be between 0% and 1000%, got " +
                               YamlReader::Describe(f.value));
    GPUGATE_RETURN_IF_ERROR(y_.NotABarePercentage(f, t));
    return t + 0.0;  // -0 reads as 0
  }

  // A glob over workload names; an empty one matches none.
  Result<std::string> Match(const YamlField& f) {
    GPUGATE_ASSIGN_OR_RETURN(std::string m, y_.String(f));
    if (Trim(m).empty())
      return y_.ErrorAt(f, QuoteInput(f.name) + " must not be blank: it would match no workload (\"*\" "
                           "matches every one)");
    return m;
  }

  Result<std::string> Metric(const YamlField& f) {
    GPUGATE_ASSIGN_OR_RETURN(std::string m, y_.String(f));
    if (StartsWith(m, "kernel:") && m.size() > 7) return m;
    const auto& names = PolicyMetricNames();
    for (const auto& n : names)
      if (m == n) return m;
    return y_.ErrorAt(f, "unknown metric " + QuoteInput(m) + DidYouMean(m, names) +
                             " (expected time, throughput, peak_memory, kernel, kernel:NAME, value, instructions, "
                             "sass_instructions, sass_bytes or *)");
  }

  // A key of `defaults.thresholds` is looked up by exact metric name, while
  // the same text in a rule's `metric:` is a glob: a key with a glob
  // character would be shown and never applied, so it is refused, naming
  // the rule that does what it means.
  Status ExactMetricKey(const YamlField& key_field, const std::string& metric) const {
    const size_t glob = metric.find_first_of("*?[");
    if (glob == std::string::npos) return Status::Ok();
    return y_.ErrorAt(key_field, QuoteInput(metric) + " holds the glob character '" + metric.substr(glob, 1) +
                                     "', but keys of 'defaults.thresholds' are exact metric names, so it would "
                                     "apply to no metric; for a glob, write a rule under 'rules:' with metric: " +
                                     QuoteInput(metric) + " and the threshold");
  }

  Status ParseDefaults(const YamlField& f, PolicyDefaults* d) {
    if (f.value.IsNull()) return Status::Ok();
    GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(f));
    static const std::vector<std::string> kKeys = {
        "threshold",       "thresholds",     "fdr_q",          "on_inconclusive",
        "on_incomparable", "no_replication", "require_detectable", "confidence"};
    GPUGATE_RETURN_IF_ERROR(y_.CheckKeys(f, kKeys));
    if (auto e = y_.Find(f.value, "threshold", "defaults.")) {
      GPUGATE_ASSIGN_OR_RETURN(d->threshold, Threshold(*e));
    }
    if (auto e = y_.Find(f.value, "thresholds", "defaults.")) {
      GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(*e));
      GPUGATE_RETURN_IF_ERROR(y_.CheckUniqueKeys(e->value));
      for (const YamlField& m : y_.Entries(e->value)) {
        YamlField key_field{m.name, m.key, m.key, YAML::Mark::null_mark()};
        GPUGATE_ASSIGN_OR_RETURN(std::string metric, Metric(key_field));
        if (metric == "*")
          return y_.ErrorAt(key_field, "use 'threshold' for the default of every metric");
        GPUGATE_RETURN_IF_ERROR(ExactMetricKey(key_field, metric));
        GPUGATE_ASSIGN_OR_RETURN(double t, Threshold(m));
        d->metric_thresholds[metric] = t;
      }
    }
    if (auto e = y_.Find(f.value, "fdr_q", "defaults.")) {
      GPUGATE_ASSIGN_OR_RETURN(double q, y_.Fraction(*e));
      if (!(q > 0 && q < 1))
        return y_.ErrorAt(*e, "'defaults.fdr_q' must be in (0, 1), got " +
                                  YamlReader::Describe(e->value));
      d->fdr_q = q;
    }
    if (auto e = y_.Find(f.value, "on_inconclusive", "defaults.")) {
      GPUGATE_ASSIGN_OR_RETURN(std::string s,
                               y_.Choice(*e, "on_inconclusive", {"pass", "warn", "fail"}));
      d->on_inconclusive = s == "pass"   ? OnInconclusive::kPass
                           : s == "warn" ? OnInconclusive::kWarn
                                         : OnInconclusive::kFail;
    }
    if (auto e = y_.Find(f.value, "on_incomparable", "defaults.")) {
      GPUGATE_ASSIGN_OR_RETURN(std::string s,
                               y_.Choice(*e, "on_incomparable", {"pass", "warn", "fail"}));
      d->on_incomparable = s == "pass"   ? OnInconclusive::kPass
                           : s == "warn" ? OnInconclusive::kWarn
                                         : OnInconclusive::kFail;
    }
    if (auto e = y_.Find(f.value, "no_replication", "defaults.")) {
      GPUGATE_ASSIGN_OR_RETURN(std::string s,
                               y_.Choice(*e, "no_replication", {"inconclusive", "threshold"}));
      d->threshold_without_replication = s == "threshold";
    }
    if (auto e = y_.Find(f.value, "require_detectable", "defaults.")) {
      GPUGATE_ASSIGN_OR_RETURN(double t, y_.Fraction(*e));
      if (!(t > 0) || t > 10)
        return y_.ErrorAt(*e, "'defaults.require_detectable' must be above 0% and at most "
                              "1000%, got " + YamlReader::Describe(e->value));
      GPUGATE_RETURN_IF_ERROR(y_.NotABarePercentage(*e, t));
      d->require_detectable = t;
    }
    if (auto e = y_.Find(f.value, "confidence", "defaults.")) {
      GPUGATE_ASSIGN_OR_RETURN(double c, y_.Fraction(*e));
      if (!(c >= 0.5 && c < 1))
        return y_.ErrorAt(*e, "'defaults.confidence' must be in [0.5, 1), got " +
                                  YamlReader::Describe(e->value));
      d->confidence = c;
    }
    return Status::Ok();
  }

  Result<PolicyRule> ParseRule(const YamlField& f) {
    GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(f));
    static const std::vector<std::string> kKeys = {"match", "metric", "threshold", "direction",
                                                   "severity"};
    // (id and when make an expression rule; its other keys without them:)
    for (const char* key : {"emit", "priority", "message", "hint", "speedup", "source"})
      if (auto e = y_.Find(f.value, key))
        return y_.ErrorAt(e->key, std::string("'") + key + "' belongs to expression rules, which need "
                                  "'id' and 'when'; a threshold rule has match, metric, threshold, "
                                  "direction and severity");
    GPUGATE_RETURN_IF_ERROR(y_.CheckKeys(f, kKeys));
    PolicyRule r;
    r.location = y_.Where(f);  // an alias (`- *r`) is where its rule is written
    std::string prefix = f.name + ".";
    if (auto e = y_.Find(f.value, "match", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(r.match, Match(*e));
    }
    if (auto e = y_.Find(f.value, "metric", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(r.metric, Metric(*e));
    }
    if (auto e = y_.Find(f.value, "threshold", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(r.threshold, Threshold(*e));
    }
    if (auto e = y_.Find(f.value, "direction", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(
          std::string s, y_.Choice(*e, "direction", {"lower_is_better", "higher_is_better"}));
      r.lower_is_better = s == "lower_is_better";
    }
    if (auto e = y_.Find(f.value, "severity", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(std::string s, y_.Choice(*e, "severity", {"fail", "warn", "off"}));
      r.severity = s == "fail" ? Severity::kFail : s == "warn" ? Severity::kWarn : Severity::kOff;
    }
    if (!r.threshold && !r.lower_is_better && !r.severity)
      return y_.ErrorAt(f, "rule sets nothing: give at least one of threshold, direction, severity");
    return r;
  }

  // The source lines, to place an expression inside its YAML scalar.
  void SplitLines(const std::string& text) {
    lines_.clear();
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string::npos) nl = text.size();
      lines_.push_back(text.substr(start, nl - start));
      start = nl + 1;
    }
  }

  // Where a value's own text starts (a byte column): past an anchor (`&w`)
  // or a tag (`!!str`) before it on the same line (YamlReader::ByteWhere).
  SourceLocation ValueStart(const YamlField& f) const { return y_.ByteWhere(f.value); }

  // The indentation of the block mapping that holds a field: its key's
  // column (a byte index), which a list dash before the key (`- when: |`)
  // does not change. Nullopt for a list element, which has no key.
  std::optional<size_t> KeyColumn(const YamlField& f) const {
    const YAML::Mark key_at = f.key.Mark();  // at the key's properties, if any: its start
    if (key_at.line < 0 || key_at.column < 0 || key_at.line >= static_cast<int>(lines_.size())) return std::nullopt;
    return static_cast<size_t>(key_at.column);
  }

  // A line with nothing but blanks (a line break inside or after a block scalar).
  static bool IsBlankLine(const std::string& l) { return l.find_first_not_of(" \t\r") == std::string::npos; }

  // Whitespace runs as one space, none at either end: what an expression's
  // text and the value YAML folds from it must agree on.
  static std::string Blanked(const std::string& t) {
    std::string out;
    bool blank = false;
    for (char c : t) {
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        blank = !out.empty();
        continue;
      }
      if (blank) out += ' ';
      blank = false;
      out += c;
    }
    return out;
  }

  // Where the text of a scalar starts: after the opening quote of a quoted
  // scalar, on the first content line of a block scalar (| or >).
  rules::SourcePos ExprPos(const YamlField& f) const {
    const SourceLocation at = ValueStart(f);  // a byte column, to read the line
    rules::SourcePos pos{at.file, at.line, y_.CharColumn(at.line - 1, at.column - 1)};
    if (at.line < 1 || at.line > static_cast<int>(lines_.size())) return pos;
    const std::string& line = lines_[at.line - 1];
    const size_t col = static_cast<size_t>(at.column - 1);
    if (col >= line.size()) return pos;
    const char c = line[col];
    if (c == '"' || c == '\'') {
      pos.col += 1;
    } else if (c == '|' || c == '>') {
      for (int l = at.line; l < static_cast<int>(lines_.size()); ++l) {
        if (IsBlankLine(lines_[l])) continue;
        pos.line = l + 1;
        pos.col = y_.CharColumn(l, static_cast<int>(lines_[l].find_first_not_of(' ')));
        break;
      }
    }
    return pos;
  }

  // An expression written as a block scalar (| or >, with or without an
  // indentation indicator and a chomping indicator, in either order): parse
  // the source lines themselves, indentation included, from column 1 of the
  // line below the header, so every error points at its line and column in
  // the file (folding only turns line breaks into spaces, which the
  // language ignores). The block's lines are those indented at least as far
  // as its content: the indicator's count past the key's column, or else
  // the first line that is not blank, which must be indented past the key.
  // Blank lines go with it; a less indented line (a sibling key, a comment)
  // ends it. Used only when the text folds to the value YAML read.
  void RawBlock(const YamlField& f, const std::string& value, std::string* text, rules::SourcePos* pos) const {
    const SourceLocation at = ValueStart(f);  // a byte column, to read the line
    if (at.line < 1 || at.line >= static_cast<int>(lines_.size())) return;
    const std::string& head = lines_[at.line - 1];
    const size_t col = static_cast<size_t>(at.column - 1);
    if (col >= head.size() || (head[col] != '|' && head[col] != '>')) return;
    const std::optional<size_t> parent = KeyColumn(f);
    if (!parent) return;
    size_t indicator = 0;
    for (size_t i = col + 1; i < head.size() && i <= col + 2; ++i) {
      if (head[i] >= '1' && head[i] <= '9' && indicator == 0) indicator = static_cast<size_t>(head[i] - '0');
      else if (head[i] != '+' && head[i] != '-') break;
    }
    size_t content = indicator > 0 ? *parent + indicator : 0;  // 0: not known yet
    std::string raw;
    for (int line = at.line; line < static_cast<int>(lines_.size()); ++line) {
      const std::string& l = lines_[line];
      if (!IsBlankLine(l)) {
        const size_t indent = l.find_first_not_of(' ');
        if (content == 0) content = indent > *parent ? indent : std::string::npos;
        if (content == std::string::npos || indent < content) break;
      }
      raw += l + "\n";
    }
    if (Blanked(raw) != Blanked(value)) return;
    *text = raw;
    pos->line = at.line + 1;
    pos->col = 1;
  }

  // A plain or quoted scalar continued on the lines below its key: its
  // source text from the value's first character, line breaks, blank lines
  // and indentation kept, so that positions are the file's. Used only to
  // place an error (ParsePlaced), and only when it folds to the value
  // (blanks aside).
  void RawPlain(const YamlField& f, const std::string& value, std::string* text, rules::SourcePos* pos,
                bool* exact = nullptr) const {
    const SourceLocation at = ValueStart(f);  // a byte column, to read the line
    if (at.line < 1 || at.line >= static_cast<int>(lines_.size())) return;
    const std::string& head = lines_[at.line - 1];
    const size_t col = static_cast<size_t>(at.column - 1);
    if (col >= head.size() || head[col] == '|' || head[col] == '>') return;
    // The value ends at the first line indented no deeper than its key's
    // column (the key may be on the line above: `when:` and the value
    // below; a list dash before the key does not count).
    const size_t key_indent = KeyColumn(f).value_or(head.find_first_not_of(' '));
    std::string raw;
    int line = at.line;
    bool continued = false;  // an escaped line break joined two lines
    const char quote = head[col] == '"' || head[col] == '\'' ? head[col] : '\0';
    if (quote != '\0') {
      // A quoted scalar: up to its closing quote, on this line or a later
      // one. An escaped line break (a backslash that ends a line of a
      // double-quoted scalar) becomes a blank; any other escape changes
      // the text, and then the value keeps its base position.
      std::string rest = head.substr(col + 1) + "\n";
      for (; line < static_cast<int>(lines_.size()); ++line) {
        const size_t close = quote == '"' ? rest.find('"') : rest.find('\'');
        if (close != std::string::npos) {
          raw += rest.substr(0, close);
          break;
        }
        if (quote == '"' && rest.size() >= 2 && rest[rest.size() - 2] == '\\') {
          rest[rest.size() - 2] = ' ';
          continued = true;
        }
        raw += rest;
        rest = lines_[line] + "\n";
      }
      if (line == at.line || line >= static_cast<int>(lines_.size())) return;
      if (raw.find('\\') != std::string::npos || raw.find("''") != std::string::npos) return;
    } else {
      // A plain scalar ends its line at a comment (a '#' after a blank).
      auto uncommented = [](const std::string& l) {
        for (size_t i = 1; i < l.size(); ++i)
          if (l[i] == '#' && (l[i - 1] == ' ' || l[i - 1] == '\t')) return l.substr(0, i);
        return l;
      };
      raw = uncommented(head.substr(col)) + "\n";
      std::string blanks;  // blank lines, kept only when the value goes on
      for (; line < static_cast<int>(lines_.size()); ++line) {
        const std::string& l = lines_[line];
        const size_t indent = l.find_first_not_of(' ');
        if (indent == std::string::npos) {
          blanks += "\n";
          continue;
        }
        if (indent <= key_indent || l[indent] == '#') break;
        raw += blanks + uncommented(l) + "\n";
        blanks.clear();
      }
      if (raw.find('\n') == raw.size() - 1) return;  // one line: the base position is right
    }
    auto squeeze = [](const std::string& t) {
      std::string out;
      for (char c : t)
        if (c != ' ' && c != '\n' && c != '\t' && c != '\r') out += c;
      return out;
    };
    if (squeeze(raw) != squeeze(value)) return;
    *text = raw;
    *pos = rules::SourcePos{at.file, at.line, y_.CharColumn(at.line - 1, at.column - 1) + (quote != '\0' ? 1 : 0)};
    if (exact) *exact = !continued;
  }

  // A message without its "file:line:col: " prefix.
  static std::string_view Unplaced(std::string_view message, const std::string& file) {
    if (message.substr(0, file.size() + 1) != file + ":") return message;
    size_t i = file.size() + 1;
    for (int colons = 0; i < message.size() && colons < 2; ++i)
      if (message[i] == ':') ++colons;
      else if (message[i] < '0' || message[i] > '9') return message;
    return i < message.size() && message[i] == ' ' ? message.substr(i + 1) : message;
  }

  // An expression or template whose value spans lines of the file. An
  // expression (`source_text`) is parsed from its source text, line breaks
  // kept (block scalars from column 1, plain and quoted scalars from their
  // first character), so positions are the file's. A string literal that
  // runs across a line break fails there; the expression is then read from
  // the value, where YAML folded the break into a blank (a long kernel name
  // folded after its ", "), if that parses. A template, and an expression
  // whose lines an escaped line break joins, is parsed from its value; when
  // that fails, the error is placed by parsing the source text, if that
  // finds the same error.
  //
  // Where neither gives the file's position (an escape such as \" or '' or
  // \n, which the value holds decoded, or a value folded from lines the
  // source text does not match), the error is placed at the scalar's own
  // start rather than at an offset into a text the file does not hold.
  template <typename Parse>
  auto ParsePlaced(const YamlField& f, const std::string& value, Parse parse, bool source_text = false) const
      -> decltype(parse(value, rules::SourcePos{})) {
    if (!f.alias.is_null()) return ParseAliased(f, value, parse, source_text);
    const rules::SourcePos base = ExprPos(f);
    std::string raw;
    rules::SourcePos raw_pos = base;
    bool exact = true;
    RawBlock(f, value, &raw, &raw_pos);
    if (raw.empty()) RawPlain(f, value, &raw, &raw_pos, &exact);
    if (source_text && !raw.empty() && exact) {
      // The source text, unless it fails where the value YAML read parses:
      // a string folded across two lines (`>`, or a plain scalar) holds a
      // line break in the source and a blank in the value.
      auto from_source = parse(raw, raw_pos);
      if (from_source.ok()) return from_source;
      auto from_value = parse(value, base);
      if (from_value.ok()) return from_value;
      return from_source;
    }
    auto parsed = parse(value, base);
    if (parsed.ok()) return parsed;
    if (!raw.empty()) {
      auto placed = parse(raw, raw_pos);
      if (!placed.ok() &&
          Unplaced(placed.error().message, raw_pos.file) == Unplaced(parsed.error().message, base.file))
        return placed;
    }
    if (ValueIsSourceAt(value, base)) return parsed;
    const SourceLocation start = y_.Where(f);
    return YamlReader::ErrorAt(start, std::string(Unplaced(parsed.error().message, base.file)));
  }

  // A text an alias brings in (`when: *w`): it is read where the alias is
  // written, so an error is placed at the alias and says where in the
  // anchor's text it is ("7:11: at 5:31 in the text this alias brings in: ...").
  template <typename Parse>
  auto ParseAliased(const YamlField& f, const std::string& value, Parse parse, bool source_text) const
      -> decltype(parse(value, rules::SourcePos{})) {
    YamlField anchored = f;
    anchored.alias = YAML::Mark::null_mark();
    auto parsed = ParsePlaced(anchored, value, parse, source_text);
    if (parsed.ok()) return parsed;
    const std::string& message = parsed.error().message;
    const std::string_view rest = Unplaced(message, y_.file());
    std::string in_anchor;
    if (rest.size() < message.size()) {
      const std::string_view place =
          std::string_view(message).substr(y_.file().size() + 1, message.size() - rest.size() - y_.file().size() - 3);
      in_anchor = "at " + std::string(place) + " in the text this alias brings in: ";
    }
    return YamlReader::ErrorAt(y_.Where(f), in_anchor + std::string(rest));
  }

  // Whether the value is, byte for byte, the source text at `at` (one line,
  // nothing escaped or folded): then an offset into it is a column.
  bool ValueIsSourceAt(const std::string& value, const rules::SourcePos& at) const {
    if (value.find('\n') != std::string::npos || at.line < 1 || at.line > static_cast<int>(lines_.size()) ||
        at.col < 1)
      return false;
    const std::string& line = lines_[at.line - 1];
    const size_t col = ByteOfCharColumn(line, at.col);  // at.col counts characters
    return col <= line.size() && line.compare(col, value.size(), value) == 0;
  }

  Result<rules::Template> ParseTemplateAt(const YamlField& f, const std::string& value,
                                          const rules::Schema& schema) const {
    return ParsePlaced(f, value, [&](const std::string& text, const rules::SourcePos& pos) {
      return rules::ParseTemplate(text, schema, pos);
    });
  }

  Result<ExprRule> ParseExprRule(const YamlField& f, const std::vector<ExprRule>& earlier) {
    GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(f));
    static const std::vector<std::string> kKeys = {"id", "when", "emit", "priority", "message",
                                                   "hint", "speedup", "source"};
    // A threshold rule's key in a rule with id/when: two kinds of rule mixed.
    for (const char* key : {"match", "metric", "threshold", "direction", "severity"})
      if (auto e = y_.Find(f.value, key))
        return y_.ErrorAt(e->key, std::string("'") + key + "' belongs to threshold rules (match, metric, "
                                  "threshold, direction, severity); a rule with 'id' or 'when' is an "
                                  "expression rule (id, when, emit, priority, message, hint, speedup, "
                                  "source): write two rules");
    GPUGATE_RETURN_IF_ERROR(y_.CheckKeys(f, kKeys));
    const std::string prefix = f.name + ".";
    ExprRule r;
    r.location = y_.Where(f);  // an alias (`- *r`) is where its rule is written
    GPUGATE_ASSIGN_OR_RETURN(YamlField id, y_.Require(f.value, "id", prefix));
    GPUGATE_ASSIGN_OR_RETURN(r.id, y_.String(id));
    if (!IsRuleId(r.id))
      return y_.ErrorAt(id, "rule id " + QuoteInput(r.id) +
                                " must be 1-64 lower-case letters, digits and dashes (e.g. small-grid)");
    for (const ExprRule& e : earlier) {
      if (e.id != r.id) continue;
      if (f.alias.is_null())
        return y_.ErrorAt(id, "rule id " + QuoteInput(r.id) + " is used twice (first at " +
                                  e.location.ToString() + ")");
      // `- *r` repeats a rule: the alias is the second use.
      const SourceLocation anchor = y_.Where(f.value);
      return y_.ErrorAt(f, "rule id " + QuoteInput(r.id) + " is used twice (first at " + e.location.ToString() +
                               "; this alias brings in the rule at " + std::to_string(anchor.line) + ":" +
                               std::to_string(anchor.column) + ")");
    }
    if (auto e = y_.Find(f.value, "emit", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(std::string s,
                               y_.Choice(*e, "emit", {"suggestion", "warning", "fail", "off"}));
      r.emit = s == "suggestion" ? RuleEmit::kSuggestion
               : s == "warning"  ? RuleEmit::kWarning
               : s == "fail"     ? RuleEmit::kFail
                                 : RuleEmit::kOff;
    }
    if (r.emit == RuleEmit::kOff) {
      for (const char* k : {"when", "message", "hint", "speedup", "priority", "source"})
        if (auto e = y_.Find(f.value, k, prefix))
          return y_.ErrorAt(*e, "a rule with 'emit: off' only names the rule to switch off; "
                                "remove " + QuoteInput(k));
      return r;
    }
    const rules::Schema& schema = RuleSchema();
    GPUGATE_ASSIGN_OR_RETURN(YamlField when, y_.Require(f.value, "when", prefix));
    GPUGATE_ASSIGN_OR_RETURN(std::string when_text, y_.String(when));
    GPUGATE_ASSIGN_OR_RETURN(r.when, ParsePlaced(when, when_text, [&](const std::string& text,
                                                                     const rules::SourcePos& pos) {
                               return rules::ParseCondition(text, schema, pos);
                             }, /*source_text=*/true));
    if (auto e = y_.Find(f.value, "speedup", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(std::string text, y_.String(*e));
      GPUGATE_ASSIGN_OR_RETURN(rules::Expr x, ParsePlaced(*e, text, [&](const std::string& t,
                                                                        const rules::SourcePos& pos) {
                                 return rules::ParseExpr(t, schema, pos);
                               }, /*source_text=*/true));
      if (x.type() != rules::Type::kNumber || !(x.dim() == rules::Dim::Number()))
        return y_.ErrorAt(*e, "'speedup' must be a plain number (a fraction of the time saved, e.g. 25% or "
                              "(device.sms - kernel.grid_blocks) / device.sms)");
      r.speedup = std::move(x);
    }
    // The message and hint can name only what the rule's scope gives.
    r.scope = InferScope(r.when, r.speedup);
    const rules::Schema& scoped = RuleSchemaFor(r.scope);
    GPUGATE_ASSIGN_OR_RETURN(YamlField message, y_.Require(f.value, "message", prefix));
    GPUGATE_ASSIGN_OR_RETURN(std::string message_text, y_.String(message));
    GPUGATE_ASSIGN_OR_RETURN(r.message, ParseTemplateAt(message, message_text, scoped));
    if (auto e = y_.Find(f.value, "hint", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(std::string text, y_.String(*e));
      GPUGATE_ASSIGN_OR_RETURN(rules::Template t, ParseTemplateAt(*e, text, scoped));
      r.hint = std::move(t);
    }
    if (auto e = y_.Find(f.value, "priority", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(std::string s,
                               y_.Choice(*e, "priority", {"critical", "high", "medium", "low"}));
      r.priority = s == "critical" ? RulePriority::kCritical
                   : s == "high"   ? RulePriority::kHigh
                   : s == "medium" ? RulePriority::kMedium
                                   : RulePriority::kLow;
    }
    if (auto e = y_.Find(f.value, "source", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(r.source, y_.String(*e));
    }
    return r;
  }

  Result<Waiver> ParseWaiver(const YamlField& f) {
    GPUGATE_RETURN_IF_ERROR(y_.ExpectMap(f));
    static const std::vector<std::string> kKeys = {"match", "metric", "until", "reason"};
    GPUGATE_RETURN_IF_ERROR(y_.CheckKeys(f, kKeys));
    Waiver w;
    w.location = y_.Where(f);
    std::string prefix = f.name + ".";
    GPUGATE_ASSIGN_OR_RETURN(YamlField match, y_.Require(f.value, "match", prefix));
    GPUGATE_ASSIGN_OR_RETURN(w.match, Match(match));
    if (auto e = y_.Find(f.value, "metric", prefix)) {
      GPUGATE_ASSIGN_OR_RETURN(w.metric, Metric(*e));
    }
    GPUGATE_ASSIGN_OR_RETURN(YamlField until, y_.Require(f.value, "until", prefix));
    GPUGATE_ASSIGN_OR_RETURN(w.until, y_.String(until));
    if (!IsIsoDate(w.until))
      return y_.ErrorAt(until, QuoteInput(until.name) + " must be a date YYYY-MM-DD, got " +
                                   QuoteInput(w.until));
    GPUGATE_ASSIGN_OR_RETURN(YamlField reason, y_.Require(f.value, "reason", prefix));
    GPUGATE_ASSIGN_OR_RETURN(w.reason, y_.String(reason));
    if (Trim(w.reason).empty())
      return y_.ErrorAt(reason, QuoteInput(reason.name) + " must say why the regression is accepted");
    return w;
  }

  YamlReader y_;
  bool builtin_ = false;
  std::vector<std::string> lines_;
  std::vector<ExprRule> own_rules_;
};

}  // namespace

const std::vector<std::string>& PolicyMetricNames() {
  static const std::vector<std::string> kNames = {"time",  "throughput",   "peak_memory",       "kernel",
                                                  "value", "instructions", "sass_instructions", "sass_bytes",
                                                  "*"};
  return kNames;
}

const std::string& DefaultPolicyText() {
  static const std::string kText =
#include "default_policy.inc"
      ;
  return kText;
}

const Policy& DefaultPolicy() {
  static const Policy kPolicy = [] {
    Result<Policy> p = PolicyParser("policies/default.yaml", /*builtin=*/true).Parse(DefaultPolicyText());
    if (!p.ok()) std::fprintf(stderr, "gpugate: internal error: built-in policy: %s\n", p.error().message.c_str());
    GPUGATE_CHECK(p.ok());
    Policy policy = std::move(p).value();
    policy.path.clear();  // built in
    return policy;
  }();
  return kPolicy;
}

Result<Policy> LoadPolicyFromString(const std::string& text, const std::string& name) {
  return PolicyParser(name, /*builtin=*/false).Parse(text);
}

Result<Policy> LoadPolicyFile(const std::string& path) {
  Result<std::string> text = ReadFile(path, InputKind::kConfig);
  if (!text.ok()) return text.error();
  return LoadPolicyFromString(*text, path);
}

bool PolicyMetricMatches(const std::string& pattern, const std::string& metric) {
  if (pattern == "*") return true;
  if (pattern == "kernel") return StartsWith(metric, "kernel:");
  return GlobMatch(pattern, metric);
}

ResolvedPolicy ResolvePolicy(const Policy& policy, const std::string& workload,
                             const std::string& metric) {
  ResolvedPolicy r;
  r.threshold = policy.defaults.threshold;
  r.severity = BuiltinSeverity(metric);
  const auto& mt = policy.defaults.metric_thresholds;
  std::string family = StartsWith(metric, "kernel:") ? "kernel" : metric;
  if (auto it = mt.find(metric); it != mt.end()) {
    r.threshold = it->second;
  } else if (auto it2 = mt.find(family); it2 != mt.end()) {
    r.threshold = it2->second;
  }
  for (const PolicyRule& rule : policy.rules) {
    if (!GlobMatch(rule.match, workload) || !PolicyMetricMatches(rule.metric, metric)) continue;
    if (rule.threshold) r.threshold = *rule.threshold;
    if (rule.lower_is_better) r.lower_is_better = rule.lower_is_better;
    if (rule.severity) r.severity = *rule.severity;
  }
  return r;
}

const Waiver* FindWaiver(const Policy& policy, const std::string& workload,
                         const std::string& metric, const std::string& today) {
  for (const Waiver& w : policy.waivers)
    if (w.until >= today && GlobMatch(w.match, workload) && PolicyMetricMatches(w.metric, metric)) return &w;
  return nullptr;
}

const char* ToString(OnInconclusive o) {
  switch (o) {
    case OnInconclusive::kPass: return "pass";
    case OnInconclusive::kWarn: return "warn";
    case OnInconclusive::kFail: return "fail";
  }
  return "?";
}

}  // namespace gpugate
