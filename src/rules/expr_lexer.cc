// The lexer of the rule expression language (expr_lexer.h).
#include "rules/expr_lexer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "util/text/escape.h"

namespace gpugate::rules::detail {
namespace {

struct Unit {
  const char* name;
  double factor;  ///< to canonical seconds / bytes / bytes per second
  bool divide;    ///< divide by factor (exact for 1000ns == 1us), else multiply
  Dim dim;
};

// Decimal (KB = 1000 B) and binary (KiB = 1024 B) byte units; rates per second.
// "µs" is accepted with MICRO SIGN (U+00B5) and GREEK SMALL LETTER MU (U+03BC).
constexpr Unit kUnits[] = {
    {"ns", 1e9, true, Dim::Time()},        {"us", 1e6, true, Dim::Time()},
    {"\xC2\xB5s", 1e6, true, Dim::Time()},  {"\xCE\xBCs", 1e6, true, Dim::Time()},
    {"ms", 1e3, true, Dim::Time()},        {"s", 1.0, false, Dim::Time()},
    {"B", 1.0, false, Dim::Bytes()},       {"KB", 1e3, false, Dim::Bytes()},
    {"MB", 1e6, false, Dim::Bytes()},      {"GB", 1e9, false, Dim::Bytes()},
    {"TB", 1e12, false, Dim::Bytes()},     {"KiB", 1024.0, false, Dim::Bytes()},
    {"MiB", 1048576.0, false, Dim::Bytes()}, {"GiB", 1073741824.0, false, Dim::Bytes()},
    {"TiB", 1099511627776.0, false, Dim::Bytes()},
    {"B/s", 1.0, false, Dim::Rate()},      {"KB/s", 1e3, false, Dim::Rate()},
    {"MB/s", 1e6, false, Dim::Rate()},     {"GB/s", 1e9, false, Dim::Rate()},
    {"TB/s", 1e12, false, Dim::Rate()},    {"KiB/s", 1024.0, false, Dim::Rate()},
    {"MiB/s", 1048576.0, false, Dim::Rate()}, {"GiB/s", 1073741824.0, false, Dim::Rate()},
    {"TiB/s", 1099511627776.0, false, Dim::Rate()},
};

const Unit* FindUnit(std::string_view name) {
  for (const Unit& u : kUnits)
    if (name == u.name) return &u;
  return nullptr;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A UTF-8 micro or mu sign at text[i] (the start of "µs").
size_t MicroSignAt(std::string_view text, size_t i) {
  if (i + 1 < text.size() && ((text[i] == '\xC2' && text[i + 1] == '\xB5') ||
                              (text[i] == '\xCE' && text[i + 1] == '\xBC')))
    return 2;
  return 0;
}

// The character at text[i] for a message: 'x' for printable ASCII, else its
// bytes as \xNN (the message goes to a terminal).
std::string ShowChar(std::string_view text, size_t i) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  if (c >= 0x21 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  return DescribeCharacterAt(text, i);
}

class Lexer {
 public:
  Lexer(std::string_view text, std::vector<Token>* tokens, Problem* problem)
      : text_(text), tokens_(tokens), problem_(problem) {}

  bool Run() {
    while (true) {
      while (i_ < text_.size() && IsSpace(text_[i_])) ++i_;
      if (i_ >= text_.size()) break;
      if (!Next()) return false;
    }
    Token end;
    end.kind = Tok::kEnd;
    end.offset = text_.size();
    tokens_->push_back(end);
    return true;
  }

 private:
  bool Fail(size_t offset, std::string message) {
    problem_->offset = offset;
    problem_->message = std::move(message);
    return false;
  }

  void Push(Tok kind, size_t length) {
    Token t;
    t.kind = kind;
    t.offset = i_;
    t.length = length;
    tokens_->push_back(std::move(t));
    i_ += length;
  }

  bool Next() {
    const char c = text_[i_];
    if (IsDigit(c)) return LexNumber();
    if (c == '.' && i_ + 1 < text_.size() && IsDigit(text_[i_ + 1]))
      return Fail(i_, "a number starts with a digit: write 0" +
                          std::string(text_.substr(i_, 2)) + "...");
    if (IsAlpha(c)) return LexName();
    if (c == '"') return LexString();
    const char n = i_ + 1 < text_.size() ? text_[i_ + 1] : '\0';
    switch (c) {
      case '(': Push(Tok::kLParen, 1); return true;
      case ')': Push(Tok::kRParen, 1); return true;
      case ',': Push(Tok::kComma, 1); return true;
      case '+': Push(Tok::kPlus, 1); return true;
      case '-': Push(Tok::kMinus, 1); return true;
      case '*': Push(Tok::kStar, 1); return true;
      case '/': Push(Tok::kSlash, 1); return true;
      case '<': if (n == '=') Push(Tok::kLe, 2); else Push(Tok::kLt, 1); return true;
      case '>': if (n == '=') Push(Tok::kGe, 2); else Push(Tok::kGt, 1); return true;
      case '=':
        if (n == '=') { Push(Tok::kEq, 2); return true; }
        return Fail(i_, "'=' is not an operator: compare with '=='");
      case '!':
        if (n == '=') { Push(Tok::kNe, 2); return true; }
        return Fail(i_, "'!' is not an operator: write 'not' (or '!=')");
      case '&':
        return Fail(i_, "'&' is not an operator: write 'and'");
      case '|':
        return Fail(i_, "'|' is not an operator: write 'or'");
      case '%':
        return Fail(i_, "'%' follows a number (30% is 0.3)");
      case '{':
      case '}':
        return Fail(i_, "unexpected " + ShowChar(text_, i_) +
                            " (braces only delimit placeholders in a message)");
      default:
        return Fail(i_, "unexpected character " + ShowChar(text_, i_));
    }
  }

  bool LexName() {
    const size_t start = i_;
    size_t j = i_;
    while (true) {
      while (j < text_.size() && IsAlnum(text_[j])) ++j;
      if (j + 1 < text_.size() && text_[j] == '.' && IsAlpha(text_[j + 1])) {
        ++j;
        continue;
      }
      break;
    }
    if (j < text_.size() && text_[j] == '.')
      return Fail(j, "a name part starts with a letter or '_' after '.'");
    std::string_view word = text_.substr(start, j - start);
    Tok kind = Tok::kName;
    if (word == "and") kind = Tok::kAnd;
    else if (word == "or") kind = Tok::kOr;
    else if (word == "not") kind = Tok::kNot;
    else if (word == "true") kind = Tok::kTrue;
    else if (word == "false") kind = Tok::kFalse;
    Push(kind, j - start);
    if (kind == Tok::kName) tokens_->back().text = std::string(word);
    return true;
  }

  bool LexString() {
    const size_t start = i_;
    std::string value;
    size_t j = i_ + 1;
    while (true) {
      if (j >= text_.size()) return Fail(start, "unterminated string: a '\"' is missing");
      const char c = text_[j];
      if (c == '"') break;
      if (c == '\n') return Fail(start, "unterminated string: a '\"' is missing on this line");
      if (c == '\\') {
        if (j + 1 < text_.size() && (text_[j + 1] == '"' || text_[j + 1] == '\\')) {
          value += text_[j + 1];
          j += 2;
          continue;
        }
        return Fail(j, "a '\\' in a string escapes only '\"' or '\\'");
      }
      value += c;
      ++j;
    }
    Push(Tok::kString, j + 1 - start);
    tokens_->back().text = std::move(value);
    return true;
  }

  // digits [. digits] [e [+-] digits] then an optional unit, directly or
  // after blanks: 5us, 1.5 GB/s, 30%, 1e-3.
  bool LexNumber() {
    const size_t start = i_;
    size_t j = i_;
    while (j < text_.size() && IsDigit(text_[j])) ++j;
    if (j < text_.size() && text_[j] == '.') {
      if (j + 1 >= text_.size() || !IsDigit(text_[j + 1]))
        return Fail(j, "malformed number: a digit must follow '.'");
      ++j;
      while (j < text_.size() && IsDigit(text_[j])) ++j;
    }
    if (j < text_.size() && (text_[j] == 'e' || text_[j] == 'E')) {
      size_t k = j + 1;
      if (k < text_.size() && (text_[k] == '+' || text_[k] == '-')) ++k;
      if (k < text_.size() && IsDigit(text_[k])) {
        while (k < text_.size() && IsDigit(text_[k])) ++k;
        j = k;
      } else if (k > j + 1 || k >= text_.size() || !IsAlpha(text_[k])) {
        return Fail(j, "malformed number: digits must follow the exponent 'e'");
      }
      // "5e" followed by letters is left for the unit check below ("5em").
    }
    const std::string_view digits = text_.substr(start, j - start);
    double value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && !std::isfinite(value)))
      return Fail(start, "number " + std::string(digits) + " is out of range");
    if (ec != std::errc() || end != digits.data() + digits.size())
      return Fail(start, "malformed number " + std::string(digits));

    Token t;
    t.kind = Tok::kNumber;
    t.offset = start;
    t.number = value;
    if (!LexUnit(&j, &t)) return false;
    if (!std::isfinite(t.number))
      return Fail(start, "number " + std::string(text_.substr(start, j - start)) +
                             " is out of range");
    t.length = j - start;
    tokens_->push_back(std::move(t));
    i_ = j;
    return true;
  }

