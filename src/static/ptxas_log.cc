// ptxas / nvlink resource-usage log parser. A log is a sequence of records:
//   ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_80'
//   ptxas info    : Function properties for _Z6kernelPf
//       8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
//   ptxas info    : Used 32 registers, used 1 barriers, 16 bytes smem, 360 bytes cmem[0]
// a device function has "Function properties" without "Compiling entry";
// nvlink (-rdc device link, -Xnvlink -v) prints
//   nvlink info    : Function properties for '_Z5applyPfi':
//   nvlink info    : used 24 registers, used 0 barriers, 0 stack, 0 bytes smem,
//                    364 bytes cmem[0], 0 bytes lmem     (one line)
// Everything else (warnings, "Compile time = ...", module "bytes gmem" lines)
// is skipped. Formats seen: CUDA 9 to 13 (tests/data/ptxas_logs/README.md).
#include "static/ptxas_log.h"

#include <charconv>
#include <climits>
#include <map>
#include <optional>

#include "util/strings.h"

namespace gpugate {
namespace {

constexpr std::string_view kPtxasMarker = "ptxas info";
constexpr std::string_view kNvlinkMarker = "nvlink info";
constexpr std::string_view kStackFrame = "bytes stack frame";

// One line being parsed: a read position and errors that point at it.
class LineCursor {
 public:
  LineCursor(std::string_view line, int line_no, const std::string& file)
      : line_(line), line_no_(line_no), file_(file) {}

  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  bool AtEnd() const { return pos_ >= line_.size(); }
  std::string_view Rest() const { return line_.substr(std::min(pos_, line_.size())); }

  void SkipSpaces() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }
  bool Consume(std::string_view word) {
    if (Rest().substr(0, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  /// An unsigned decimal number that fits `max`.
  Result<int64_t> Number(int64_t max, std::string_view what) {
    const size_t start = pos_;
    const char* first = line_.data() + pos_;
    const char* last = line_.data() + line_.size();
    int64_t value = 0;
    if (AtEnd() || line_[pos_] < '0' || line_[pos_] > '9') {
      return ErrorAt(start, "expected a number of " + std::string(what));
    }
    auto [end, ec] = std::from_chars(first, last, value);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && value > max)) {
      return ErrorAt(start, "the number of " + std::string(what) + " is out of range (at most " +
                                std::to_string(max) + ")");
    }
    pos_ += static_cast<size_t>(end - first);
    return value;
  }

  Error ErrorAt(size_t pos, const std::string& message) const {
    return InputError(file_ + ":" + std::to_string(line_no_) + ":" + std::to_string(CharColumnAt(line_, pos)) +
                      ": " + message);
  }

 private:
  std::string_view line_;
  int line_no_;
  const std::string& file_;
  size_t pos_ = 0;
};

Result<int> NumberAsInt(LineCursor& cur, std::string_view what) {
  Result<int64_t> n = cur.Number(INT_MAX, what);
  if (!n.ok()) return n.error();
  return static_cast<int>(*n);
}

// A quoted name: 'name'. The cursor stands on the opening quote.
Result<std::string> QuotedName(LineCursor& cur) {
  const size_t open = cur.pos();
  if (!cur.Consume("'")) return cur.ErrorAt(open, "expected a quoted name");
  std::string_view rest = cur.Rest();
  const size_t close = rest.find('\'');
  if (close == std::string_view::npos) return cur.ErrorAt(open, "unterminated quote");
  if (close == 0) return cur.ErrorAt(open, "empty function name");
  cur.set_pos(cur.pos() + close + 1);
  return std::string(rest.substr(0, close));
}

// An arch the log names: its number and its variant letter ('a', 'f'; 0).
struct LogArch {
  int sm = 0;
  char variant = 0;
};

// "sm_80", also "sm_90a" / "sm_100f" (arch-specific variants).
std::optional<LogArch> ArchNumber(std::string_view name) {
  const std::string unused_file;  // callers report errors on their own line
  LineCursor arch(name, 0, unused_file);
  if (!arch.Consume("sm_")) return std::nullopt;
  Result<int64_t> sm = arch.Number(10000, "the arch");
  if (!sm.ok()) return std::nullopt;
  const std::string_view suffix = arch.Rest();
  if (suffix.size() > 1 || (suffix.size() == 1 && (suffix[0] < 'a' || suffix[0] > 'z'))) return std::nullopt;
  return LogArch{static_cast<int>(*sm), suffix.empty() ? '\0' : suffix[0]};
}

// 'sm_80', also 'sm_90a' / 'sm_100f'.
Result<LogArch> QuotedArch(LineCursor& cur) {
  const size_t start = cur.pos();
  Result<std::string> name = QuotedName(cur);
  if (!name.ok()) return name.error();
  const std::optional<LogArch> sm = ArchNumber(*name);
  if (!sm) return cur.ErrorAt(start, "expected an arch such as 'sm_80'");
  return *sm;
}

// nvlink (CUDA 13) ends its lines with " (target: sm_90)". Removes that
// suffix from `line` and returns the arch (nullopt: no suffix), or an error
// when the suffix names no arch.
Result<std::optional<LogArch>> NvlinkTarget(std::string_view* line, int line_no, const std::string& file) {
  constexpr std::string_view kTarget = "(target: ";
  const size_t open = line->rfind(kTarget);
  if (open == std::string_view::npos || line->back() != ')') return std::optional<LogArch>();
  const std::string_view name = line->substr(open + kTarget.size(), line->size() - 1 - open - kTarget.size());
  const std::optional<LogArch> sm = ArchNumber(name);
  if (!sm) return LineCursor(*line, line_no, file).ErrorAt(open, "expected '(target: sm_NN)'");
  line->remove_suffix(line->size() - open);
  while (!line->empty() && (line->back() == ' ' || line->back() == '\t')) line->remove_suffix(1);
  return sm;
}

// MSBuild's "1>" before each line of a project's build output.
std::string_view BuildToolPrefix(std::string_view line) {
  size_t digits = 0;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits == 0 || digits >= line.size() || line[digits] != '>') return {};
  return line.substr(0, digits + 1);
}

class Parser {
 public:
  explicit Parser(const std::string& file) : file_(file) {}

