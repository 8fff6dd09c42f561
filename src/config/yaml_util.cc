// YAML reading helpers: positions, typed access and key checks (see yaml_util.h).
#include "config/yaml_util.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "util/strings.h"
#include "util/text/escape.h"

namespace gpugate {

namespace {

// The text of line `line` (0-based) of `text`, without its newline.
std::string LineOf(const std::string& text, int line) {
  size_t start = 0;
  for (int i = 0; i < line; ++i) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) return "";
    start = nl + 1;
  }
  size_t end = text.find('\n', start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool HasTabInIndent(const std::string& line) {
  for (char c : line) {
    if (c == '\t') return true;
    if (c != ' ') return false;
  }
  return false;
}

// Whole-text integer parse; accepts an optional leading '+'.
template <class T>
bool ParseWholeInteger(std::string_view text, T* out) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool ParseWholeDouble(std::string_view text, double* out) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out,
                                   std::chars_format::general);
  return ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(*out);
}


/// Thrown by NodeCounter to stop the parser at the node that broke a limit.
struct YamlLimitExceeded {
  YAML::Mark mark;
  std::string message;
};

/// Counts the nodes of a YAML stream as the parser reports them, before any
/// tree is built: nesting depth, nodes with every alias expanded (a reader
/// that walks the tree visits an aliased subtree once per alias, so "billion
/// laughs" costs what its expansion costs), and the bytes of scalar text with
/// every alias expanded (a reader copies an aliased text once per alias, so
/// a few aliases of a long text cost what many nodes would).
class NodeCounter : public YAML::EventHandler {
 public:
  explicit NodeCounter(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Leaf(mark, anchor, 0); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const Size size = anchor < sizes_.size() ? sizes_[anchor] : Size{1, 0};
    Add(mark, size, true);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    Leaf(mark, anchor, value.size());
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  /// Expanded size of a node: nodes and bytes of scalar text.
  struct Size {
    uint64_t nodes = 0;
    uint64_t bytes = 0;
  };
  struct Open_ {
    YAML::anchor_t anchor;
    Size start;
    YAML::Mark mark;
    int depth;  ///< levels as written (see Open)
  };

  void Leaf(const YAML::Mark& mark, YAML::anchor_t anchor, uint64_t bytes) {
    Add(mark, Size{1, bytes}, false);
    Remember(anchor, Size{1, bytes});
  }
  // A collection that starts where its parent starts is one written level
  // with it: yaml-cpp reads each `[` of an unclosed `[[[...` as the key of
  // a one-entry mapping that starts at the same `[`, which would count every
  // bracket twice and place the error at half the depth.
  void Open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    Add(mark, Size{1, 0}, false);
    const bool same_place = !open_.empty() && open_.back().mark.line == mark.line &&
                            open_.back().mark.column == mark.column;
    const int depth = open_.empty() ? 1 : open_.back().depth + (same_place ? 0 : 1);
    if (depth > kMaxYamlDepth)
      throw YamlLimitExceeded{mark, "nesting deeper than " + std::to_string(kMaxYamlDepth) +
                                        " levels"};
    open_.push_back({anchor, Size{count_.nodes - 1, count_.bytes}, mark, depth});
  }
  void Close() {
    if (open_.empty()) return;
    Open_ o = open_.back();
    open_.pop_back();
    Remember(o.anchor, Size{count_.nodes - o.start.nodes, count_.bytes - o.start.bytes});
  }
  void Add(const YAML::Mark& mark, Size n, bool alias) {
    // Both sums stay far below 2^64: each step adds at most the (bounded)
    // sum so far.
    count_.nodes += n.nodes;
    count_.bytes += n.bytes;
    if (count_.nodes > static_cast<uint64_t>(kMaxYamlNodes))
      throw YamlLimitExceeded{
          mark, alias ? "aliases expand the document to more than " + std::to_string(kMaxYamlNodes) +
                            " nodes (an alias repeats its anchor's whole subtree)"
                      : "more than " + std::to_string(kMaxYamlNodes) + " YAML nodes"};
    if (count_.bytes > max_bytes_)
      throw YamlLimitExceeded{
          mark, (alias ? "aliases expand the document to more than " : "the document holds more than ") +
                    ByteText(max_bytes_) + " of text" +
                    (alias ? " (an alias repeats its anchor's whole text)" : "")};
  }
  void Remember(YAML::anchor_t anchor, Size size) {
    if (anchor == YAML::NullAnchor) return;
    if (sizes_.size() <= anchor) sizes_.resize(anchor + 1, Size{1, 0});
    sizes_[anchor] = size;
  }
  static std::string ByteText(uint64_t bytes) {
    if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + " MiB";
    return std::to_string(bytes) + " bytes";
  }

