// The rule expression language of policy files (docs/rule-language.md): the
// `when:` conditions, computed values such as `speedup:` and the `{...}`
// placeholders of `message:` templates. Expressions are parsed and type
// checked once, against a Schema of the names the rule engine can supply,
// and evaluated many times against a Scope (one workload, kernel or trace).
//
// The language is small and safe: no loops, no I/O, bounded length and
// nesting. Values carry a dimension (time^a * bytes^b), so a time is never
// compared with a byte count or a bare number. Evaluation is three-valued:
// a name the scope cannot supply, or a division by zero, makes a value
// unknown, and `and`/`or` follow Kleene's logic. Evaluating never throws.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace gpugate::rules {

/// Where an expression starts inside its file (the YAML scalar's first
/// character); errors count lines and columns inside the text from here.
struct SourcePos {
  std::string file;
  int line = 1;
  int col = 1;
};

/// A physical dimension as exponents: time^time * bytes^bytes. A time is
/// {1, 0}, a byte count {0, 1}, a rate {-1, 1}, a plain number {0, 0}.
struct Dim {
  int time = 0;
  int bytes = 0;

  static constexpr Dim Number() { return {0, 0}; }
  static constexpr Dim Time() { return {1, 0}; }
  static constexpr Dim Bytes() { return {0, 1}; }
  static constexpr Dim Rate() { return {-1, 1}; }

  bool operator==(const Dim&) const = default;
  /// "number", "time", "bytes", "bytes/time"; others as "bytes^2/time^3".
  std::string ToString() const;
};

enum class Type { kNumber, kBool, kString };  ///< kNumber carries a Dim

/// One name the engine can supply.
struct NameInfo {
  Type type = Type::kNumber;
  Dim dim;
  std::string doc;
  bool aggregatable = false;  ///< share(NAME) is allowed
  bool countable = false;     ///< count(NAME) is allowed
  /// Non-empty: the name exists but has no value where this schema is used
  /// (a kernel name in a trace rule's message); using it is a parse error
  /// that says this, at the name.
  std::string unavailable;
};

/// The names an expression may use, with their types.
using Schema = std::map<std::string, NameInfo, std::less<>>;

/// A value during evaluation. kUnknown: the scope could not supply it, or
/// it came from a division by zero or a non-finite result.
struct Value {
  enum class Kind { kUnknown, kNumber, kBool, kString };
  Kind kind = Kind::kUnknown;
  double number = 0;
  bool boolean = false;
  std::string text;
  Dim dim;
  /// A number known only from below: the true value is `number` or more
  /// (the bytes of a trace's copies when some copies state no size). A
  /// comparison it cannot settle is unknown, and it prints as "≥ 976 KiB".
  bool at_least = false;

  static Value Unknown() { return {}; }
  static Value Number(double v, Dim d = {});
  static Value AtLeast(double v, Dim d = {});
  static Value Bool(bool b);
  static Value String(std::string s);
  bool known() const { return kind != Kind::kUnknown; }
  /// True only for a known `true` (a rule fires only then).
  bool IsTrue() const { return kind == Kind::kBool && boolean; }
};

/// What the engine supplies at evaluation time.
class Scope {
 public:
  virtual ~Scope() = default;
  /// The value of a schema name; kUnknown when not available here.
  virtual Value Lookup(std::string_view name) const = 0;
  /// The item's value of `name` over its total among its siblings.
  virtual Value Share(std::string_view /*name*/) const { return {}; }
  /// How many items `name` has in this scope.
  virtual Value Count(std::string_view /*name*/) const { return {}; }
};

namespace detail {
struct Node;
}  // namespace detail

/// A parsed, type-checked expression: immutable and cheap to copy. A
/// default-constructed Expr evaluates to unknown.
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const detail::Node> root, std::string text);

  Type type() const;
  /// The dimension of a number expression ({0, 0} otherwise).
  Dim dim() const;
  /// The source text it was parsed from.
  const std::string& text() const { return text_; }
  const detail::Node* root() const { return root_.get(); }

 private:
  std::shared_ptr<const detail::Node> root_;
  std::string text_;
};

/// Limits that keep parsing bounded; beyond them a parse is an error.
inline constexpr size_t kMaxExprLength = 4096;   ///< bytes of one expression
inline constexpr int kMaxExprDepth = 64;         ///< nested parentheses, calls, not, minus
inline constexpr size_t kMaxTemplateLength = 16384;  ///< bytes of one message template

/// Parses and type checks an expression of any type. Errors are input
/// errors "FILE:LINE:COL: message" at the offending character.
Result<Expr> ParseExpr(std::string_view text, const Schema& schema, const SourcePos& pos);

/// Like ParseExpr, and the expression must be a boolean (a `when:`).
Result<Expr> ParseCondition(std::string_view text, const Schema& schema, const SourcePos& pos);

/// Evaluates against `scope`. Never throws; unknown propagates (Kleene's
/// three-valued logic for and/or/not, unknown for everything else).
Value Evaluate(const Expr& expr, const Scope& scope);

/// Every schema name the expression mentions, including the arguments of
/// share() and count() (for the evidence of a finding).
std::set<std::string> NamesUsed(const Expr& expr);

/// What the expression reads, as the evidence of a finding shows it: each
/// name (also inside known()), and each `share(NAME)` and `count(NAME)` call
/// as that text rather than its argument alone.
std::set<std::string> TermsUsed(const Expr& expr);

/// The value of one of TermsUsed()'s terms in `scope`.
Value EvaluateTerm(std::string_view term, const Scope& scope);

/// A message template: literal text with `{expression}` placeholders;
/// `{{` and `}}` stand for literal braces.
struct Template {
  struct Part {
    std::string literal;        ///< text before the placeholder (maybe empty)
    std::optional<Expr> expr;   ///< the placeholder; none for the tail
  };
  std::vector<Part> parts;
  std::string text;             ///< the source text
};

/// Parses a template and every placeholder in it (any type).
Result<Template> ParseTemplate(std::string_view text, const Schema& schema,
                               const SourcePos& pos);

/// The template with each placeholder evaluated and formatted (FormatValue);
/// unknown values render as "?". The result holds untrusted text (names of
/// kernels and workloads): escape it for the output format.
std::string Render(const Template& tmpl, const Scope& scope);

/// A value as text by its dimension: time "12.3 us", bytes "4.00 MiB",
/// rates in GB/s, numbers plainly, booleans "true"/"false", strings as they
/// are, unknown "?". Uses the number formatting of util/text/format.h.
std::string FormatValue(const Value& value);

}  // namespace gpugate::rules