  Status Line(std::string_view line, int line_no);
  std::vector<PtxasKernel> Finish();

 private:
  Status Entry(LineCursor& cur, int line_no);
  Status Properties(LineCursor& cur, int line_no, bool nvlink);
  Status Usage(LineCursor& cur);
  Status StackFrame(LineCursor& cur);
  PtxasKernel* Current() { return current_ ? &kernels_[*current_] : nullptr; }

  const std::string& file_;
  std::vector<PtxasKernel> kernels_;
  std::optional<size_t> current_;  // the record resource lines describe
  bool current_has_properties_ = false;
  LogArch sm_;  // the last arch the log named
  int module_ = 0;  // "N bytes gmem" lines seen: the module being compiled
};

std::vector<PtxasKernel> Parser::Finish() {
  // A device function takes its module's arch: in a -rdc build ptxas prints
  // a module's functions before its kernels, so the last arch named before
  // them is the previous module's. A module whose kernels name one arch
  // gives it to its functions; a module of functions alone, after another
  // arch's module, names none.
  std::map<int, std::optional<LogArch>> module_arch;  // nullopt: several archs
  std::map<int, int> module_first_line;
  for (const PtxasKernel& k : kernels_) {
    if (!module_first_line.count(k.module)) module_first_line[k.module] = k.line;
    if (!k.entry || k.sm == 0) continue;
    const LogArch arch{k.sm, k.sm_variant};
    auto [it, added] = module_arch.emplace(k.module, arch);
    if (!added && it->second && (it->second->sm != arch.sm || it->second->variant != arch.variant))
      it->second.reset();
  }
  for (PtxasKernel& k : kernels_) {
    if (k.entry || k.module == 0) continue;
    auto it = module_arch.find(k.module);
    if (it != module_arch.end()) {
      if (it->second) {
        k.sm = it->second->sm;
        k.sm_variant = it->second->variant;
      }
    } else {
      k.sm = 0;  // no kernel of this module names its arch
      k.sm_variant = 0;
    }
  }
  return std::move(kernels_);
}

Status Parser::Line(std::string_view line, int line_no) {
  // CRLF line ends and trailing blanks.
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  size_t marker = line.find(kPtxasMarker);
  bool nvlink = false;
  if (marker == std::string_view::npos) {
    marker = line.find(kNvlinkMarker);
    nvlink = marker != std::string_view::npos;
  }
  if (nvlink) {
    Result<std::optional<LogArch>> target = NvlinkTarget(&line, line_no, file_);
    if (!target.ok()) return target.error();
    if (*target) sm_ = **target;  // the arch of this line's record
  }
  LineCursor cur(line, line_no, file_);
  if (marker == std::string_view::npos) {
    const size_t stack = line.find(kStackFrame);
    if (stack == std::string_view::npos) return Status::Ok();
    // "    8 bytes stack frame, ..." (MSBuild: "1>      8 bytes ..."): only
    // indentation, after a build tool's "N>" prefix, comes before it.
    cur.Consume(BuildToolPrefix(line));
    cur.SkipSpaces();
    const std::string_view rest = cur.Rest();
    if (rest.empty() || rest[0] < '0' || rest[0] > '9') return Status::Ok();  // prose
    return StackFrame(cur);
  }
  cur.set_pos(marker + (nvlink ? kNvlinkMarker.size() : kPtxasMarker.size()));
  cur.SkipSpaces();
  if (!cur.Consume(":")) return Status::Ok();
  cur.SkipSpaces();
  if (!nvlink) {
    // "0 bytes gmem" (older ptxas: "0 bytes gmem, 72 bytes cmem[2]"):
    // ptxas starts compiling a module.
    const std::string_view rest = cur.Rest();
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits > 0 && rest.substr(digits, 11) == " bytes gmem") {
      ++module_;
      return Status::Ok();
    }
  }
  if (cur.Consume("Compiling entry function ")) return Entry(cur, line_no);
  if (cur.Consume("Function properties for ")) return Properties(cur, line_no, nvlink);
  if (cur.Rest().substr(0, 5) == "Used " || cur.Rest().substr(0, 5) == "used ") return Usage(cur);
  return Status::Ok();
}

