// The positioned JSON DOM: RapidJSON's SAX reader drives a small builder, and
// an input stream wrapper remembers where the current token began so every
// JsonValue carries the 1-based line and column of its first character.
//
// Columns count UTF-8 code points (a tab is one column), so they match what
// editors show. Integers stay exact in int64; other numbers are re-read from
// the source text with std::from_chars (correctly rounded), so files written
// with shortest round-trip formatting read back bit for bit.
#include "util/json.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <string>
#include <system_error>

namespace gpugate {

JsonValue::~JsonValue() = default;

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (type != Type::kObject) return nullptr;
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

const char* JsonValue::TypeName() const {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kBool: return "bool";
    case Type::kNumber: return "number";
    case Type::kString: return "string";
    case Type::kArray: return "array";
    case Type::kObject: return "object";
  }
  return "?";
}

Error JsonError(const std::string& name, const JsonValue& at, const std::string& path,
                const std::string& message) {
  std::string text = name + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": ";
  if (!path.empty()) text += path + ": ";
  text += message;
  return InputError(std::move(text));
}

namespace {

// Deeper documents are rejected: RapidJSON's reader and the DOM's destructor
// both recurse once per level.
constexpr size_t kMaxDepth = 512;
// Members of an object up to this count are checked for a repeated key as
// they arrive (the root's, so a streamed array cannot appear twice); larger
// objects are checked once, sorted, when they close.
constexpr size_t kEagerKeyCheck = 64;
// A container with more children than this hands its scratch buffer over
// instead of copying it (no second copy of a huge array in memory).
constexpr size_t kMoveThreshold = 1024;

/// A key shortened for messages.
std::string ShownKey(std::string_view key) {
  if (key.size() <= 60) return std::string(key);
  return std::string(key.substr(0, 57)) + "...";
}

/// Input stream for rapidjson::GenericReader over an in-memory buffer that
/// records the byte offset where the most recent token (value or key) began.
/// A tiny lexer state (inside a string, inside a bare token) tells token starts
/// from their continuation characters.
class PositionStream {
 public:
  using Ch = char;

  PositionStream(const char* begin, const char* cur, const char* end)
      : begin_(begin), p_(cur), end_(end) {}

  // A string longer than kMaxJsonStringBytes ends the input early (RapidJSON
  // would copy all of it before handing it over); see too_long().
  Ch Peek() const { return p_ != end_ && !too_long_ ? *p_ : '\0'; }
  Ch Take() {
    if (p_ == end_ || too_long_) return '\0';
    const char c = *p_;
    Track(c);
    ++p_;
    return c;
  }
  size_t Tell() const { return static_cast<size_t>(p_ - begin_); }

  // Writing is only used by in-situ parsing, which this stream does not support.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

  /// Offset (from the start of the buffer) of the last token's first byte.
  size_t token_start() const { return token_start_; }
  /// The input was cut at a string longer than kMaxJsonStringBytes.
  bool too_long() const { return too_long_; }

 private:
  void Track(char c) {
    if (in_string_) {
      if (++string_bytes_ > kMaxJsonStringBytes) too_long_ = true;
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      return;
    }
    switch (c) {
      case ' ': case '\t': case '\n': case '\r': case ',': case ':': case ']': case '}':
        in_token_ = false;
        break;
      case '[': case '{':
        token_start_ = Tell();
        in_token_ = false;
        break;
      case '"':
        token_start_ = Tell();
        in_string_ = true;
        string_bytes_ = 0;
        in_token_ = false;
        break;
      default:  // numbers and literals: the first character starts the token
        if (!in_token_) {
          token_start_ = Tell();
          in_token_ = true;
        }
    }
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  size_t token_start_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool in_token_ = false;
  size_t string_bytes_ = 0;
  bool too_long_ = false;
};

/// Converts byte offsets to line/column, moving forward only (O(n) overall).
class LineCounter {
 public:
  LineCounter(std::string_view text, size_t start, JsonOrigin origin = {})
      : text_(text), offset_(start), line_(origin.line), column_(origin.column) {}