  uint64_t max_bytes_;
  Size count_;
  std::vector<Open_> open_;
  std::vector<Size> sizes_;  // expanded size by anchor id
};

// The core tags of YAML 1.2 (the "!!" handle): "tag:yaml.org,2002:int" -> "int".
constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

// Whether a scalar's text is what its core tag says it is. A tag the
// readers do not know (`!ENV`, `!include`, `!!binary`) would change the
// value in another reader, or be dropped and its text read as written:
// nullopt then. Untagged ("?" plain, "!" quoted) is always right.
std::optional<bool> ScalarFitsTag(std::string_view tag, std::string_view value) {
  if (tag == "?" || tag == "!") return true;
  if (!tag.starts_with(kCoreTagPrefix)) return std::nullopt;
  const std::string_view core = tag.substr(kCoreTagPrefix.size());
  if (core == "str") return true;
  if (core == "null") return value.empty() || value == "~" || value == "null" || value == "Null" || value == "NULL";
  if (core == "bool")
    return value == "true" || value == "True" || value == "TRUE" || value == "false" || value == "False" ||
           value == "FALSE";
  std::string_view number = value;
  if (!number.empty() && (number[0] == '+' || number[0] == '-')) number.remove_prefix(1);
  if (core == "int")
    return !number.empty() && std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (core == "float") {
    double v = 0;
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v, std::chars_format::general);
    return !number.empty() && ptr == number.data() + number.size() && (ec == std::errc() || ec == std::errc::result_out_of_range);
  }
  if (core == "map" || core == "seq") return false;
  return std::nullopt;
}

// A tag as written with the "!!" handle where it is a core tag.
std::string TagText(std::string_view tag) {
  if (tag.starts_with(kCoreTagPrefix)) return "!!" + std::string(tag.substr(kCoreTagPrefix.size()));
  return std::string(tag);
}

// The first tag of a document that gpugate cannot honour: where the node
// starts (at its properties) and what is wrong.
struct BadTag {
  YAML::Mark mark;
  std::string message;
};

std::optional<std::string> TagProblem(std::string_view tag, std::string_view kind, const std::string* value) {
  const char kKnown[] = " (gpugate reads no tags but the core ones, where they agree with the value: !!str, "
                        "!!int, !!float, !!bool, !!map, !!seq); write the value itself";
  // A tagged null reads as its text ("~") where a reader asks for a value,
  // not as no value: it is not taken.
  if (tag == std::string(kCoreTagPrefix) + "null")
    return "the tag '!!null' is not read: write ~ without it, or leave the key out";
  if (value == nullptr) {  // a mapping or a list
    if (tag == "?" || tag == "!" || tag == std::string(kCoreTagPrefix) + std::string(kind == "mapping" ? "map" : "seq"))
      return std::nullopt;
    if (tag.starts_with(kCoreTagPrefix) && ScalarFitsTag(tag, "").has_value())
      return "the tag " + QuoteInput(TagText(tag)) + " does not fit a " + std::string(kind);
    return "unknown YAML tag " + QuoteInput(TagText(tag)) + kKnown;
  }
  const std::optional<bool> fits = ScalarFitsTag(tag, *value);
  if (!fits) return "unknown YAML tag " + QuoteInput(TagText(tag)) + kKnown;
  if (!*fits)
    return "the tag " + QuoteInput(TagText(tag)) + " does not fit " + QuoteInput(*value) + ", which is not " +
           (tag.ends_with(":int")     ? "an integer"
            : tag.ends_with(":float") ? "a number"
            : tag.ends_with(":bool")  ? "true or false"
            : tag.ends_with(":null")  ? "null (~)"
                                      : "a collection");
  return std::nullopt;
}