Status Parser::Entry(LineCursor& cur, int line_no) {
  Result<std::string> name = QuotedName(cur);
  if (!name.ok()) return name.error();
  const size_t at = cur.pos();
  if (!cur.Consume(" for ")) return cur.ErrorAt(at, "expected \"for 'sm_NN'\" after the name");
  Result<LogArch> sm = QuotedArch(cur);
  if (!sm.ok()) return sm.error();
  sm_ = *sm;
  PtxasKernel kernel;
  kernel.name = std::move(name).value();
  kernel.sm = sm_.sm;
  kernel.sm_variant = sm_.variant;
  kernel.entry = true;
  kernel.line = line_no;
  kernel.module = module_;
  kernels_.push_back(std::move(kernel));
  current_ = kernels_.size() - 1;
  current_has_properties_ = false;
  return Status::Ok();
}

Status Parser::Properties(LineCursor& cur, int line_no, bool nvlink) {
  std::string name;
  if (!cur.AtEnd() && cur.Rest().front() == '\'') {  // nvlink: 'name':
    Result<std::string> quoted = QuotedName(cur);
    if (!quoted.ok()) return quoted.error();
    name = std::move(quoted).value();
  } else {
    const std::string_view rest = cur.Rest();
    if (rest.empty()) return cur.ErrorAt(cur.pos(), "expected a function name");
    name = std::string(rest);
  }
  // The entry ptxas just compiled: its properties follow.
  PtxasKernel* current = Current();
  if (!nvlink && current && current->entry && !current_has_properties_ && current->name == name) {
    current_has_properties_ = true;
    return Status::Ok();
  }
  PtxasKernel function;
  function.name = std::move(name);
  function.sm = sm_.sm;
  function.sm_variant = sm_.variant;
  function.entry = nvlink;  // nvlink reports the kernels of the linked image
  function.line = line_no;
  function.module = module_;
  kernels_.push_back(std::move(function));
  current_ = kernels_.size() - 1;
  current_has_properties_ = true;
  return Status::Ok();
}

