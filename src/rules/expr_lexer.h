// The tokens of the rule expression language (expr.h): numbers with their
// units already applied (canonical seconds and bytes), strings, dotted names,
// keywords and operators, each with its byte offset in the expression.
// Internal to src/rules/expr*.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "rules/expr.h"

namespace gpugate::rules::detail {

enum class Tok {
  kNumber, kString, kName,
  kAnd, kOr, kNot, kTrue, kFalse,
  kLParen, kRParen, kComma,
  kPlus, kMinus, kStar, kSlash,
  kEq, kNe, kLt, kLe, kGt, kGe,
  kEnd,
};

/// "'('", "'and'", "a number", "the end of the expression" (for messages).
std::string Describe(Tok kind);

struct Token {
  Tok kind = Tok::kEnd;
  size_t offset = 0;   ///< of its first byte in the expression
  size_t length = 0;   ///< bytes
  double number = 0;   ///< kNumber: in canonical units (seconds, bytes, fraction)
  Dim dim;             ///< kNumber: from its unit
  bool has_unit = false;
  std::string text;    ///< kName: the name; kString: the unescaped content
};

/// A problem at a byte offset of the expression.
struct Problem {
  size_t offset = 0;
  std::string message;
};

/// Splits `text` into tokens ending with kEnd, or says what is wrong where.
bool Lex(std::string_view text, std::vector<Token>* tokens, Problem* problem);

/// The position of byte `offset` of `text` when `text` starts at `base`:
/// lines are counted at '\n', columns in characters (UTF-8 code points).
SourcePos PositionAt(const SourcePos& base, std::string_view text, size_t offset);

/// "FILE:LINE:COL: message" as an input error.
Error ErrorAt(const SourcePos& pos, const std::string& message);

/// The units a number may carry, for messages: "ns us µs ms s B KB ...".
std::string UnitList();

}  // namespace gpugate::rules::detail