  void AdvanceTo(size_t offset) {
    if (offset > text_.size()) offset = text_.size();
    if (offset <= offset_) return;
    const char* p = text_.data() + offset_;
    const char* end = text_.data() + offset;
    offset_ = offset;
    if (end - p < 64) {  // the usual gap between two values: a plain loop is fastest
      for (; p < end; ++p) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c == '\n') {
          ++line_;
          column_ = 1;
        } else if ((c & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
          ++column_;
        }
      }
      return;
    }
    const auto newlines = std::count(p, end, '\n');
    if (newlines > 0) {
      line_ += static_cast<int>(newlines);
      const char* last = static_cast<const char*>(::memrchr(p, '\n', static_cast<size_t>(end - p)));
      p = last + 1;
      column_ = 1;
    }
    column_ += static_cast<int>(std::count_if(p, end, [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
  }
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  std::string_view text_;
  size_t offset_;
  int line_;
  int column_;
};

/// SAX handler that builds the DOM. Members of the top-level container go
/// straight into the root (so a streaming handler can see them); deeper
/// children are collected in a per-depth scratch vector (reused between
/// siblings) and moved into their container, sized exactly, when it closes.
/// The value under construction at each depth is the last element of its
/// parent's children, and only the innermost list grows, so the pointers to
/// open containers stay valid.
///
/// Numbers: RapidJSON recognises the literal; the value is then re-read from
/// the source text with std::from_chars, which rounds correctly (RapidJSON's
/// own conversion is only exact with kParseFullPrecisionFlag, and slower).
class Builder {
 public:
  Builder(std::string_view text, size_t start, const PositionStream& stream,
          const std::string& name, JsonOrigin origin)
      : text_(text), name_(name), stream_(stream), lines_(text, start, origin) {}

  /// Streams the elements of the top-level object's member `key`.
  void Stream(std::string_view key, const JsonElementHandler* handler) {
    stream_key_ = key;
    stream_handler_ = handler;
  }

  bool Null() {
    if (!NewValue(JsonValue::Type::kNull)) return false;
    return Done();
  }
  bool Bool(bool b) {
    JsonValue* v = NewValue(JsonValue::Type::kBool);
    if (!v) return false;
    v->boolean = b;
    return Done();
  }
  bool Int(int i) { return Integer(i); }
  bool Uint(unsigned u) { return Integer(u); }
  bool Int64(int64_t i) { return Integer(i); }
  bool Uint64(uint64_t u) {
    if (u <= static_cast<uint64_t>(INT64_MAX)) return Integer(static_cast<int64_t>(u));
    return Double(0);  // beyond int64: kept as a double only
  }
  bool Double(double) {
    JsonValue* v = NewValue(JsonValue::Type::kNumber);
    return v && ConvertDouble(NumberText(), v) && Done();
  }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return Double(0); }
  bool String(const char* str, rapidjson::SizeType length, bool /*copy*/) {
    JsonValue* v = NewValue(JsonValue::Type::kString);
    if (!v || !CountText(length, v)) return false;
    v->string.assign(str, length);
    return Done();
  }
  bool StartObject() { return Open(JsonValue::Type::kObject); }
  bool Key(const char* str, rapidjson::SizeType length, bool /*copy*/) {
    if (length > 0 && !CountText(length, nullptr)) return false;
    key_.assign(str, length);
    // The root's members are checked at once: a repeated streamed array
    // must not be streamed twice.
    if (depth_ == 1 && root_.type == JsonValue::Type::kObject &&
        root_.members.size() <= kEagerKeyCheck) {
      for (const auto& [k, v] : root_.members) {
        if (k != key_) continue;
        lines_.AdvanceTo(stream_.token_start());
        JsonValue at;
        at.line = lines_.line();
        at.column = lines_.column();
        return Fail(&at, DuplicateKeyText(key_, v));
      }
    }
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    Frame& f = frames_[--depth_];
    if (!f.members.empty()) {
      auto& out = f.value->members;
      if (f.members.size() > kMoveThreshold) {
        out = std::move(f.members);
      } else {
        out.reserve(f.members.size());
        std::move(f.members.begin(), f.members.end(), std::back_inserter(out));
      }
      f.members.clear();
    }
    if (!CheckDuplicateKeys(*f.value)) return false;
    return Done();
  }
  bool StartArray() { return Open(JsonValue::Type::kArray); }
  bool EndArray(rapidjson::SizeType) {
    Frame& f = frames_[--depth_];
    if (!f.items.empty()) {
      auto& out = f.value->items;
      if (f.items.size() > kMoveThreshold) {
        out = std::move(f.items);
      } else {
        out.reserve(f.items.size());
        std::move(f.items.begin(), f.items.end(), std::back_inserter(out));
      }
      f.items.clear();
    }
    return Done();
  }

  JsonValue& root() { return root_; }
  /// Set when the handler stopped the parse (as opposed to a syntax error).
  const std::optional<Error>& error() const { return error_; }

 private:
  struct Frame {
    JsonValue* value = nullptr;
    bool streamed = false;  // elements go to the streaming handler
    std::vector<JsonValue> items;
    std::vector<std::pair<std::string, JsonValue>> members;
  };

  /// Counts `length` more bytes of text held; false (error set at `at`, or
  /// at the current token) beyond kMaxJsonStringBytes.
  bool CountText(size_t length, const JsonValue* at) {
    text_bytes_ += length;
    if (text_bytes_ <= kMaxJsonStringBytes) return true;
    JsonValue here;
    if (at == nullptr) {
      lines_.AdvanceTo(stream_.token_start());
      here.line = lines_.line();
      here.column = lines_.column();
      at = &here;
    }
    return Fail(at, "more than " + std::to_string(kMaxJsonStringBytes >> 20) +
                        " MiB of strings (the limit on what one document may hold in memory)");
  }

  /// The new value's slot, positioned; nullptr (error set) when the
  /// document holds more values than kMaxJsonValues at once.
  JsonValue* NewValue(JsonValue::Type type) {
    if (depth_ == 2 && frames_[1].streamed) {
      element_base_ = live_;
      element_text_base_ = text_bytes_;
    }
    if (++live_ > kMaxJsonValues) {
      lines_.AdvanceTo(stream_.token_start());
      JsonValue at;
      at.line = lines_.line();
      at.column = lines_.column();
      Fail(&at, "more than " + std::to_string(kMaxJsonValues) +
                    " values (the limit on what one document may hold in memory)");
      return nullptr;
    }
    JsonValue* v;
    if (depth_ == 0) {
      v = &root_;
    } else if (depth_ == 1) {  // direct child of the root
      if (root_.type == JsonValue::Type::kArray) {
        v = &root_.items.emplace_back();
      } else {
        v = &root_.members.emplace_back(std::move(key_), JsonValue()).second;
      }
    } else {
      Frame& f = frames_[depth_ - 1];
      if (f.value->type == JsonValue::Type::kArray) {
        v = &f.items.emplace_back();
      } else {
        v = &f.members.emplace_back(std::move(key_), JsonValue()).second;
      }
    }
    v->type = type;
    lines_.AdvanceTo(stream_.token_start());
    v->line = lines_.line();
    v->column = lines_.column();
    return v;
  }

  bool Open(JsonValue::Type type) {
    const bool streamed = stream_handler_ && depth_ == 1 && type == JsonValue::Type::kArray &&
                          root_.type == JsonValue::Type::kObject &&
                          key_ == stream_key_;
    JsonValue* v = NewValue(type);
    if (!v) return false;
    if (depth_ >= kMaxDepth)
      return Fail(v, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    if (depth_ == frames_.size()) frames_.emplace_back();
    frames_[depth_].value = v;
    frames_[depth_].streamed = streamed;
    ++depth_;
    return true;
  }

  /// After a value is complete: hands an element of the streamed array to
  /// the handler and drops it.
  bool Done() {
    if (depth_ != 2 || !frames_[1].streamed) return true;
    Frame& array = frames_[1];
    Status st = (*stream_handler_)(root_, array.items.back(), streamed_count_++);
    array.items.pop_back();
    live_ = element_base_;
    text_bytes_ = element_text_base_;
    if (!st.ok()) {
      error_ = st.error();
      return false;
    }
    return true;
  }

  bool Integer(int64_t i) {
    JsonValue* v = NewValue(JsonValue::Type::kNumber);
    if (!v) return false;
    v->is_integer = true;
    v->integer = i;
    v->number = static_cast<double>(i);
    return Done();
  }

  /// The literal just read: from the token start to the stream position.
  std::string_view NumberText() const {
    const size_t begin = stream_.token_start();
    return text_.substr(begin, stream_.Tell() - begin);
  }

  static std::string DuplicateKeyText(const std::string& key, const JsonValue& first) {
    return "duplicate key '" + ShownKey(key) + "' (first at " + std::to_string(first.line) + ":" +
           std::to_string(first.column) + ")";
  }

  /// A key that appears twice in one object is an error at the second
  /// one's value (readers would otherwise see only one of the two).
  bool CheckDuplicateKeys(const JsonValue& object) {
    const auto& m = object.members;
    if (m.size() < 2) return true;
    size_t dup = m.size();   // index of the earliest repeated key's second use
    size_t first = 0;
    if (m.size() <= kEagerKeyCheck) {
      for (size_t j = 1; j < m.size() && dup == m.size(); ++j)
        for (size_t i = 0; i < j; ++i)
          if (m[i].first == m[j].first) {
            dup = j;
            first = i;
            break;
          }
    } else {
      std::vector<uint32_t> order(m.size());
      for (size_t i = 0; i < m.size(); ++i) order[i] = static_cast<uint32_t>(i);
      std::stable_sort(order.begin(), order.end(),
                       [&m](uint32_t a, uint32_t b) { return m[a].first < m[b].first; });
      for (size_t i = 1; i < order.size(); ++i) {
        if (m[order[i]].first != m[order[i - 1]].first || order[i] >= dup) continue;
        size_t start = i - 1;
        while (start > 0 && m[order[start - 1]].first == m[order[i]].first) --start;
        dup = order[i];
        first = order[start];
      }
    }
    if (dup == m.size()) return true;
    return Fail(&m[dup].second, DuplicateKeyText(m[dup].first, m[first].second));
  }

  bool Fail(const JsonValue* at, const std::string& message) {
    error_ = InputError(name_ + ":" + std::to_string(at->line) + ":" +
                        std::to_string(at->column) + ": " + message);
    return false;
  }

  bool ConvertDouble(std::string_view literal, JsonValue* v) {
    const char* first = literal.data();
    const char* last = first + literal.size();
    double d = 0;
    auto [ptr, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      // Underflow keeps the nearest representable value (0 or a subnormal);
      // overflow is an error.
      const std::string copy(literal);
      d = std::strtod(copy.c_str(), nullptr);
      if (std::isinf(d)) return Fail(v, "number '" + copy + "' is out of range");
    } else if (ec != std::errc() || ptr != last) {
      return Fail(v, "invalid number '" + std::string(literal) + "'");
    }
    v->number = d;
    return true;
  }

  std::string_view text_;
  const std::string& name_;
  const PositionStream& stream_;
  LineCounter lines_;
  JsonValue root_;
  std::vector<Frame> frames_;  // frames_[0, depth_) are open containers
  size_t depth_ = 0;
  std::string key_;
  std::string_view stream_key_;
  const JsonElementHandler* stream_handler_ = nullptr;
  size_t streamed_count_ = 0;
  size_t live_ = 0;          // values held now (a streamed element's are dropped)
  size_t element_base_ = 0;  // live_ before the streamed element in progress
  size_t text_bytes_ = 0;    // bytes of strings and keys held now
  size_t element_text_base_ = 0;
  std::optional<Error> error_;
};

bool IsBlank(std::string_view text) {
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  return true;
}

/// True when `rest` (what follows a fault, trailing blanks removed) is the
/// start of the escape sequence RapidJSON was reading when the text ran out
/// (`\u12`): it puts those faults at the backslash, the others where the
/// text ends.
bool IsCutToken(std::string_view rest, rapidjson::ParseErrorCode code) {
  if (rest.empty() || rest.size() > 12) return false;
  switch (code) {
    case rapidjson::kParseErrorStringEscapeInvalid:
    case rapidjson::kParseErrorStringUnicodeEscapeInvalidHex:
    case rapidjson::kParseErrorStringUnicodeSurrogateInvalid:
      if (rest.front() != '\\') return false;
      for (char c : rest)
        if (c != '\\' && c != 'u' && !std::isxdigit(static_cast<unsigned char>(c))) return false;
      return true;
    default:
      return false;
  }
}

}  // namespace

JsonFault ClassifyJsonFault(std::string_view text, size_t offset, int code) {
  offset = std::min(offset, text.size());
  if (offset < text.size() && text[offset] == '\0') return JsonFault::kNulByte;
  std::string_view rest = text.substr(offset);
  while (!rest.empty() && IsBlank(rest.substr(rest.size() - 1))) rest.remove_suffix(1);
  if (rest.empty() || IsCutToken(rest, static_cast<rapidjson::ParseErrorCode>(code)))
    return JsonFault::kCutShort;
  return JsonFault::kSyntax;
}

std::string JsonFaultText(std::string_view text, size_t offset, int code) {
  const char* words = rapidjson::GetParseError_En(static_cast<rapidjson::ParseErrorCode>(code));
  if (offset < 4)
    if (std::optional<std::string> wide = WideEncodingText(text)) return *wide;
  switch (ClassifyJsonFault(text, offset, code)) {
    case JsonFault::kCutShort: return std::string("unexpected end of file (truncated?): ") + words;
    case JsonFault::kNulByte: return kJsonNulByteText;
    case JsonFault::kSyntax: break;
  }
  if (text.substr(std::min(offset, text.size()), 2) == "\x1f\x8b") return kJsonGzipDataText;
  // A raw control character (a tab, a newline) inside a string: JSON has
  // none, and RapidJSON calls it an invalid escape although nothing is
  // escaped there. Programs that print JSON by hand write names as they are.
  if (code == rapidjson::kParseErrorStringEscapeInvalid && offset < text.size() &&
      static_cast<unsigned char>(text[offset]) < 0x20) {
    char which[8];
    std::snprintf(which, sizeof which, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(text[offset])));
    return std::string("not valid JSON: a control character (") + which +
           ") inside a string, not escaped (\\t, \\n, \\u00XX) by the program that wrote the file";
  }
  return words;
}

std::optional<std::string> WideEncodingText(std::string_view head) {
  auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  const char* name = nullptr;
  using namespace std::string_view_literals;
  if (starts("\xFF\xFE\0\0"sv)) name = "UTF-32 (little-endian)";
  else if (starts("\0\0\xFE\xFF"sv)) name = "UTF-32 (big-endian)";
  else if (starts("\xFF\xFE"sv)) name = "UTF-16 (little-endian)";
  else if (starts("\xFE\xFF"sv)) name = "UTF-16 (big-endian)";
  else if (head.size() >= 4 && head[0] != '\0' && head[1] == '\0' && head[2] == '\0' && head[3] == '\0')
    name = "UTF-32 (little-endian)";
  else if (head.size() >= 4 && head[0] == '\0' && head[1] == '\0' && head[2] == '\0' && head[3] != '\0')
    name = "UTF-32 (big-endian)";
  else if (head.size() >= 4 && head[0] != '\0' && head[1] == '\0' && head[2] != '\0' && head[3] == '\0')
    name = "UTF-16 (little-endian)";
  else if (head.size() >= 4 && head[0] == '\0' && head[1] != '\0' && head[2] == '\0' && head[3] != '\0')
    name = "UTF-16 (big-endian)";
  if (name == nullptr) return std::nullopt;
  return std::string("text in ") + name + ", not UTF-8: convert it (iconv -f " +
         (std::string_view(name).substr(0, 6) == "UTF-32" ? "UTF-32" : "UTF-16") + " -t UTF-8 IN > OUT)";
}

std::optional<std::pair<int, int>> JsonCutShortAt(std::string_view text) {
  size_t start = 0;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") start = 3;
  if (IsBlank(text.substr(start))) return std::nullopt;
  PositionStream stream(text.data(), text.data() + start, text.data() + text.size());
  rapidjson::BaseReaderHandler<> ignore;
  rapidjson::Reader reader;
  rapidjson::ParseResult ok = reader.Parse<rapidjson::kParseNanAndInfFlag>(stream, ignore);
  if (ok || stream.too_long() || ClassifyJsonFault(text, ok.Offset(), ok.Code()) != JsonFault::kCutShort)
    return std::nullopt;
  LineCounter where(text, start);
  where.AdvanceTo(ok.Offset());
  return std::make_pair(where.line(), where.column());
}

namespace {

Result<JsonValue> Parse(std::string_view text, const std::string& name,
                        std::string_view stream_key, const JsonElementHandler* on_element,
                        JsonOrigin origin) {
  size_t start = 0;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") start = 3;  // UTF-8 BOM
  if (IsBlank(text.substr(start))) return InputError(name + ": empty file");

  PositionStream stream(text.data(), text.data() + start, text.data() + text.size());
  Builder builder(text, start, stream, name, origin);
  if (on_element) builder.Stream(stream_key, on_element);
  rapidjson::Reader reader;
  // No kParseFullPrecisionFlag: the builder re-reads every non-integer
  // literal with std::from_chars, which is correctly rounded.
  constexpr unsigned kFlags = rapidjson::kParseNanAndInfFlag;
  rapidjson::ParseResult ok = reader.Parse<kFlags>(stream, builder);
  if (!ok) {
    if (ok.Code() == rapidjson::kParseErrorTermination && builder.error()) return *builder.error();
    if (stream.too_long()) {
      LineCounter where(text, start, origin);
      where.AdvanceTo(stream.token_start());
      return InputError(name + ":" + std::to_string(where.line()) + ":" +
                        std::to_string(where.column()) + ": a string longer than " +
                        std::to_string(kMaxJsonStringBytes >> 20) + " MiB");
    }
    LineCounter where(text, start, origin);
    where.AdvanceTo(ok.Offset());
    return InputError(name + ":" + std::to_string(where.line()) + ":" +
                      std::to_string(where.column()) + ": " +
                      JsonFaultText(text, ok.Offset(), ok.Code()));
  }
  // RapidJSON reads a NUL byte as the end of the text: what follows one
  // after the document would pass unseen.
  if (stream.Tell() < text.size()) {
    LineCounter where(text, start, origin);
    where.AdvanceTo(stream.Tell());
    return InputError(name + ":" + std::to_string(where.line()) + ":" +
                      std::to_string(where.column()) + ": " +
                      JsonFaultText(text, stream.Tell(), rapidjson::kParseErrorDocumentRootNotSingular));
  }
  return std::move(builder.root());
}

}  // namespace

Result<JsonValue> ParseJson(std::string_view text, const std::string& name) {
  return Parse(text, name, {}, nullptr, {});
}

Result<JsonValue> ParseJsonStreaming(std::string_view text, const std::string& name,
                                     std::string_view array_key,
                                     const JsonElementHandler& on_element, JsonOrigin origin) {
  return Parse(text, name, array_key, &on_element, origin);
}

}  // namespace gpugate