// "Used 32 registers, used 1 barriers, 16 bytes smem, 360 bytes cmem[0], ..."
Status Parser::Usage(LineCursor& cur) {
  PtxasKernel* kernel = Current();
  if (!kernel) return cur.ErrorAt(cur.pos(), "a 'Used ... registers' line before any function");
  cur.set_pos(cur.pos() + 5);  // "Used " / "used "
  Result<int> registers = NumberAsInt(cur, "registers");
  if (!registers.ok()) return registers.error();
  const size_t at = cur.pos();
  if (!cur.Consume(" registers")) return cur.ErrorAt(at, "expected 'registers'");
  kernel->registers = *registers;
  while (cur.Consume(", ")) {
    const bool used = cur.Consume("used ");
    const size_t start = cur.pos();
    Result<int64_t> n = cur.Number(INT64_MAX, "bytes");
    if (!n.ok()) return n.error();
    if (cur.Rest().substr(0, 1) != " ") {
      return cur.ErrorAt(cur.pos(), "expected a space after the number");
    }
    std::string_view rest = cur.Rest();
    const std::string_view what = rest.substr(0, rest.find(','));
    cur.set_pos(cur.pos() + what.size());
    if (used && what == " barriers") {
      if (*n > INT_MAX) return cur.ErrorAt(start, "the number of barriers is out of range");
      kernel->barriers = static_cast<int>(*n);
    } else if (what == " bytes smem") {
      kernel->shared = *n;
    } else if (what == " bytes cmem[0]") {
      kernel->cmem0 = *n;
    } else if (what == " stack") {  // nvlink's stack size
      kernel->stack_frame = *n;
    } else if (what.substr(0, 11) == " bytes cmem" && what.back() != ']') {
      return cur.ErrorAt(start, "unterminated constant bank 'cmem['");
    }
    // Other items (cumulative stack size, cmem[N], lmem, textures, samplers,
    // surfaces) are read as numbers and not kept.
  }
  if (!cur.AtEnd()) return cur.ErrorAt(cur.pos(), "expected ', ' between resource items");
  return Status::Ok();
}

// "8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads"
Status Parser::StackFrame(LineCursor& cur) {
  PtxasKernel* kernel = Current();
  if (!kernel) {
    return cur.ErrorAt(cur.pos(), "a stack frame line before any 'Function properties' line");
  }
  do {
    Result<int64_t> n = cur.Number(INT64_MAX, "bytes");
    if (!n.ok()) return n.error();
    if (cur.Consume(" bytes stack frame")) {
      kernel->stack_frame = *n;
    } else if (cur.Consume(" bytes spill stores")) {
      kernel->spill_stores = *n;
    } else if (cur.Consume(" bytes spill loads")) {
      kernel->spill_loads = *n;
    } else {
      return cur.ErrorAt(cur.pos(), "expected 'bytes stack frame', 'bytes spill stores' or "
                                    "'bytes spill loads'");
    }
  } while (cur.Consume(", "));
  cur.SkipSpaces();
  if (!cur.AtEnd()) return cur.ErrorAt(cur.pos(), "unexpected text after the spill counts");
  return Status::Ok();
}

}  // namespace

Result<std::vector<PtxasKernel>> ParsePtxasLog(std::string_view text,
                                               const std::string& file_name) {
  // A UTF-8 byte order mark (an editor's) takes no column of the first line.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  Parser parser(file_name);
  int line_no = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    ++line_no;
    if (Status s = parser.Line(line, line_no); !s.ok()) return s.error();
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return parser.Finish();
}

}  // namespace gpugate
