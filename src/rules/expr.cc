// The rule expression language (expr.h): a recursive-descent parser that
// type checks while it builds the tree, the three-valued evaluator, message
// templates and value formatting. Grammar and rules: docs/rule-language.md.
#include "rules/expr.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "rules/expr_lexer.h"
#include "util/strings.h"
#include "util/text/format.h"

namespace gpugate::rules {

namespace detail {

enum class Op {
  kNumber, kString, kBool, kName, kShare, kCount, kKnown,
  kNeg, kNot, kAnd, kOr,
  kAdd, kSub, kMul, kDiv,
  kEq, kNe, kLt, kLe, kGt, kGe,
  kMin, kMax, kAbs, kRatio,
};

using NodePtr = std::shared_ptr<const Node>;

struct Node {
  Op op = Op::kNumber;
  Type type = Type::kNumber;
  Dim dim;
  double number = 0;        ///< kNumber
  bool boolean = false;     ///< kBool
  std::string text;         ///< kString value; kName, kShare, kCount: the name
  std::vector<NodePtr> args;
};

}  // namespace detail

using detail::Node;
using detail::NodePtr;
using detail::Op;
using detail::Problem;
using detail::Tok;
using detail::Token;

// ---------------------------------------------------------------------------
// Dim and Value

std::string Dim::ToString() const {
  if (time == 0 && bytes == 0) return "number";
  auto power = [](const char* name, int e) {
    return e == 1 ? std::string(name) : std::string(name) + "^" + std::to_string(e);
  };
  std::string num, den;
  if (bytes > 0) num = power("bytes", bytes);
  if (time > 0) num += (num.empty() ? "" : "*") + power("time", time);
  if (bytes < 0) den = power("bytes", -bytes);
  if (time < 0) den += (den.empty() ? "" : "*") + power("time", -time);
  if (num.empty()) num = "1";
  return den.empty() ? num : num + "/" + den;
}

Value Value::Number(double v, Dim d) {
  Value out;
  out.kind = Kind::kNumber;
  out.number = v;
  out.dim = d;
  return out;
}

Value Value::AtLeast(double v, Dim d) {
  Value out = Number(v, d);
  out.at_least = true;
  return out;
}

Value Value::Bool(bool b) {
  Value out;
  out.kind = Kind::kBool;
  out.boolean = b;
  return out;
}

Value Value::String(std::string s) {
  Value out;
  out.kind = Kind::kString;
  out.text = std::move(s);
  return out;
}

Expr::Expr(std::shared_ptr<const detail::Node> root, std::string text)
    : root_(std::move(root)), text_(std::move(text)) {}

Type Expr::type() const { return root_ ? root_->type : Type::kBool; }
Dim Expr::dim() const { return root_ ? root_->dim : Dim{}; }

namespace {

// ---------------------------------------------------------------------------
// Parsing and type checking

struct FunctionInfo {
  const char* name;
  Op op;
  int min_args;
  int max_args;  ///< -1: any number
};

constexpr FunctionInfo kFunctions[] = {
    {"abs", Op::kAbs, 1, 1},   {"count", Op::kCount, 1, 1}, {"known", Op::kKnown, 1, 1},
    {"max", Op::kMax, 2, -1},  {"min", Op::kMin, 2, -1},    {"ratio", Op::kRatio, 2, 2},
    {"share", Op::kShare, 1, 1},
};

const FunctionInfo* FindFunction(std::string_view name) {
  for (const FunctionInfo& f : kFunctions)
    if (name == f.name) return &f;
  return nullptr;
}

std::string FunctionList() {
  std::string out;
  for (const FunctionInfo& f : kFunctions) out += std::string(out.empty() ? "" : ", ") + f.name;
  return out;
}

// "a time", "a byte size", "true/false", ... for messages.
std::string KindOf(Type type, Dim dim) {
  if (type == Type::kBool) return "true/false";
  if (type == Type::kString) return "a string";
  if (dim == Dim::Number()) return "a number";
  if (dim == Dim::Time()) return "a time";
  if (dim == Dim::Bytes()) return "a byte size";
  if (dim == Dim::Rate()) return "a rate (bytes/time)";
  return "a value in " + dim.ToString();
}

std::string KindOf(const Node& n) { return KindOf(n.type, n.dim); }

// The unit a bare number next to a value of `dim` most likely lacks.
const char* UnitHint(Dim dim) {
  if (dim == Dim::Time()) return "us";
  if (dim == Dim::Bytes()) return "MiB";
  if (dim == Dim::Rate()) return "GB/s";
  return nullptr;
}

// A parsed operand with its span in the source.
struct Operand {
  NodePtr node;
  size_t begin = 0;
  size_t end = 0;
  bool bare_number = false;  ///< a number literal without a unit
};

class Parser {
 public:
  Parser(std::string_view text, const Schema& schema, std::vector<Token> tokens)
      : text_(text), schema_(schema), tokens_(std::move(tokens)) {}