  // A unit after the number at *j (blanks allowed before it). A word that
  // is a keyword ("5 and") is not a unit; any other word is, and must be known.
  bool LexUnit(size_t* j, Token* t) {
    size_t k = *j;
    while (k < text_.size() && (text_[k] == ' ' || text_[k] == '\t')) ++k;
    if (k < text_.size() && text_[k] == '%') {
      t->number /= 100;  // 30% == 0.3 exactly
      t->has_unit = true;
      *j = k + 1;
      return true;
    }
    size_t w = k;
    while (w < text_.size()) {
      if (IsAlpha(text_[w])) { ++w; continue; }
      if (size_t m = MicroSignAt(text_, w)) { w += m; continue; }
      break;
    }
    if (w == k) return true;
    std::string word(text_.substr(k, w - k));
    if (word == "and" || word == "or" || word == "not") return true;
    // A rate: "GB/s" (not "GB/s.x" nor "GB/sm").
    if (w + 1 < text_.size() && text_[w] == '/' && text_[w + 1] == 's' &&
        (w + 2 >= text_.size() || !(IsAlnum(text_[w + 2]) || text_[w + 2] == '.'))) {
      if (FindUnit(word + "/s")) {
        word += "/s";
        w += 2;
      }
    }
    const Unit* unit = FindUnit(word);
    // "5 kernel.duration" or "5 min(...)": a name after a number, for the
    // parser to report the missing operator.
    if (!unit && k > *j && w < text_.size() && (text_[w] == '.' || text_[w] == '('))
      return true;
    if (!unit) {
      return Fail(k, "unknown unit '" + word + "' (units: " + UnitList() + ")");
    }
    t->number = unit->divide ? t->number / unit->factor : t->number * unit->factor;
    t->dim = unit->dim;
    t->has_unit = true;
    *j = w;
    return true;
  }