// Remembers where each document's root node starts (the document's start
// when it has none), and where the first document uses an alias: by the
// start of the collection that holds it and its place there (a mapping's
// children are key, value, key, value...), building no nodes. yaml-cpp
// marks an alias's node where its anchor is; an error about the value an
// alias brings in belongs where the alias is written.
class DocumentScan : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> roots;
  std::map<std::tuple<int, int, size_t>, YAML::Mark> aliases;
  std::optional<BadTag> bad_tag;  ///< the first document's first tag gpugate cannot honour

  void OnDocumentStart(const YAML::Mark& mark) override {
    roots.push_back(mark);
    first_ = true;
    open_.clear();
  }
  void OnDocumentEnd() override {}
  // An empty document's null root is marked at the next token, which may be
  // past the end of the text: the document's start is kept for it.
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {
    first_ = false;
    Child();
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    Node(mark);
    if (!open_.empty() && roots.size() == 1)
      aliases[{open_.back().start.line, open_.back().start.column, open_.back().children}] = mark;
    Child();
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                const std::string& value) override {
    Tag(mark, tag, "scalar", &value);
    Node(mark);
    Child();
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Tag(mark, tag, "list", nullptr);
    Open(mark);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Tag(mark, tag, "mapping", nullptr);
    Open(mark);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Collection {
    YAML::Mark start;
    size_t children = 0;
  };
  void Tag(const YAML::Mark& mark, const std::string& tag, std::string_view kind, const std::string* value) {
    if (bad_tag || roots.size() != 1) return;
    if (std::optional<std::string> problem = TagProblem(tag, kind, value)) bad_tag = BadTag{mark, *problem};
  }
  void Node(const YAML::Mark& mark) {
    if (first_) roots.back() = mark;
    first_ = false;
  }
  void Child() {
    if (!open_.empty()) ++open_.back().children;
  }
  void Open(const YAML::Mark& mark) {
    Node(mark);
    Child();
    open_.push_back(Collection{mark, 0});
  }
  void Close() {
    if (!open_.empty()) open_.pop_back();
  }
  bool first_ = false;
  std::vector<Collection> open_;
};

// How many documents the text holds, counting at most two: YAML::LoadAll of
// yaml-cpp 0.7 never returns on some malformed input (`"",` yields null
// documents forever, yaml-cpp#1040), so documents are counted with a bound
// and the one document is then loaded by itself. The scan also finds the
// first document's aliases.
DocumentScan FirstTwoDocuments(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentScan scan;
  for (int docs = 0; docs < 2 && parser.HandleNextDocument(scan); ++docs) {
  }
  return scan;
}

// The encodings YAML text may come in (YAML 1.2, 5.2): told by a byte
// order mark or by where the NUL bytes of the first code units are.
enum class Encoding { kUtf8, kUtf16Le, kUtf16Be, kUtf32Le, kUtf32Be };

Encoding DetectEncoding(std::string_view t, size_t* bom) {
  auto at = [&](size_t i) { return i < t.size() ? static_cast<unsigned char>(t[i]) : 0x100u; };
  *bom = 0;
  if (at(0) == 0 && at(1) == 0 && at(2) == 0xFE && at(3) == 0xFF) return *bom = 4, Encoding::kUtf32Be;
  if (at(0) == 0 && at(1) == 0 && at(2) == 0 && at(3) < 0x100) return Encoding::kUtf32Be;
  if (at(0) == 0xFF && at(1) == 0xFE && at(2) == 0 && at(3) == 0) return *bom = 4, Encoding::kUtf32Le;
  if (at(0) < 0x100 && at(0) != 0 && at(1) == 0 && at(2) == 0 && at(3) == 0) return Encoding::kUtf32Le;
  if (at(0) == 0xFE && at(1) == 0xFF) return *bom = 2, Encoding::kUtf16Be;
  if (at(0) == 0 && at(1) < 0x100) return Encoding::kUtf16Be;
  if (at(0) == 0xFF && at(1) == 0xFE) return *bom = 2, Encoding::kUtf16Le;
  if (at(0) < 0x100 && at(0) != 0 && at(1) == 0) return Encoding::kUtf16Le;
  if (at(0) == 0xEF && at(1) == 0xBB && at(2) == 0xBF) *bom = 3;
  return Encoding::kUtf8;
}

// UTF-16 or UTF-32 text as UTF-8, without its byte order mark; on a broken
// code unit (a lone surrogate, a value beyond U+10FFFF, a last unit cut
// short) `*bad` is the offset of its first byte and what came before is
// returned.
std::string DecodeWide(std::string_view t, Encoding e, size_t bom, std::optional<size_t>* bad) {
  const bool wide32 = e == Encoding::kUtf32Le || e == Encoding::kUtf32Be;
  const bool little = e == Encoding::kUtf16Le || e == Encoding::kUtf32Le;
  const size_t unit = wide32 ? 4 : 2;
  auto read = [&](size_t i) {
    uint32_t v = 0;
    for (size_t b = 0; b < unit; ++b) {
      const uint32_t byte = static_cast<unsigned char>(t[i + (little ? unit - 1 - b : b)]);
      v = (v << 8) | byte;
    }
    return v;
  };
  std::string out;
  out.reserve(t.size() / unit + 16);
  size_t i = bom;
  for (; i + unit <= t.size(); i += unit) {
    uint32_t c = read(i);
    if (!wide32 && c >= 0xD800 && c <= 0xDBFF) {
      const uint32_t low = i + 2 * unit <= t.size() ? read(i + unit) : 0;
      if (low < 0xDC00 || low > 0xDFFF) break;
      c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
      i += unit;
    } else if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) {
      break;
    }
    AppendUtf8(out, c);
  }
  if (i != t.size()) *bad = i;
  return out;
}

}  // namespace