  bool Run(NodePtr* root) {
    Operand e;
    if (!ParseOr(&e)) return false;
    const Token& t = Peek();
    if (t.kind != Tok::kEnd) {
      if (t.kind == Tok::kRParen) return Fail(t.offset, "')' without a matching '('");
      return Fail(t.offset, "expected an operator, found " + Found(t));
    }
    *root = e.node;
    return true;
  }

  const Problem& problem() const { return problem_; }

 private:
  const Token& Peek(size_t ahead = 0) const {
    const size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Take() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  size_t EndOf(const Token& t) const { return t.offset + t.length; }
  size_t PrevEnd() const { return pos_ == 0 ? 0 : EndOf(tokens_[pos_ - 1]); }

  bool Fail(size_t offset, std::string message) {
    problem_.offset = offset;
    problem_.message = std::move(message);
    return false;
  }

  std::string Found(const Token& t) const {
    if (t.kind == Tok::kName) return "the name '" + t.text + "'";
    if (t.kind == Tok::kNumber) return "the number " + Snippet(t.offset, EndOf(t));
    return detail::Describe(t.kind);
  }

  // The source of [begin, end) on one line, shortened for messages.
  std::string Snippet(size_t begin, size_t end) const {
    std::string out;
    bool space = false;
    for (size_t i = begin; i < end && i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        space = !out.empty();
        continue;
      }
      if (space) out += ' ';
      space = false;
      out += c;
    }
    if (out.size() > 40) {
      size_t cut = 37;
      while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
      out = out.substr(0, cut) + "...";
    }
    return out;
  }
  std::string Snippet(const Operand& o) const { return Snippet(o.begin, o.end); }

  bool Enter(size_t offset) {
    if (++depth_ > kMaxExprDepth)
      return Fail(offset, "the expression nests deeper than " + std::to_string(kMaxExprDepth) +
                              " levels (parentheses, calls, 'not' and '-')");
    return true;
  }
  void Leave() { --depth_; }

  static NodePtr Make(Op op, Type type, Dim dim, std::vector<NodePtr> args) {
    auto n = std::make_shared<Node>();
    n->op = op;
    n->type = type;
    n->dim = dim;
    n->args = std::move(args);
    return n;
  }

  // --- type checks -------------------------------------------------------

  bool NeedBool(const Operand& o, const std::string& what) {
    if (o.node->type == Type::kBool) return true;
    std::string message = what + " needs true/false, but " + Snippet(o) + " is " + KindOf(*o.node);
    if (o.node->type == Type::kNumber) message += " (compare it, e.g. " + Snippet(o) + " > 0)";
    return Fail(o.begin, message);
  }

  bool NeedNumber(const Operand& o, const std::string& what) {
    if (o.node->type == Type::kNumber) return true;
    return Fail(o.begin, what + " needs a number, but " + Snippet(o) + " is " + KindOf(*o.node));
  }

  // Two numbers of one dimension (for + - comparisons min max ratio).
  bool NeedSameDim(const Operand& a, const Operand& b, size_t op_offset, const std::string& what) {
    if (a.node->dim == b.node->dim) return true;
    for (int side = 0; side < 2; ++side) {
      const Operand& bare = side == 0 ? a : b;
      const Operand& other = side == 0 ? b : a;
      const char* unit = UnitHint(other.node->dim);
      if (bare.bare_number && unit) {
        return Fail(bare.begin, Snippet(other) + " is " + KindOf(*other.node) + "; write " +
                                    Snippet(bare) + unit + " (or another unit)");
      }
    }
    return Fail(op_offset, what + " needs values of one kind, but " + Snippet(a) + " is " +
                               KindOf(*a.node) + " and " + Snippet(b) + " is " + KindOf(*b.node));
  }

  // --- grammar (docs/rule-language.md) ------------------------------------

  // or_expr := and_expr { "or" and_expr }
  bool ParseOr(Operand* out) {
    if (!ParseAnd(out)) return false;
    while (Peek().kind == Tok::kOr) {
      Take();
      Operand rhs;
      if (!ParseAnd(&rhs)) return false;
      if (!NeedBool(*out, "'or'") || !NeedBool(rhs, "'or'")) return false;
      out->node = Make(Op::kOr, Type::kBool, {}, {out->node, rhs.node});
      out->end = rhs.end;
      out->bare_number = false;
    }
    return true;
  }

  // and_expr := not_expr { "and" not_expr }
  bool ParseAnd(Operand* out) {
    if (!ParseNot(out)) return false;
    while (Peek().kind == Tok::kAnd) {
      Take();
      Operand rhs;
      if (!ParseNot(&rhs)) return false;
      if (!NeedBool(*out, "'and'") || !NeedBool(rhs, "'and'")) return false;
      out->node = Make(Op::kAnd, Type::kBool, {}, {out->node, rhs.node});
      out->end = rhs.end;
      out->bare_number = false;
    }
    return true;
  }