  std::string_view text_;
  std::vector<Token>* tokens_;
  Problem* problem_;
  size_t i_ = 0;
};

}  // namespace

std::string Describe(Tok kind) {
  switch (kind) {
    case Tok::kNumber: return "a number";
    case Tok::kString: return "a string";
    case Tok::kName: return "a name";
    case Tok::kAnd: return "'and'";
    case Tok::kOr: return "'or'";
    case Tok::kNot: return "'not'";
    case Tok::kTrue: return "'true'";
    case Tok::kFalse: return "'false'";
    case Tok::kLParen: return "'('";
    case Tok::kRParen: return "')'";
    case Tok::kComma: return "','";
    case Tok::kPlus: return "'+'";
    case Tok::kMinus: return "'-'";
    case Tok::kStar: return "'*'";
    case Tok::kSlash: return "'/'";
    case Tok::kEq: return "'=='";
    case Tok::kNe: return "'!='";
    case Tok::kLt: return "'<'";
    case Tok::kLe: return "'<='";
    case Tok::kGt: return "'>'";
    case Tok::kGe: return "'>='";
    case Tok::kEnd: return "the end of the expression";
  }
  return "?";
}

bool Lex(std::string_view text, std::vector<Token>* tokens, Problem* problem) {
  return Lexer(text, tokens, problem).Run();
}

SourcePos PositionAt(const SourcePos& base, std::string_view text, size_t offset) {
  SourcePos pos = base;
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++pos.line;
      pos.col = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++pos.col;
    }
  }
  return pos;
}

Error ErrorAt(const SourcePos& pos, const std::string& message) {
  return InputError(pos.file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.col) +
                    ": " + message);
}

std::string UnitList() {
  return "ns us \xC2\xB5s ms s, B KB MB GB TB KiB MiB GiB TiB, B/s KB/s MB/s GB/s TB/s "
         "KiB/s MiB/s GiB/s TiB/s, %";
}

}  // namespace gpugate::rules::detail