Result<YAML::Node> YamlReader::Parse(const std::string& raw) const {
  // One text for everything that follows: UTF-8 without a byte order mark.
  // UTF-16 and UTF-32 (which YAML allows and a Windows editor writes) are
  // decoded here, so that positions count characters whatever the file's
  // encoding and the policy reader reads the same lines yaml-cpp parsed.
  size_t bom = 0;
  const Encoding encoding = DetectEncoding(raw, &bom);
  std::string decoded;
  if (encoding != Encoding::kUtf8) {
    std::optional<size_t> bad;
    decoded = DecodeWide(raw, encoding, bom, &bad);
    if (bad) {
      const int line = 1 + static_cast<int>(std::count(decoded.begin(), decoded.end(), '\n'));
      const size_t line_start = decoded.rfind('\n');
      const std::string_view last =
          std::string_view(decoded).substr(line_start == std::string::npos ? 0 : line_start + 1);
      return ErrorAt(SourceLocation{file_, line, CharColumnAt(last, last.size())},
                     "invalid " + std::string(encoding == Encoding::kUtf16Le || encoding == Encoding::kUtf16Be
                                                  ? "UTF-16"
                                                  : "UTF-32") +
                         " text at byte " + std::to_string(*bad) + " (a broken code unit)");
    }
  } else {
    decoded = raw.substr(bom);
  }
  // YAML 1.2 (5.4) counts a CR on its own as a line break (old Mac
  // editors end lines so); yaml-cpp knows only LF and CRLF. Such a CR is
  // read as a LF, which keeps every offset.
  for (size_t i = 0; i < decoded.size(); ++i)
    if (decoded[i] == '\r' && (i + 1 == decoded.size() || decoded[i + 1] != '\n')) decoded[i] = '\n';
  const std::string& text = decoded;
  // YAML text cannot hold a NUL byte, and yaml-cpp reads one as an escape or
  // the end of a scalar: name it where it stands.
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
    const size_t line_start = text.rfind('\n', nul == 0 ? 0 : nul - 1);
    const size_t from = line_start == std::string::npos || nul == 0 ? 0 : line_start + 1;
    int column = 1;
    for (size_t i = from; i < nul; ++i)
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
    return ErrorAt(SourceLocation{file_, line, column},
                   "a NUL byte, which YAML text cannot hold (binary data?)");
  }
  RememberEnd(text);
  try {
    {
      // Limits first, on the event stream: the tree yaml-cpp builds costs
      // tens of bytes per input byte, and walking aliases can cost more.
      // Two documents at most: a second one is an error anyway, and some
      // malformed input yields null documents without end.
      std::istringstream in(text);
      YAML::Parser parser(in);
      NodeCounter counter(MaxYamlTextBytes(text.size()));
      for (int d = 0; d < 2 && parser.HandleNextDocument(counter); ++d) {
      }
    }
    DocumentScan scan = FirstTwoDocuments(text);
    const std::vector<YAML::Mark>& docs = scan.roots;
    aliases_ = std::move(scan.aliases);
    if (docs.empty()) return YAML::Node();
    if (docs.size() > 1) {
      const YAML::Mark& m = docs[1];
      return ErrorAt(At(m), "expected one YAML document, found a second one here");
    }
    if (scan.bad_tag) return ErrorAt(At(TagAt(scan.bad_tag->mark)), scan.bad_tag->message);
    return YAML::Load(text);
  } catch (const YamlLimitExceeded& e) {
    return ErrorAt(SourceLocation{file_, std::max(e.mark.line, 0) + 1,
                                  CharColumn(std::max(e.mark.line, 0), std::max(e.mark.column, 0))},
                   e.message);
  } catch (const YAML::Exception& e) {
    int line = e.mark.line >= 0 ? e.mark.line : 0;
    int column = e.mark.column >= 0 ? e.mark.column : 0;
    std::string message = "invalid YAML: " + e.msg;
    if (HasTabInIndent(LineOf(text, line)) && e.msg.find("tab") == std::string::npos)
      message += " (tabs are not allowed for indentation; use spaces)";
    else if (e.msg.find("tab") != std::string::npos)
      message += " (use spaces for indentation)";
    return ErrorAt(SourceLocation{file_, line + 1, CharColumn(line, column)}, message);
  } catch (const std::exception& e) {
    return ErrorAt(SourceLocation{file_, 1, 1}, std::string("invalid YAML: ") + e.what());
  }
}