  // not_expr := "not" not_expr | comparison
  bool ParseNot(Operand* out) {
    if (Peek().kind != Tok::kNot) return ParseComparison(out);
    const Token& t = Take();
    if (!Enter(t.offset)) return false;
    Operand arg;
    if (!ParseNot(&arg)) return false;
    Leave();
    if (!NeedBool(arg, "'not'")) return false;
    *out = Operand{Make(Op::kNot, Type::kBool, {}, {arg.node}), t.offset, arg.end, false};
    return true;
  }

  static bool IsComparison(Tok k) {
    return k == Tok::kEq || k == Tok::kNe || k == Tok::kLt || k == Tok::kLe || k == Tok::kGt ||
           k == Tok::kGe;
  }

  // comparison := sum [ ("==" | "!=" | "<" | "<=" | ">" | ">=") sum ]
  bool ParseComparison(Operand* out) {
    if (!ParseSum(out)) return false;
    if (!IsComparison(Peek().kind)) return true;
    const Token op = Take();
    Operand rhs;
    if (!ParseSum(&rhs)) return false;
    if (IsComparison(Peek().kind)) {
      return Fail(Peek().offset,
                  "comparisons do not chain: write '" + Snippet(out->begin, rhs.end) + " and " +
                      Snippet(rhs) + " " + Snippet(Peek().offset, EndOf(Peek())) + " ...'");
    }
    const bool equality = op.kind == Tok::kEq || op.kind == Tok::kNe;
    const std::string what = detail::Describe(op.kind);
    const Type lt = out->node->type, rt = rhs.node->type;
    if (lt == Type::kString || rt == Type::kString) {
      if (!equality)
        return Fail(op.offset, "strings can only be compared with == and !=, not with " + what);
      if (lt != rt)
        return Fail(op.offset, what + " compares " + Snippet(*out) + " (" + KindOf(*out->node) +
                                   ") with " + Snippet(rhs) + " (" + KindOf(*rhs.node) + ")");
    } else if (lt == Type::kBool || rt == Type::kBool) {
      if (!equality) {
        const Operand& b = lt == Type::kBool ? *out : rhs;
        return Fail(b.begin, what + " needs numbers, but " + Snippet(b) + " is true/false");
      }
      if (lt != rt)
        return Fail(op.offset, what + " compares " + Snippet(*out) + " (" + KindOf(*out->node) +
                                   ") with " + Snippet(rhs) + " (" + KindOf(*rhs.node) + ")");
    } else if (!NeedSameDim(*out, rhs, op.offset, what)) {
      return false;
    }
    Op kind = Op::kEq;
    switch (op.kind) {
      case Tok::kNe: kind = Op::kNe; break;
      case Tok::kLt: kind = Op::kLt; break;
      case Tok::kLe: kind = Op::kLe; break;
      case Tok::kGt: kind = Op::kGt; break;
      case Tok::kGe: kind = Op::kGe; break;
      default: break;
    }
    out->node = Make(kind, Type::kBool, {}, {out->node, rhs.node});
    out->end = rhs.end;
    out->bare_number = false;
    return true;
  }

  // sum := product { ("+" | "-") product }
  bool ParseSum(Operand* out) {
    if (!ParseProduct(out)) return false;
    while (Peek().kind == Tok::kPlus || Peek().kind == Tok::kMinus) {
      const Token op = Take();
      Operand rhs;
      if (!ParseProduct(&rhs)) return false;
      const std::string what = detail::Describe(op.kind);
      if (!NeedNumber(*out, what) || !NeedNumber(rhs, what)) return false;
      if (!NeedSameDim(*out, rhs, op.offset, what)) return false;
      out->node = Make(op.kind == Tok::kPlus ? Op::kAdd : Op::kSub, Type::kNumber, out->node->dim,
                       {out->node, rhs.node});
      out->end = rhs.end;
      out->bare_number = false;
    }
    return true;
  }

  // product := unary { ("*" | "/") unary }
  bool ParseProduct(Operand* out) {
    if (!ParseUnary(out)) return false;
    while (Peek().kind == Tok::kStar || Peek().kind == Tok::kSlash) {
      const Token op = Take();
      Operand rhs;
      if (!ParseUnary(&rhs)) return false;
      const std::string what = detail::Describe(op.kind);
      if (!NeedNumber(*out, what) || !NeedNumber(rhs, what)) return false;
      const Dim a = out->node->dim, b = rhs.node->dim;
      const bool mul = op.kind == Tok::kStar;
      const Dim d = mul ? Dim{a.time + b.time, a.bytes + b.bytes}
                        : Dim{a.time - b.time, a.bytes - b.bytes};
      out->node = Make(mul ? Op::kMul : Op::kDiv, Type::kNumber, d, {out->node, rhs.node});
      out->end = rhs.end;
      out->bare_number = false;
    }
    return true;
  }