YAML::Mark YamlReader::PastProperties(const YAML::Mark& mark, bool to_tag) const {
  if (mark.line < 0 || mark.column < 0 || static_cast<size_t>(mark.line) >= line_starts_.size()) return mark;
  size_t line_no = static_cast<size_t>(mark.line);
  auto line_at = [&](size_t n) {
    const size_t start = line_starts_[n];
    const size_t end = std::min(text_.find('\n', start), text_.size());
    return std::string_view(text_).substr(start, end - start);
  };
  std::string_view line = line_at(line_no);
  size_t col = static_cast<size_t>(mark.column);
  auto blank = [&](size_t i) { return i < line.size() && (line[i] == ' ' || line[i] == '\t'); };
  bool moved = false;
  while (col < line.size() && (line[col] == '&' || (line[col] == '!' && !to_tag))) {
    size_t after = col;
    while (after < line.size() && !blank(after) && line[after] != '\r') ++after;
    while (blank(after)) ++after;
    if (after < line.size() && line[after] != '\r' && line[after] != '#') {
      col = after;
      moved = true;
      continue;
    }
    // The properties end their line: the value starts on the next line
    // that holds more than blanks or a comment.
    size_t next = line_no + 1;
    for (; next < line_starts_.size(); ++next) {
      const std::string_view l = line_at(next);
      const size_t first = l.find_first_not_of(" \t\r");
      if (first != std::string_view::npos && l[first] != '#') break;
    }
    if (next >= line_starts_.size()) break;
    line_no = next;
    line = line_at(line_no);
    col = line.find_first_not_of(" \t");
    moved = true;
  }
  if (!moved) return mark;
  YAML::Mark out = mark;
  out.line = static_cast<int>(line_no);
  out.column = static_cast<int>(col);
  return out;
}

YAML::Mark YamlReader::TagAt(const YAML::Mark& mark) const { return PastProperties(mark, /*to_tag=*/true); }

SourceLocation YamlReader::ByteAt(const YAML::Mark& m) const {
  if (m.line < 0 || m.column < 0) return SourceLocation{file_, 1, 1};
  return SourceLocation{file_, m.line + 1, m.column + 1};
}

int YamlReader::CharColumn(int line, int byte_column) const {
  if (line < 0 || byte_column < 0) return 1;
  if (text_.empty() || static_cast<size_t>(line) >= line_starts_.size()) return byte_column + 1;
  const size_t start = line_starts_[static_cast<size_t>(line)];
  const size_t end = text_.find('\n', start);
  const std::string_view text(text_);
  return CharColumnAt(text.substr(start, (end == std::string::npos ? text.size() : end) - start),
                      static_cast<size_t>(byte_column));
}

SourceLocation YamlReader::At(const YAML::Mark& m) const {
  if (m.line < 0 || m.column < 0) return SourceLocation{file_, 1, 1};
  return SourceLocation{file_, m.line + 1, CharColumn(m.line, m.column)};
}

SourceLocation YamlReader::ByteWhere(const YAML::Node& node) const {
  YAML::Mark m = node.Mark();
  if (m.line < 0 || m.column < 0) return SourceLocation{file_, 1, 1};
  // A null node yaml-cpp marks at the next token: at the end of the text
  // (`- ` as the last list item) that is past the last line; the last
  // character written (the dash) stands for it.
  if (last_ && (m.line > end_.line || (m.line == end_.line && m.column >= end_.column)))
    return ByteAt(*last_);
  // Without a final line break it marks the start of the last line instead.
  if (last_ && node.IsNull() && m.line == end_.line && m.line == last_->line && m.column == 0)
    return ByteAt(*last_);
  // yaml-cpp marks a node at its properties (`&a`, `!!str`): the value is
  // where it is wrong.
  return ByteAt(PastProperties(m, /*to_tag=*/false));
}

SourceLocation YamlReader::Where(const YAML::Node& node) const {
  SourceLocation at = ByteWhere(node);
  at.column = CharColumn(at.line - 1, at.column - 1);
  return at;
}

void YamlReader::RememberEnd(const std::string& text) const {
  end_ = YAML::Mark();
  end_.line = 0;
  end_.column = 0;
  last_.reset();
  text_ = text;
  line_starts_.assign(1, 0);
  // The last character written, comments left out (`  -   # note` as the
  // last line stands at its dash): a '#' after a blank, outside quotes.
  bool comment = false, blank_before = true, escaped = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      line_starts_.push_back(i + 1);
      ++end_.line;
      end_.column = 0;
      comment = false;
      blank_before = true;
      continue;
    }
    const bool blank = c == ' ' || c == '\t' || c == '\r';
    if (!comment) {
      if (quote != 0) {
        if (escaped) escaped = false;
        else if (quote == '"' && c == '\\') escaped = true;
        else if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '#' && blank_before) {
        comment = true;
      }
    }
    if (!comment && !blank) {
      YAML::Mark at;
      at.line = end_.line;
      at.column = end_.column;
      last_ = at;
    }
    blank_before = blank;
    ++end_.column;
  }
}

SourceLocation YamlReader::Where(const YamlField& field) const {
  if (!field.alias.is_null()) return At(field.alias);
  bool key_has_mark = field.key.Mark().line >= 0;
  if (key_has_mark && (field.value.IsNull() || field.value.Mark().line < 0))
    return Where(field.key);
  return Where(field.value);
}

Error YamlReader::ErrorAt(const SourceLocation& at, const std::string& message) {
  return InputError(at.ToString() + ": " + message);
}

Error YamlReader::ErrorAt(const YAML::Node& node, const std::string& message) const {
  return ErrorAt(Where(node), message);
}

Error YamlReader::ErrorAt(const YamlField& field, const std::string& message) const {
  return ErrorAt(Where(field), message);
}

YAML::Mark YamlReader::AliasAt(const YAML::Node& collection, size_t child) const {
  if (aliases_.empty()) return YAML::Mark::null_mark();
  const YAML::Mark at = collection.Mark();
  auto it = aliases_.find({at.line, at.column, child});
  return it == aliases_.end() ? YAML::Mark::null_mark() : it->second;
}

std::vector<YamlField> YamlReader::Entries(const YAML::Node& map) const {
  std::vector<YamlField> out;
  size_t i = 0;
  for (auto it = map.begin(); it != map.end(); ++it, ++i) {
    std::string key = it->first.IsScalar() ? it->first.Scalar() : Describe(it->first);
    out.push_back(YamlField{key, it->first, it->second, AliasAt(map, 2 * i + 1)});
  }
  return out;
}

std::vector<YamlField> YamlReader::Elements(const YAML::Node& list, std::string_view name) const {
  std::vector<YamlField> out;
  size_t i = 0;
  for (auto it = list.begin(); it != list.end(); ++it, ++i) {
    out.push_back(YamlField{std::string(name) + "[" + std::to_string(i) + "]", YAML::Node(), *it, AliasAt(list, i)});
  }
  return out;
}

YamlField YamlReader::ElementOf(const YamlField& field, size_t i) const {
  if (!field.value.IsSequence() || i >= field.value.size()) return field;
  return YamlField{field.name + "[" + std::to_string(i) + "]", YAML::Node(), field.value[i],
                   AliasAt(field.value, i)};
}

std::optional<YamlField> YamlReader::Find(const YAML::Node& map, std::string_view key,
                                          std::string_view prefix) const {
  size_t i = 0;
  for (auto it = map.begin(); it != map.end(); ++it, ++i) {
    if (it->first.IsScalar() && it->first.Scalar() == key)
      return YamlField{std::string(prefix) + std::string(key), it->first, it->second, AliasAt(map, 2 * i + 1)};
  }
  return std::nullopt;
}

Status YamlReader::CheckKeys(const YAML::Node& map, const std::vector<std::string>& allowed) const {
  return CheckKeys(YamlField{"", YAML::Node(), map, YAML::Mark::null_mark()}, allowed);
}