  // unary := "-" unary | primary
  bool ParseUnary(Operand* out) {
    if (Peek().kind != Tok::kMinus) return ParsePrimary(out);
    const Token& t = Take();
    if (!Enter(t.offset)) return false;
    Operand arg;
    if (!ParseUnary(&arg)) return false;
    Leave();
    if (!NeedNumber(arg, "'-'")) return false;
    *out = Operand{Make(Op::kNeg, Type::kNumber, arg.node->dim, {arg.node}), t.offset, arg.end,
                   arg.bare_number};
    return true;
  }

  // primary := number | string | "true" | "false" | name | call | "(" or_expr ")"
  bool ParsePrimary(Operand* out) {
    const Token& t = Peek();
    out->begin = t.offset;
    out->end = EndOf(t);
    out->bare_number = false;
    switch (t.kind) {
      case Tok::kNumber: {
        auto n = std::make_shared<Node>();
        n->op = Op::kNumber;
        n->number = t.number;
        n->dim = t.dim;
        out->node = n;
        out->bare_number = !t.has_unit;
        Take();
        return true;
      }
      case Tok::kString: {
        auto n = std::make_shared<Node>();
        n->op = Op::kString;
        n->type = Type::kString;
        n->text = t.text;
        out->node = n;
        Take();
        return true;
      }
      case Tok::kTrue:
      case Tok::kFalse: {
        auto n = std::make_shared<Node>();
        n->op = Op::kBool;
        n->type = Type::kBool;
        n->boolean = t.kind == Tok::kTrue;
        out->node = n;
        Take();
        return true;
      }
      case Tok::kName:
        if (Peek(1).kind == Tok::kLParen) return ParseCall(out);
        return ParseName(out);
      case Tok::kLParen: {
        const Token open = Take();
        if (!Enter(open.offset)) return false;
        Operand inner;
        if (!ParseOr(&inner)) return false;
        Leave();
        if (Peek().kind != Tok::kRParen) {
          if (Peek().kind == Tok::kEnd) return Fail(open.offset, "'(' is never closed");
          return Fail(Peek().offset, "expected ')' or an operator, found " + Found(Peek()));
        }
        out->node = inner.node;
        out->end = EndOf(Take());
        out->bare_number = inner.bare_number;
        return true;
      }
      default:
        return MissingOperand(t);
    }
  }

  bool MissingOperand(const Token& t) {
    if (pos_ == 0 && t.kind == Tok::kEnd) return Fail(0, "empty expression");
    if (t.kind == Tok::kEnd && pos_ > 0) {
      const Token& prev = tokens_[pos_ - 1];
      if (prev.kind == Tok::kLParen) return Fail(prev.offset, "'(' is never closed");
      return Fail(prev.offset, detail::Describe(prev.kind) + " at the end needs a value after it");
    }
    return Fail(t.offset, "expected a value, found " + Found(t));
  }

  // A schema name, with the list of names and "did you mean" when unknown.
  const NameInfo* LookupName(const Token& t) {
    auto it = schema_.find(t.text);
    if (it != schema_.end() && !it->second.unavailable.empty()) {
      Fail(t.offset, "'" + t.text + "' " + it->second.unavailable);
      return nullptr;
    }
    if (it != schema_.end()) return &it->second;
    std::vector<std::string> names;
    for (const auto& [name, info] : schema_) names.push_back(name);
    std::string message = "unknown name '" + t.text + "'" + DidYouMean(t.text, names);
    if (names.empty()) {
      message += "; no names are available here";
    } else {
      message += "; names: ";
      for (size_t i = 0; i < names.size(); ++i) message += (i ? ", " : "") + names[i];
    }
    Fail(t.offset, message);
    return nullptr;
  }

  bool ParseName(Operand* out) {
    const Token t = Take();
    const NameInfo* info = LookupName(t);
    if (!info) return false;
    auto n = std::make_shared<Node>();
    n->op = Op::kName;
    n->type = info->type;
    n->dim = info->type == Type::kNumber ? info->dim : Dim{};
    n->text = t.text;
    out->node = n;
    return true;
  }