Status YamlReader::CheckKeys(const YamlField& field, const std::vector<std::string>& allowed) const {
  const YAML::Node& map = field.value;
  // A mapping an alias brings in (`synthetic: *d`) is wrong where the alias
  // is written, not where its anchor is (there its keys may be right).
  auto error_at = [&](const YAML::Node& key, const std::string& message) {
    if (field.alias.is_null()) return ErrorAt(key, message);
    const SourceLocation anchor = Where(key);
    return ErrorAt(Where(field), message + " (in the mapping this alias brings in from " +
                                     std::to_string(anchor.line) + ":" + std::to_string(anchor.column) + ")");
  };
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar())
      return error_at(it->first, "a key must be a plain name, got " + Describe(it->first));
    const std::string& key = it->first.Scalar();
    bool known = false;
    for (const auto& a : allowed) known = known || a == key;
    if (!known && key == "<<")
      return error_at(it->first, "merge keys (<<) are not supported: write the keys out (an alias "
                                 "of a whole value, *name, works)");
    if (!known) return error_at(it->first, "unknown key " + QuoteInput(key) + DidYouMean(key, allowed));
    if (!seen.insert(key).second) {
      SourceLocation first = Where(Find(map, key)->key);
      return error_at(it->first, "duplicate key " + QuoteInput(key) + " (first at " +
                                     std::to_string(first.line) + ":" + std::to_string(first.column) + ")");
    }
  }
  return Status::Ok();
}

Status YamlReader::CheckUniqueKeys(const YAML::Node& map) const {
  std::unordered_map<std::string, YAML::Node> first;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) continue;  // named by the caller's own checks
    if (it->first.Scalar() == "<<" && it->first.Tag() != "!")
      return ErrorAt(it->first, "merge keys (<<) are not supported: write the keys out (an alias "
                                "of a whole value, *name, works)");
    auto [at, fresh] = first.emplace(it->first.Scalar(), it->first);
    if (fresh) continue;
    SourceLocation where = Where(at->second);
    return ErrorAt(it->first, "duplicate key " + QuoteInput(it->first.Scalar()) + " (first at " +
                                  std::to_string(where.line) + ":" + std::to_string(where.column) + ")");
  }
  return Status::Ok();
}

Result<YamlField> YamlReader::Require(const YAML::Node& map, std::string_view key,
                                      std::string_view prefix) const {
  std::optional<YamlField> f = Find(map, key, prefix);
  if (!f) return ErrorAt(map, "missing required key " + QuoteInput(key));
  return *f;
}

Status YamlReader::ExpectMap(const YamlField& field) const {
  if (field.value.IsMap()) return Status::Ok();
  return ErrorAt(field, QuoteInput(field.name) + " must be a mapping, got " + Describe(field.value));
}

Status YamlReader::ExpectList(const YamlField& field) const {
  if (field.value.IsSequence()) return Status::Ok();
  return ErrorAt(field, QuoteInput(field.name) + " must be a list, got " + Describe(field.value));
}