  // call := name "(" [ or_expr { "," or_expr } ] ")"; share() and count()
  // take one schema name.
  bool ParseCall(Operand* out) {
    const Token fn = Take();
    const FunctionInfo* f = FindFunction(fn.text);
    if (!f) {
      if (schema_.count(fn.text))
        return Fail(fn.offset, "'" + fn.text + "' is a name, not a function");
      std::vector<std::string> names;
      for (const FunctionInfo& g : kFunctions) names.push_back(g.name);
      return Fail(fn.offset, "unknown function '" + fn.text + "'" + DidYouMean(fn.text, names) +
                                 "; functions: " + FunctionList());
    }
    const Token open = Take();
    if (!Enter(open.offset)) return false;
    if (f->op == Op::kShare || f->op == Op::kCount || f->op == Op::kKnown) {
      if (!ParseAggregate(*f, fn, out)) return false;
      Leave();
      return true;
    }
    std::vector<Operand> args;
    if (Peek().kind != Tok::kRParen) {
      while (true) {
        Operand arg;
        if (!ParseOr(&arg)) return false;
        args.push_back(std::move(arg));
        if (Peek().kind != Tok::kComma) break;
        Take();
      }
    }
    if (Peek().kind != Tok::kRParen) {
      if (Peek().kind == Tok::kEnd) return Fail(open.offset, "'(' of " + fn.text + "() is never closed");
      return Fail(Peek().offset, "expected ',' or ')' in " + fn.text + "(), found " + Found(Peek()));
    }
    const Token close = Take();
    Leave();
    const int n = static_cast<int>(args.size());
    if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
      std::string want = f->max_args < 0 ? "at least " + std::to_string(f->min_args)
                                         : std::to_string(f->min_args);
      return Fail(fn.offset, fn.text + "() takes " + want + " argument" +
                                 (f->min_args == 1 && f->max_args == 1 ? "" : "s") + ", got " +
                                 std::to_string(n));
    }
    std::vector<NodePtr> nodes;
    for (const Operand& a : args) {
      if (!NeedNumber(a, fn.text + "()")) return false;
      nodes.push_back(a.node);
    }
    for (size_t i = 1; i < args.size(); ++i)
      if (!NeedSameDim(args[0], args[i], args[i].begin, fn.text + "()")) return false;
    Dim d = args[0].node->dim;
    if (f->op == Op::kRatio) d = Dim::Number();
    *out = Operand{Make(f->op, Type::kNumber, d, std::move(nodes)), fn.offset, EndOf(close), false};
    return true;
  }

  // share(NAME), count(NAME) and known(NAME): one schema name each.
  bool ParseAggregate(const FunctionInfo& f, const Token& fn, Operand* out) {
    const bool share = f.op == Op::kShare;
    const bool known = f.op == Op::kKnown;
    const char* example = share ? "share(kernel.duration)" : known ? "known(kernel.spills)" : "count(kernel)";
    const Token& arg = Peek();
    if (arg.kind != Tok::kName || Peek(1).kind == Tok::kLParen) {
      return Fail(arg.offset, fn.text + "() takes one name, e.g. " + example + ", found " + Found(arg));
    }
    const Token name = Take();
    const NameInfo* info = LookupName(name);
    if (!info) return false;
    if (!known && (share ? !info->aggregatable : !info->countable)) {
      std::string accepted;
      for (const auto& [n, i] : schema_)
        if (share ? i.aggregatable : i.countable) accepted += (accepted.empty() ? "" : ", ") + n;
      return Fail(name.offset, "'" + name.text + "' cannot be " +
                                   (share ? "shared: share()" : "counted: count()") + " accepts " +
                                   (accepted.empty() ? std::string("no names here") : accepted));
    }
    if (Peek().kind != Tok::kRParen) {
      if (Peek().kind == Tok::kEnd) return Fail(fn.offset, "'(' of " + fn.text + "() is never closed");
      return Fail(name.offset, fn.text + "() takes one name, e.g. " + example + ", found an expression");
    }
    const Token close = Take();
    auto n = std::make_shared<Node>();
    n->op = f.op;
    n->type = known ? Type::kBool : Type::kNumber;
    n->text = name.text;
    *out = Operand{n, fn.offset, EndOf(close), false};
    return true;
  }

  std::string_view text_;
  const Schema& schema_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  Problem problem_;
};

// ---------------------------------------------------------------------------
// Evaluation

Value Num(double v, Dim d) {
  if (!std::isfinite(v)) return {};
  return Value::Number(v, d);
}

// A scope's value of the type the schema promised, else unknown.
Value Checked(Value v, const Node& n) {
  switch (n.type) {
    case Type::kNumber: {
      if (v.kind != Value::Kind::kNumber) return {};
      Value out = Num(v.number, n.dim);
      out.at_least = out.known() && v.at_least;
      return out;
    }
    case Type::kBool:
      return v.kind == Value::Kind::kBool ? Value::Bool(v.boolean) : Value{};
    case Type::kString:
      return v.kind == Value::Kind::kString ? v : Value{};
  }
  return {};
}

Value Eval(const Node& n, const Scope& scope);

// The values a number may have: [x, x], or [x, +inf) for a lower bound
// (Value::at_least).
struct Range {
  double lo = 0, hi = 0;
};

Range RangeOf(const Value& v) {
  return {v.number, v.at_least ? std::numeric_limits<double>::infinity() : v.number};
}

// A range back to a value: exact, a lower bound, or unknown (an upper bound
// or an interval, which the language cannot state).
Value FromRange(Range r, Dim d) {
  if (!std::isfinite(r.lo)) return {};
  if (r.lo == r.hi) return Num(r.lo, d);
  if (std::isinf(r.hi) && r.hi > 0) return Value::AtLeast(r.lo, d);
  return {};
}

// A comparison of numbers of which one at least is a lower bound: true or
// false only when every value in the ranges agrees.
Value CompareRanges(Op op, Range x, Range y) {
  auto settled = [](bool is_true, bool is_false) {
    return is_true ? Value::Bool(true) : is_false ? Value::Bool(false) : Value{};
  };
  switch (op) {
    case Op::kLt: return settled(x.hi < y.lo, x.lo >= y.hi);
    case Op::kLe: return settled(x.hi <= y.lo, x.lo > y.hi);
    case Op::kGt: return settled(x.lo > y.hi, x.hi <= y.lo);
    case Op::kGe: return settled(x.lo >= y.hi, x.hi < y.lo);
    case Op::kEq: return settled(false, x.hi < y.lo || y.hi < x.lo);
    case Op::kNe: return settled(x.hi < y.lo || y.hi < x.lo, false);
    default: return {};
  }
}

Value EvalCompare(const Node& n, const Scope& scope) {
  const Value a = Eval(*n.args[0], scope);
  const Value b = Eval(*n.args[1], scope);
  if (!a.known() || !b.known() || a.kind != b.kind) return {};
  if (a.kind == Value::Kind::kString || a.kind == Value::Kind::kBool) {
    const bool eq = a.kind == Value::Kind::kString ? a.text == b.text : a.boolean == b.boolean;
    return Value::Bool(n.op == Op::kEq ? eq : !eq);
  }
  if (a.at_least || b.at_least) return CompareRanges(n.op, RangeOf(a), RangeOf(b));
  const double x = a.number, y = b.number;
  switch (n.op) {
    case Op::kEq: return Value::Bool(x == y);
    case Op::kNe: return Value::Bool(x != y);
    case Op::kLt: return Value::Bool(x < y);
    case Op::kLe: return Value::Bool(x <= y);
    case Op::kGt: return Value::Bool(x > y);
    case Op::kGe: return Value::Bool(x >= y);
    default: return {};
  }
}

// Arithmetic on ranges, for operands of which one at least is a lower
// bound: what the result is known to be at least, or unknown.
Value RangeArithmetic(const Node& n, const std::vector<Range>& r) {
  const double inf = std::numeric_limits<double>::infinity();
  bool nonnegative = true;
  for (const Range& x : r) nonnegative = nonnegative && x.lo >= 0;
  // Products of non-negative bounds; 0 times an unbounded end is 0.
  auto times = [](double a, double b) { return a == 0 || b == 0 ? 0.0 : a * b; };
  switch (n.op) {
    case Op::kNeg: return FromRange({-r[0].hi, -r[0].lo}, n.dim);
    case Op::kAbs: return nonnegative ? FromRange(r[0], n.dim) : Value{};
    case Op::kAdd: return FromRange({r[0].lo + r[1].lo, r[0].hi + r[1].hi}, n.dim);
    case Op::kSub: return FromRange({r[0].lo - r[1].hi, r[0].hi - r[1].lo}, n.dim);
    case Op::kMul:
      if (!nonnegative) return {};
      return FromRange({times(r[0].lo, r[1].lo), times(r[0].hi, r[1].hi)}, n.dim);
    case Op::kDiv:
    case Op::kRatio:
      // Only by an exact positive divisor: a bound below the divisor is one
      // above the quotient.
      if (!(r[1].lo == r[1].hi && r[1].lo > 0)) return {};
      return FromRange({r[0].lo / r[1].lo, r[0].hi == inf ? inf : r[0].hi / r[1].lo}, n.dim);
    case Op::kMin:
    case Op::kMax: {
      Range out = r[0];
      for (const Range& x : r) {
        out.lo = n.op == Op::kMin ? std::min(out.lo, x.lo) : std::max(out.lo, x.lo);
        out.hi = n.op == Op::kMin ? std::min(out.hi, x.hi) : std::max(out.hi, x.hi);
      }
      return FromRange(out, n.dim);
    }
    default: return {};
  }
}

Value EvalArithmetic(const Node& n, const Scope& scope) {
  std::vector<double> xs;
  std::vector<Range> ranges;
  bool bounded = false;
  for (const NodePtr& arg : n.args) {
    const Value v = Eval(*arg, scope);
    if (v.kind != Value::Kind::kNumber) return {};
    xs.push_back(v.number);
    ranges.push_back(RangeOf(v));
    bounded = bounded || v.at_least;
  }
  if (bounded) return RangeArithmetic(n, ranges);
  switch (n.op) {
    case Op::kNeg: return Num(-xs[0], n.dim);
    case Op::kAbs: return Num(std::fabs(xs[0]), n.dim);
    case Op::kAdd: return Num(xs[0] + xs[1], n.dim);
    case Op::kSub: return Num(xs[0] - xs[1], n.dim);
    case Op::kMul: return Num(xs[0] * xs[1], n.dim);
    case Op::kDiv:
    case Op::kRatio:
      if (xs[1] == 0) return {};
      return Num(xs[0] / xs[1], n.dim);
    case Op::kMin:
    case Op::kMax: {
      double r = xs[0];
      for (double x : xs) r = n.op == Op::kMin ? std::min(r, x) : std::max(r, x);
      return Num(r, n.dim);
    }
    default: return {};
  }
}

Value Eval(const Node& n, const Scope& scope) {
  switch (n.op) {
    case Op::kNumber: return Num(n.number, n.dim);
    case Op::kString: return Value::String(n.text);
    case Op::kBool: return Value::Bool(n.boolean);
    case Op::kName: return Checked(scope.Lookup(n.text), n);
    case Op::kShare: return Checked(scope.Share(n.text), n);
    case Op::kCount: return Checked(scope.Count(n.text), n);
    // Never unknown: whether the scope has a value for the name.
    case Op::kKnown: return Value::Bool(scope.Lookup(n.text).kind != Value::Kind::kUnknown);
    case Op::kNot: {
      const Value v = Eval(*n.args[0], scope);
      return v.kind == Value::Kind::kBool ? Value::Bool(!v.boolean) : Value{};
    }
    case Op::kAnd:
    case Op::kOr: {
      // Kleene: false and x = false, true or x = true, otherwise unknown
      // unless both sides are known.
      const bool is_and = n.op == Op::kAnd;
      const Value a = Eval(*n.args[0], scope);
      if (a.kind == Value::Kind::kBool && a.boolean != is_and) return a;
      const Value b = Eval(*n.args[1], scope);
      if (b.kind == Value::Kind::kBool && b.boolean != is_and) return b;
      if (a.kind == Value::Kind::kBool && b.kind == Value::Kind::kBool) return Value::Bool(is_and);
      return {};
    }
    case Op::kEq: case Op::kNe: case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe:
      return EvalCompare(n, scope);
    default:
      return EvalArithmetic(n, scope);
  }
}

void CollectNames(const Node& n, std::set<std::string>* out) {
  if (n.op == Op::kName || n.op == Op::kShare || n.op == Op::kCount || n.op == Op::kKnown) out->insert(n.text);
  for (const NodePtr& a : n.args) CollectNames(*a, out);
}

void CollectTerms(const Node& n, std::set<std::string>* out) {
  if (n.op == Op::kName || n.op == Op::kKnown) out->insert(n.text);
  if (n.op == Op::kShare) out->insert("share(" + n.text + ")");
  if (n.op == Op::kCount) out->insert("count(" + n.text + ")");
  for (const NodePtr& a : n.args) CollectTerms(*a, out);
}

}  // namespace