namespace {

/// Digits with an optional sign: an integer, whatever its size.
bool LooksIntegral(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string RangeText(int64_t min, int64_t max) {
  return max == std::numeric_limits<int64_t>::max() || max == std::numeric_limits<int>::max()
             ? ">= " + std::to_string(min)
             : "between " + std::to_string(min) + " and " + std::to_string(max);
}

}  // namespace

Result<int64_t> YamlReader::Int(const YamlField& field) const {
  int64_t v = 0;
  if (!field.value.IsScalar() || !ParseWholeInteger(Trim(field.value.Scalar()), &v)) {
    if (field.value.IsScalar() && LooksIntegral(Trim(field.value.Scalar())))
      return ErrorAt(field, QuoteInput(field.name) + " is out of range: " + Describe(field.value) +
                                " does not fit in a 64-bit integer");
    return ErrorAt(field, QuoteInput(field.name) + " must be an integer, got " + Describe(field.value));
  }
  return v;
}

Result<int64_t> YamlReader::IntInRange(const YamlField& field, int64_t min, int64_t max) const {
  if (field.value.IsScalar() && LooksIntegral(Trim(field.value.Scalar()))) {
    int64_t v = 0;
    if (!ParseWholeInteger(Trim(field.value.Scalar()), &v))
      return ErrorAt(field, QuoteInput(field.name) + " must be " + RangeText(min, max) + ", got " +
                                Describe(field.value));
  }
  GPUGATE_ASSIGN_OR_RETURN(int64_t v, Int(field));
  if (v < min || v > max)
    return ErrorAt(field, QuoteInput(field.name) + " must be " + RangeText(min, max) + ", got " + std::to_string(v));
  return v;
}

Result<uint64_t> YamlReader::Uint64(const YamlField& field) const {
  uint64_t v = 0;
  if (!field.value.IsScalar() || !ParseWholeInteger(Trim(field.value.Scalar()), &v))
    return ErrorAt(field, QuoteInput(field.name) + " must be a non-negative integer, got " +
                              Describe(field.value));
  return v;
}

Result<double> YamlReader::Double(const YamlField& field) const {
  double v = 0;
  if (!field.value.IsScalar() || !ParseWholeDouble(Trim(field.value.Scalar()), &v))
    return ErrorAt(field, QuoteInput(field.name) + " must be a number, got " + Describe(field.value));
  return v;
}

Result<bool> YamlReader::Bool(const YamlField& field) const {
  bool v = false;
  if (!field.value.IsScalar() || !YAML::convert<bool>::decode(field.value, v))
    return ErrorAt(field, QuoteInput(field.name) + " must be true or false, got " +
                              Describe(field.value));
  return v;
}

Result<std::string> YamlReader::String(const YamlField& field) const {
  if (field.value.IsScalar()) return field.value.Scalar();
  std::string message =
      QuoteInput(field.name) + " must be a string, got " + Describe(field.value);
  if (field.value.IsMap() && field.value.Style() == YAML::EmitterStyle::Flow)
    message += " (quote text that starts with '{')";
  return ErrorAt(field, message);
}

Result<std::vector<std::string>> YamlReader::StringList(const YamlField& field,
                                                        bool allow_single) const {
  if (allow_single && field.value.IsScalar()) return std::vector<std::string>{field.value.Scalar()};
  if (!field.value.IsSequence()) {
    return ErrorAt(field, QuoteInput(field.name) + " must be a list" +
                              (allow_single ? std::string(" or a string") : std::string()) +
                              ", got " + Describe(field.value));
  }
  std::vector<std::string> out;
  for (const YamlField& e : Elements(field.value, field.name)) {
    GPUGATE_ASSIGN_OR_RETURN(std::string s, String(e));
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::string> YamlReader::Choice(const YamlField& field, std::string_view what,
                                       const std::vector<std::string>& choices) const {
  GPUGATE_ASSIGN_OR_RETURN(std::string v, String(field));
  for (const auto& c : choices)
    if (c == v) return v;
  std::string hint = DidYouMean(v, choices);
  if (hint.empty()) {
    hint = " (expected ";
    for (size_t i = 0; i < choices.size(); ++i) {
      if (i > 0) hint += i + 1 == choices.size() ? " or " : ", ";
      hint += choices[i];
    }
    hint += ")";
  }
  return ErrorAt(field, "unknown " + std::string(what) + " " + QuoteInput(v) + hint);
}

Result<double> YamlReader::Duration(const YamlField& field) const {
  if (!field.value.IsScalar())
    return ErrorAt(field, QuoteInput(field.name) + " must be a duration like 500ms or 2s, got " +
                              Describe(field.value));
  Result<double> d = ParseDuration(field.value.Scalar());
  if (!d.ok()) return ErrorAt(field, QuoteInput(field.name) + ": " + d.error().message);
  return *d;
}

Result<double> YamlReader::Fraction(const YamlField& field) const {
  if (!field.value.IsScalar())
    return ErrorAt(field, QuoteInput(field.name) + " must be a fraction like 0.01 or 1%, got " +
                              Describe(field.value));
  Result<double> f = ParseFraction(field.value.Scalar());
  if (!f.ok()) return ErrorAt(field, QuoteInput(field.name) + ": " + f.error().message);
  return *f;
}

Status YamlReader::NotABarePercentage(const YamlField& field, double t) const {
  const std::string& text = field.value.Scalar();
  if (t < 1 || text.find('%') != std::string::npos) return Status::Ok();
  char as_percent[32];
  std::snprintf(as_percent, sizeof as_percent, "%g%%", t * 100);
  return ErrorAt(field, QuoteInput(field.name) + " " + text + " reads as a fraction, " + as_percent + ": write " +
                            text + "% if that is meant (or " + as_percent + ")");
}

Result<int64_t> YamlReader::Size(const YamlField& field) const {
  if (!field.value.IsScalar())
    return ErrorAt(field, QuoteInput(field.name) + " must be a size like 4096, 1M or 16Mi, got " +
                              Describe(field.value));
  Result<int64_t> s = ParseSize(field.value.Scalar());
  if (!s.ok()) return ErrorAt(field, QuoteInput(field.name) + ": " + s.error().message);
  return *s;
}

std::string YamlReader::Describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  std::string s = node.Scalar();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return QuoteInput(s);
}

Result<double> ParseFraction(const std::string& raw) {
  std::string text = Trim(raw);
  bool percent = EndsWith(text, "%");
  if (percent) text = Trim(std::string_view(text).substr(0, text.size() - 1));
  double v = 0;
  if (!ParseWholeDouble(text, &v))
    return InputError("invalid fraction " + QuoteInput(raw) + " (expected a number like 0.01 or 1%)");
  return percent ? v / 100.0 : v;
}

}  // namespace gpugate