// ---------------------------------------------------------------------------
// Public entry points

Result<Expr> ParseExpr(std::string_view text, const Schema& schema, const SourcePos& pos) {
  if (text.size() > kMaxExprLength)
    return detail::ErrorAt(pos, "the expression is " + std::to_string(text.size()) +
                                    " bytes long; the limit is " +
                                    std::to_string(kMaxExprLength));
  std::vector<Token> tokens;
  Problem problem;
  if (!detail::Lex(text, &tokens, &problem))
    return detail::ErrorAt(detail::PositionAt(pos, text, problem.offset), problem.message);
  Parser parser(text, schema, std::move(tokens));
  NodePtr root;
  if (!parser.Run(&root))
    return detail::ErrorAt(detail::PositionAt(pos, text, parser.problem().offset),
                           parser.problem().message);
  return Expr(std::move(root), std::string(text));
}

Result<Expr> ParseCondition(std::string_view text, const Schema& schema, const SourcePos& pos) {
  Result<Expr> expr = ParseExpr(text, schema, pos);
  if (!expr.ok() || expr->type() == Type::kBool) return expr;
  // Point at the first non-blank character.
  size_t first = 0;
  while (first < text.size() && (text[first] == ' ' || text[first] == '\t' ||
                                 text[first] == '\n' || text[first] == '\r'))
    ++first;
  return detail::ErrorAt(detail::PositionAt(pos, text, first),
                         "a condition must be true or false, but this expression is " +
                             KindOf(expr->type(), expr->dim()) +
                             (expr->type() == Type::kNumber ? " (compare it with a value)" : ""));
}

Value Evaluate(const Expr& expr, const Scope& scope) {
  if (!expr.root()) return {};
  return Eval(*expr.root(), scope);
}

std::set<std::string> NamesUsed(const Expr& expr) {
  std::set<std::string> out;
  if (expr.root()) CollectNames(*expr.root(), &out);
  return out;
}

std::set<std::string> TermsUsed(const Expr& expr) {
  std::set<std::string> out;
  if (expr.root()) CollectTerms(*expr.root(), &out);
  return out;
}

Value EvaluateTerm(std::string_view term, const Scope& scope) {
  for (const auto& [call, share] : {std::pair{std::string_view("share("), true}, std::pair{std::string_view("count("), false}})
    if (term.substr(0, call.size()) == call && term.size() > call.size() && term.back() == ')') {
      const std::string_view name = term.substr(call.size(), term.size() - call.size() - 1);
      return share ? scope.Share(name) : scope.Count(name);
    }
  return scope.Lookup(term);
}

Result<Template> ParseTemplate(std::string_view text, const Schema& schema,
                               const SourcePos& pos) {
  if (text.size() > kMaxTemplateLength)
    return detail::ErrorAt(pos, "the message is " + std::to_string(text.size()) +
                                    " bytes long; the limit is " +
                                    std::to_string(kMaxTemplateLength));
  Template out;
  out.text = std::string(text);
  std::string literal;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if ((c == '{' || c == '}') && next == c) {
      literal += c;
      i += 2;
      continue;
    }
    if (c == '}')
      return detail::ErrorAt(detail::PositionAt(pos, text, i),
                             "a single '}' in a message: write '}}' for a literal brace");
    if (c != '{') {
      literal += c;
      ++i;
      continue;
    }
    // A placeholder: up to the first '}' outside a string literal.
    size_t j = i + 1;
    bool in_string = false;
    for (; j < text.size(); ++j) {
      if (in_string) {
        if (text[j] == '\\') ++j;
        else if (text[j] == '"') in_string = false;
      } else if (text[j] == '"') {
        in_string = true;
      } else if (text[j] == '}') {
        break;
      }
    }
    if (j >= text.size())
      return detail::ErrorAt(detail::PositionAt(pos, text, i),
                             "'{' is never closed: write '{{' for a literal brace");
    const std::string_view inner = text.substr(i + 1, j - i - 1);
    if (Trim(inner).empty())
      return detail::ErrorAt(detail::PositionAt(pos, text, i),
                             "empty placeholder '{}': put a name or expression inside, or write "
                             "'{{}}' for literal braces");
    Result<Expr> expr = ParseExpr(inner, schema, detail::PositionAt(pos, text, i + 1));
    if (!expr.ok()) return expr.error();
    out.parts.push_back(Template::Part{std::move(literal), std::move(expr).value()});
    literal.clear();
    i = j + 1;
  }
  out.parts.push_back(Template::Part{std::move(literal), std::nullopt});
  return out;
}

std::string Render(const Template& tmpl, const Scope& scope) {
  std::string out;
  for (const Template::Part& part : tmpl.parts) {
    out += part.literal;
    if (part.expr) out += FormatValue(Evaluate(*part.expr, scope));
  }
  return out;
}

std::string FormatValue(const Value& value) {
  switch (value.kind) {
    case Value::Kind::kUnknown: return "?";
    case Value::Kind::kBool: return value.boolean ? "true" : "false";
    case Value::Kind::kString: return value.text;
    case Value::Kind::kNumber: break;
  }
  if (value.at_least) {
    // Printed so that it never exceeds the bound: bytes rounded down, other
    // dimensions (rounded to the nearest in three or four significant
    // digits) lowered by half a unit of the third digit first.
    if (!std::isfinite(value.number)) return "?";
    if (value.dim == Dim::Bytes() && std::fabs(value.number) < 9.0e18)
      return FormatBytesAtLeast(static_cast<int64_t>(std::floor(value.number)));
    Value exact = value;
    exact.at_least = false;
    const bool integral = value.dim == Dim::Number() && value.number == std::floor(value.number);
    if (!integral) exact.number -= std::fabs(exact.number) * 0.005;
    return "≥ " + FormatValue(exact);
  }
  const double v = value.number;
  if (!std::isfinite(v)) return "?";
  const Dim d = value.dim;
  if (d == Dim::Time()) return FormatDuration(v);
  if (d == Dim::Bytes()) {
    // FormatBytes takes an int64; beyond its range print the number of bytes.
    if (std::fabs(v) < 9.0e18) return FormatBytes(static_cast<int64_t>(std::llround(v)));
    return FormatValueInUnit(v, "") + " B";
  }
  if (d == Dim::Rate()) return FormatValueInUnit(v / 1e9, "GB/s");
  if (d == Dim::Number()) return FormatValueInUnit(v, "");
  // Other dimensions in canonical units: seconds and bytes.
  std::string unit = d.ToString();
  for (auto [from, to] : {std::pair<std::string_view, std::string_view>{"bytes", "B"},
                          {"time", "s"}}) {
    for (size_t at = unit.find(from); at != std::string::npos; at = unit.find(from, at))
      unit.replace(at, from.size(), to);
  }
  return FormatValueInUnit(v, unit);
}

}  // namespace gpugate::rules
