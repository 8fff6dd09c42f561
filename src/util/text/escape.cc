// Escaping of untrusted text for every output format (see escape.h).
#include "util/text/escape.h"

#include "util/random.h"
#include "util/strings.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <iterator>
#include <set>
#include <utility>
#include <vector>

namespace gpugate {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// One decoded code point: its value and byte length; `valid` is false for a
// byte that does not start a well-formed sequence (then len == 1).
struct CodePoint {
  char32_t cp = 0;
  size_t len = 1;
  bool valid = true;
};

bool IsContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// Decodes the code point at s[i] following RFC 3629 (no overlongs, no
// surrogates, nothing above U+10FFFF).
CodePoint Decode(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1, true};
  size_t len = 0;
  char32_t cp = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return {0xFFFD, 1, false};
  }
  if (i + len > s.size()) return {0xFFFD, 1, false};
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if (b1 < lo || b1 > hi) return {0xFFFD, 1, false};
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (!IsContinuation(b)) return {0xFFFD, 1, false};
    cp = (cp << 6) | (b & 0x3F);
  }
  return {cp, len, true};
}

struct CodePointRange {
  char32_t first;
  char32_t last;
};

#include "util/text/display_width_table.inc"

template <size_t N>
bool InRanges(const CodePointRange (&ranges)[N], char32_t cp) {
  const auto* it = std::upper_bound(std::begin(ranges), std::end(ranges), cp,
                                    [](char32_t c, const CodePointRange& r) { return c < r.first; });
  return it != std::begin(ranges) && cp <= (it - 1)->last;
}

// Terminal columns of one code point: 0 for combining marks and format
// characters, 2 for East Asian Wide and Fullwidth, 1 otherwise (controls
// are escaped before anything is measured).
int CodePointWidth(char32_t cp) {
  if (cp < 0x300) return 1;
  if (InRanges(kZeroWidthRanges, cp)) return 0;
  return InRanges(kWideRanges, cp) ? 2 : 1;
}

// Each code point of a text: its byte offset and its columns.
struct Column {
  size_t offset;
  int width;
};

bool IsRegionalIndicator(char32_t cp) { return cp >= 0x1F1E6 && cp <= 0x1F1FF; }

// Emoji sequences are one glyph of two columns: a code point joined by a
// zero-width joiner (a family, "woman technologist") and a skin-tone
// modifier after an emoji add none, and the emoji variation selector
// (U+FE0F) widens a one-column symbol ("heart" + VS16) to two. A flag (two
// regional indicators, paired from the start of a run of them) is two
// columns on its first indicator and none on its second, so no cut falls
// between them; a lone indicator is one column.
// Calls on_column(Column) for each code point of `text`, in order.
template <class OnColumn>
void ForEachColumn(std::string_view text, OnColumn on_column) {
  bool joined = false;
  bool flag_second = false;  // this code point ends a flag
  int before = -1;  // the previous code point's columns; -1 at the start
  for (size_t i = 0; i < text.size();) {
    const CodePoint c = Decode(text, i);
    int width = c.valid ? CodePointWidth(c.cp) : 1;
    const bool ends_flag = flag_second;
    flag_second = false;
    if (ends_flag) {
      width = 0;
    } else if (c.valid && IsRegionalIndicator(c.cp) && i + c.len < text.size()) {
      const CodePoint next = Decode(text, i + c.len);
      flag_second = next.valid && IsRegionalIndicator(next.cp);
      if (flag_second) width = 2;
    }
    if (ends_flag) {
      // the flag's two columns are on its first indicator
    } else if (c.valid && c.cp == 0x200D) {
      joined = before >= 0;
    } else if (joined) {
      width = 0;
      joined = false;
    } else if (c.valid && c.cp == 0xFE0F && before == 1) {
      width = 1;
    } else if (c.valid && c.cp >= 0x1F3FB && c.cp <= 0x1F3FF && before == 2) {
      width = 0;
    }
    on_column(Column{i, width});
    before = width;
    i += c.len;
  }
}

std::vector<Column> Columns(std::string_view text) {
  std::vector<Column> out;
  ForEachColumn(text, [&out](Column c) { out.push_back(c); });
  return out;
}

// Byte offset where a head of at most `keep` columns ends: never between a
// letter and the combining marks that follow it.
size_t HeadEnd(const std::vector<Column>& columns, int keep, size_t size) {
  int used = 0;
  for (const Column& c : columns) {
    if (c.width > 0 && used + c.width > keep) return c.offset;
    used += c.width;
  }
  return size;
}

// Byte offset where a tail of at most `keep` columns starts: at a code point
// that takes a column (a combining mark whose letter was cut goes too).
size_t TailStart(const std::vector<Column>& columns, int keep, size_t size) {
  int used = 0;
  size_t start = size;
  for (auto it = columns.rbegin(); it != columns.rend(); ++it) {
    if (used + it->width > keep) break;
    used += it->width;
    if (it->width > 0) start = it->offset;
  }
  return start;
}

bool IsC0OrDel(char32_t cp) { return cp < 0x20 || cp == 0x7F; }
bool IsC1(char32_t cp) { return cp >= 0x80 && cp <= 0x9F; }

// Controls of the Unicode bidirectional algorithm: embeddings and overrides,
// isolates, and the implicit marks.
bool IsBidiControl(char32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
         cp == 0x200F || cp == 0x061C;
}

bool IsLineSeparator(char32_t cp) { return cp == 0x2028 || cp == 0x2029; }

// Blank for the runner's "line starts with ::" test, taken broadly: what
// .NET's char.IsWhiteSpace accepts (ASCII blanks, NEL, NBSP, the Unicode
// space separators, line and paragraph separators) plus zero-width space and
// BOM, so no trimming rule of any version can expose a "::".
bool IsBlank(char32_t cp) {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200B) || IsLineSeparator(cp) || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000 || cp == 0xFEFF;
}

// "##[" starts at s[i] (the legacy workflow command prefix).
bool StartsLegacyCommand(std::string_view s, size_t i) {
  return i + 2 < s.size() && s[i] == '#' && s[i + 1] == '#' && s[i + 2] == '[';
}

// "\uNNNN" -- how a bidi control or line separator is shown to people.
std::string VisibleCodePoint(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(cp));
  return buf;
}

// Replaces bidi controls with their visible form (text already valid UTF-8).
std::string ShowBidiControls(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const CodePoint c = Decode(s, i);
    if (c.valid && (IsBidiControl(c.cp) || IsLineSeparator(c.cp))) {
      out += VisibleCodePoint(c.cp);
    } else {
      out.append(s.substr(i, c.len));
    }
    i += c.len;
  }
  return out;
}

// Appends the code point's original bytes (valid) or U+FFFD (invalid).
void AppendCodePoint(std::string& out, std::string_view s, size_t i, const CodePoint& c) {
  if (c.valid) {
    out.append(s.substr(i, c.len));
  } else {
    out += kReplacement;
  }
}

// Skips the body of a control string (OSC, DCS, SOS, PM, APC) that starts at
// s[i], just after its introducer, and returns the index after its terminator.
size_t SkipControlString(std::string_view s, size_t i) {
  // Ends at BEL, ESC '\' or 8-bit ST (C2 9C); an unterminated one runs to the end.
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b == 0x07) return i + 1;
    if (b == 0x1B && i + 1 < s.size() && s[i + 1] == '\\') return i + 2;
    if (b == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x9C) {
      return i + 2;
    }
    ++i;
  }
  return i;
}

size_t SkipCsiBody(std::string_view s, size_t i) {
  // Parameter bytes 0x30-0x3F, intermediate bytes 0x20-0x2F, one final 0x40-0x7E.
  while (i < s.size() && s[i] >= 0x30 && s[i] <= 0x3F) ++i;
  while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x2F) ++i;
  if (i < s.size() && s[i] >= 0x40 && s[i] <= 0x7E) ++i;
  return i;
}

// Index after the escape sequence that starts with ESC at s[i].
size_t SkipEsc(std::string_view s, size_t i) {
  ++i;  // ESC
  if (i >= s.size()) return i;
  const char c = s[i];
  if (c == '[') return SkipCsiBody(s, i + 1);
  if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
    return SkipControlString(s, i + 1);
  }
  // nF sequences: intermediates then a final byte ("ESC ( B").
  while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x2F) ++i;
  if (i < s.size() && s[i] >= 0x30 && s[i] <= 0x7E) ++i;
  return i;
}

// Removes escape sequences and control characters. TAB and LF are kept;
// CR is kept only when `keep_cr`.
std::string RemoveTerminalControls(std::string_view s, bool keep_cr) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const CodePoint c = Decode(s, i);
    if (c.valid && c.cp == 0x1B) {
      i = SkipEsc(s, i);
      continue;
    }
    if (c.valid && c.cp == 0x9B) {  // 8-bit CSI
      i = SkipCsiBody(s, i + c.len);
      continue;
    }
    if (c.valid && (c.cp == 0x90 || c.cp == 0x98 || c.cp == 0x9D || c.cp == 0x9E ||
                    c.cp == 0x9F)) {  // 8-bit DCS, SOS, OSC, PM, APC
      i = SkipControlString(s, i + c.len);
      continue;
    }
    if (c.valid && (IsC0OrDel(c.cp) || IsC1(c.cp))) {
      if (c.cp == '\t' || c.cp == '\n' || (keep_cr && c.cp == '\r')) out += static_cast<char>(c.cp);
      i += c.len;
      continue;
    }
    AppendCodePoint(out, s, i, c);
    i += c.len;
  }
  return out;
}

std::string Hex2(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", v & 0xFFu);
  return buf;
}

bool IsXmlChar(char32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

std::string EscapeXmlImpl(std::string_view s, bool raw_whitespace, bool one_line = false) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  size_t i = 0;
  // Only spaces and tabs since the last raw line feed: a CI step that prints
  // the file would read "::name::" here as a workflow command.
  bool line_start = true;
  while (i < s.size()) {
    const CodePoint c = Decode(s, i);
    const bool was_line_start = line_start;
    line_start = (line_start && c.valid && IsBlank(c.cp)) || (raw_whitespace && c.cp == '\n');
    if (!c.valid || !IsXmlChar(c.cp) || IsC1(c.cp) || c.cp == 0x7F ||
        (one_line && (c.cp == '\t' || c.cp == '\n' || c.cp == '\r'))) {
      out += kReplacement;
    } else if (IsBidiControl(c.cp) || IsLineSeparator(c.cp)) {
      out += VisibleCodePoint(c.cp);
    } else if (StartsLegacyCommand(s, i) ||
               (was_line_start && c.cp == ':' && i + 1 < s.size() && s[i + 1] == ':')) {
      out += c.cp == '#' ? "&#35;" : "&#58;";
    } else {
      switch (c.cp) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\t': out += raw_whitespace ? "\t" : "&#9;"; break;
        case '\n': out += raw_whitespace ? "\n" : "&#10;"; break;
        case '\r': out += "&#13;"; break;
        default: out.append(s.substr(i, c.len));
      }
    }
    i += c.len;
  }
  return out;
}

std::string EscapeGithub(std::string_view s, bool property) {
  const std::string clean = ShowBidiControls(RemoveTerminalControls(s, /*keep_cr=*/true));
  std::string out;
  out.reserve(clean.size());
  for (char ch : clean) {
    switch (ch) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      case ':': out += property ? "%3A" : ":"; break;
      case ',': out += property ? "%2C" : ","; break;
      case '[':
        // "##[" starts a legacy command anywhere in a line, even inside an
        // annotation: a zero-width space keeps the two '#' apart.
        if (out.size() >= 2 && out.compare(out.size() - 2, 2, "##") == 0)
          out.insert(out.size() - 1, "\xE2\x80\x8B");
        out += ch;
        break;
      default: out += ch;
    }
  }
  return out;
}

}  // namespace

namespace {

// An entity, not the raw character: it survives copying and shows in diffs.
constexpr char kMarkdownZeroWidthSpace[] = "&#8203;";

bool IsAsciiAlnum(char ch) {
  return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

// Whether the ':' at text[colon] opens an emoji shortcode such as ":+1:" or
// ":white_check_mark:". A C++ scope ("at::native::kernel") does not count:
// a kernel name copied from a report must stay the kernel's name.
bool StartsEmojiShortcode(std::string_view text, size_t colon) {
  size_t k = colon + 1;
  while (k < text.size() && (IsAsciiAlnum(text[k]) || text[k] == '_' || text[k] == '+' || text[k] == '-')) ++k;
  if (k == colon + 1 || k >= text.size() || text[k] != ':') return false;
  const bool scope = colon > 0 && text[colon - 1] == ':' && k + 1 < text.size() && text[k + 1] == ':';
  return !scope;
}

bool EqualsIgnoringAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(a[k])) != std::tolower(static_cast<unsigned char>(b[k])))
      return false;
  return true;
}

}  // namespace

std::string EscapeMarkdown(std::string_view text, MarkdownNewline newline) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  size_t i = 0;
  while (i < text.size()) {
    const CodePoint c = Decode(text, i);
    if (!c.valid) {
      out += kReplacement;
      i += c.len;
      continue;
    }
    switch (c.cp) {
      case '\r':
        // CRLF is one break.
        if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        [[fallthrough]];
      case '\n':
        out += newline == MarkdownNewline::kBreak ? "<br>" : " ";
        break;
      case '\t': out += ' '; break;
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '#':
      case '~': case '|': case '$':
        out += '\\';
        out += static_cast<char>(c.cp);
        // "#12" links an issue: a zero-width space keeps it text.
        if (c.cp == '#' && i + 1 < text.size() && IsAsciiAlnum(text[i + 1])) out += kMarkdownZeroWidthSpace;
        break;
      case '@':
        // "@user" and "@org/team" would ping them from a bot's comment.
        out += '@';
        if (i + 1 < text.size() && IsAsciiAlnum(text[i + 1])) out += kMarkdownZeroWidthSpace;
        break;
      case ':':
        // "http://..." is turned into a link and ":rocket:" into an emoji:
        // not in a name.
        out += ':';
        if (text.substr(i + 1, 2) == "//" || StartsEmojiShortcode(text, i)) out += kMarkdownZeroWidthSpace;
        break;
      case '-':
        // "GH-12" references an issue too.
        if (out.size() >= 2 && EqualsIgnoringAsciiCase(std::string_view(out).substr(out.size() - 2), "GH") &&
            i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9')
          out += kMarkdownZeroWidthSpace;
        out += '-';
        break;
      case '.':
        // Nor is "www.example.com".
        if (out.size() >= 3 && EqualsIgnoringAsciiCase(std::string_view(out).substr(out.size() - 3), "www"))
          out += kMarkdownZeroWidthSpace;
        out += '.';
        break;
      default:
        if (IsC0OrDel(c.cp) || IsC1(c.cp)) {
          out += kReplacement;
        } else if (IsBidiControl(c.cp) || IsLineSeparator(c.cp)) {
          out += '\\';  // a Markdown backslash escape of the backslash
          out += VisibleCodePoint(c.cp);
        } else {
          out.append(text.substr(i, c.len));
        }
    }
    i += c.len;
  }
  return out;
}

std::string EscapeXml(std::string_view text) { return EscapeXmlImpl(text, false); }

std::string EscapeXmlText(std::string_view text) { return EscapeXmlImpl(text, true); }

std::string EscapeXmlName(std::string_view text) { return EscapeXmlImpl(text, false, true); }

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t i = 0;
  // As in XML: a page a CI step prints must not hold a workflow command, and
  // the text's own line feeds are kept.
  bool line_start = true;
  while (i < text.size()) {
    const CodePoint c = Decode(text, i);
    const bool was_line_start = line_start;
    line_start = (line_start && c.valid && IsBlank(c.cp)) || c.cp == '\n';
    if (!c.valid) {
      out += kReplacement;
    } else if (StartsLegacyCommand(text, i) ||
               (was_line_start && c.cp == ':' && i + 1 < text.size() && text[i + 1] == ':')) {
      out += c.cp == '#' ? "&#35;" : "&#58;";
    } else {
      switch (c.cp) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        case '\t': out += '\t'; break;
        case '\n': out += '\n'; break;
        default:
          if (IsC0OrDel(c.cp) || IsC1(c.cp)) {
            out += kReplacement;
          } else if (IsBidiControl(c.cp) || IsLineSeparator(c.cp)) {
            out += VisibleCodePoint(c.cp);
          } else {
            out.append(text.substr(i, c.len));
          }
      }
    }
    i += c.len;
  }
  return out;
}

std::string StripAnsi(std::string_view text) { return RemoveTerminalControls(text, false); }

namespace {

std::string EscapeTerminalImpl(std::string_view text, bool keep_lines, bool starts_line = true) {
  std::string out;
  out.reserve(text.size());
  bool blank_so_far = starts_line;  // only blanks since the start of the line
  size_t i = 0;
  while (i < text.size()) {
    const CodePoint c = Decode(text, i);
    bool blank = false;
    if (!c.valid) {
      out += Hex2(static_cast<unsigned char>(text[i]));
    } else if (keep_lines && (c.cp == '\n' || c.cp == '\t')) {
      out += static_cast<char>(c.cp);
      blank = true;
      if (c.cp == '\n') blank_so_far = true;
    } else if (IsC0OrDel(c.cp) || IsC1(c.cp)) {
      out += Hex2(static_cast<unsigned>(c.cp));
    } else if (IsBidiControl(c.cp) || IsLineSeparator(c.cp)) {
      out += VisibleCodePoint(c.cp);
    } else if (c.cp == '\\') {
      out += keep_lines ? "\\" : "\\\\";
    } else if (c.cp == ':' && blank_so_far && i + 1 < text.size() && text[i + 1] == ':') {
      out += "\\x3a";
    } else if (StartsLegacyCommand(text, i)) {
      out += "\\x23";
    } else {
      out.append(text.substr(i, c.len));
      blank = IsBlank(c.cp);
    }
    if (!blank) blank_so_far = false;
    i += c.len;
  }
  return out;
}

}  // namespace

std::string EscapeTerminal(std::string_view text) { return EscapeTerminalImpl(text, false); }

std::string EscapeTerminalLines(std::string_view text) { return EscapeTerminalImpl(text, true); }

std::string EscapeTerminalInline(std::string_view text) { return EscapeTerminalImpl(text, false, false); }

std::string JsonStringLiteral(std::string_view text, bool for_script) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  size_t i = 0;
  while (i < text.size()) {
    const CodePoint c = Decode(text, i);
    char buf[16];  // "\\u%04X" of a code point of up to 6 hex digits
    if (!c.valid) {
      out += kReplacement;
    } else if (c.cp == '"') {
      out += "\\\"";
    } else if (c.cp == '\\') {
      out += "\\\\";
    } else if (c.cp == '\n') {
      out += "\\n";
    } else if (c.cp == '\t') {
      out += "\\t";
    } else if (IsC0OrDel(c.cp) || IsC1(c.cp) || IsBidiControl(c.cp) || IsLineSeparator(c.cp) ||
               (for_script && (c.cp == '<' || c.cp == '>' || c.cp == '&')) ||
               StartsLegacyCommand(text, i)) {
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(c.cp));
      out += buf;
    } else {
      out.append(text.substr(i, c.len));
    }
    i += c.len;
  }
  out += '"';
  return out;
}

size_t ValidUtf8Prefix(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const CodePoint c = Decode(text, i);
    if (!c.valid) return i;
    i += c.len;
  }
  return i;
}

TextCharacter CharacterAt(std::string_view text, size_t i) {
  const CodePoint c = Decode(text, i);
  if (!c.valid) return {static_cast<char32_t>(0x110000 + static_cast<unsigned char>(text[i])), 1};
  return {c.cp, c.len};
}

std::string DescribeCharacterAt(std::string_view text, size_t i) {
  char hex[16];
  if (i >= text.size()) return "the end";
  const CodePoint c = Decode(text, i);
  if (!c.valid) {
    std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
    return std::string("byte ") + hex;
  }
  std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c.cp));
  const std::string_view one = text.substr(i, c.len);
  if (c.cp == ' ' || WrittenNameProblem(one, /*no_blank=*/true)) return hex;
  return "'" + std::string(one) + "' (" + hex + ")";
}

std::optional<std::string> NameProblem(std::string_view name) {
  if (name.size() > kMaxNameBytes)
    return std::to_string(name.size()) + " bytes long; a name is at most " +
           std::to_string(kMaxNameBytes);
  // The names of the verdicts on a suite's common shift (model/verdicts.h).
  if (name == "(suite)" || (name.starts_with("(suite: gpu") && name.ends_with(")")))
    return "reserved for the shift common to a suite's workloads";
  size_t i = 0;
  while (i < name.size()) {
    const CodePoint c = Decode(name, i);
    const std::string at = " at byte " + std::to_string(i);
    if (!c.valid) return "invalid UTF-8" + at;
    char hex[16];
    std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c.cp));
    if (IsC0OrDel(c.cp) || IsC1(c.cp)) return std::string("control character ") + hex + at;
    if (IsBidiControl(c.cp)) return std::string("bidirectional control ") + hex + at;
    if (IsLineSeparator(c.cp)) return std::string("line separator ") + hex + at;
    i += c.len;
  }
  return std::nullopt;
}

std::string NameFromFileName(std::string_view stem) {
  std::string out;
  out.reserve(stem.size());
  size_t i = 0;
  while (i < stem.size()) {
    const size_t at = i;
    const CodePoint c = Decode(stem, i);
    if (!c.valid) {
      out += '_';
      i = at + 1;
      continue;
    }
    if (IsC0OrDel(c.cp) || IsC1(c.cp) || IsBidiControl(c.cp) || IsLineSeparator(c.cp)) out += '_';
    else out.append(stem.substr(at, c.len));
    i = at + c.len;
  }
  // A reserved name ("(suite)") gets "_" before it. Names that differ only
  // in what was replaced or put before them stay apart (a_b.json and
  // a\x1bb.json, (suite).json and _(suite).json are two suites each): a
  // hash of the raw name, as BoundedName keeps names apart that differ only
  // in invalid bytes.
  if (NameProblem(out) && out.size() <= kMaxNameBytes) out = "_" + out;  // reserved
  if (out != stem) {
    char hash[24];
    std::snprintf(hash, sizeof hash, "#%016llx", static_cast<unsigned long long>(Fnv1a64(stem)));
    out += hash;
  }
  return BoundedName(out);
}

namespace {

// Characters that show nothing (or a blank) in every report: format
// characters, fillers, variation selectors.
bool IsInvisible(char32_t cp) {
  return cp == 0xAD || cp == 0x34F || cp == 0x115F || cp == 0x1160 || (cp >= 0x17B4 && cp <= 0x17B5) ||
         (cp >= 0x180B && cp <= 0x180E) || (cp >= 0x200B && cp <= 0x200D) ||
         (cp >= 0x2060 && cp <= 0x206F) || cp == 0x2800 || cp == 0x3164 || (cp >= 0xFE00 && cp <= 0xFE0F) ||
         cp == 0xFEFF || cp == 0xFFA0 || (cp >= 0x1D173 && cp <= 0x1D17A) ||
         (cp >= 0xE0000 && cp <= 0xE007F) || (cp >= 0xE0100 && cp <= 0xE01EF);
}

bool IsBlankCodePoint(char32_t cp) {
  return cp == ' ' || cp == '\t' || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

}  // namespace

std::optional<std::string> WrittenNameProblem(std::string_view name, bool no_blank) {
  if (std::optional<std::string> problem = NameProblem(name)) return problem;
  size_t i = 0;
  while (i < name.size()) {
    const CodePoint c = Decode(name, i);
    char hex[16];
    std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c.cp));
    const std::string at = " at byte " + std::to_string(i);
    if (IsInvisible(c.cp))
      return std::string("invisible character ") + hex + at + " (two names would look alike)";
    if (IsBlankCodePoint(c.cp) && (no_blank || i == 0 || i + c.len == name.size()))
      return std::string(c.cp == ' ' ? "a space" : c.cp == '\t' ? "a tab" : "a blank ") +
             (c.cp == ' ' || c.cp == '\t' ? std::string() : std::string(hex)) +
             (no_blank ? at : i == 0 ? " at its start" : " at its end") + " (two names would look alike)";
    i += c.len;
  }
  return std::nullopt;
}

namespace {

// The letters of Latin-1 Supplement and Latin Extended-A (U+00C0-U+017F)
// that are an ASCII letter and one combining mark in Unicode's canonical
// decomposition, sorted by letter and mark: {letter, mark, composed}.
// Made with Python's unicodedata: every code point of the range whose
// decomposition is two code points, the second in U+0300-U+036F, that NFC
// composes back.
struct LatinComposition {
  char letter;
  char16_t mark;
  char16_t composed;
};
constexpr LatinComposition kLatinCompositions[] = {
    {'A', 0x300, 0x0C0}, {'A', 0x301, 0x0C1}, {'A', 0x302, 0x0C2}, {'A', 0x303, 0x0C3},
    {'A', 0x304, 0x100}, {'A', 0x306, 0x102}, {'A', 0x308, 0x0C4}, {'A', 0x30A, 0x0C5},
    {'A', 0x328, 0x104}, {'C', 0x301, 0x106}, {'C', 0x302, 0x108}, {'C', 0x307, 0x10A},
    {'C', 0x30C, 0x10C}, {'C', 0x327, 0x0C7}, {'D', 0x30C, 0x10E}, {'E', 0x300, 0x0C8},
    {'E', 0x301, 0x0C9}, {'E', 0x302, 0x0CA}, {'E', 0x304, 0x112}, {'E', 0x306, 0x114},
    {'E', 0x307, 0x116}, {'E', 0x308, 0x0CB}, {'E', 0x30C, 0x11A}, {'E', 0x328, 0x118},
    {'G', 0x302, 0x11C}, {'G', 0x306, 0x11E}, {'G', 0x307, 0x120}, {'G', 0x327, 0x122},
    {'H', 0x302, 0x124}, {'I', 0x300, 0x0CC}, {'I', 0x301, 0x0CD}, {'I', 0x302, 0x0CE},
    {'I', 0x303, 0x128}, {'I', 0x304, 0x12A}, {'I', 0x306, 0x12C}, {'I', 0x307, 0x130},
    {'I', 0x308, 0x0CF}, {'I', 0x328, 0x12E}, {'J', 0x302, 0x134}, {'K', 0x327, 0x136},
    {'L', 0x301, 0x139}, {'L', 0x30C, 0x13D}, {'L', 0x327, 0x13B}, {'N', 0x301, 0x143},
    {'N', 0x303, 0x0D1}, {'N', 0x30C, 0x147}, {'N', 0x327, 0x145}, {'O', 0x300, 0x0D2},
    {'O', 0x301, 0x0D3}, {'O', 0x302, 0x0D4}, {'O', 0x303, 0x0D5}, {'O', 0x304, 0x14C},
    {'O', 0x306, 0x14E}, {'O', 0x308, 0x0D6}, {'O', 0x30B, 0x150}, {'R', 0x301, 0x154},
    {'R', 0x30C, 0x158}, {'R', 0x327, 0x156}, {'S', 0x301, 0x15A}, {'S', 0x302, 0x15C},
    {'S', 0x30C, 0x160}, {'S', 0x327, 0x15E}, {'T', 0x30C, 0x164}, {'T', 0x327, 0x162},
    {'U', 0x300, 0x0D9}, {'U', 0x301, 0x0DA}, {'U', 0x302, 0x0DB}, {'U', 0x303, 0x168},
    {'U', 0x304, 0x16A}, {'U', 0x306, 0x16C}, {'U', 0x308, 0x0DC}, {'U', 0x30A, 0x16E},
    {'U', 0x30B, 0x170}, {'U', 0x328, 0x172}, {'W', 0x302, 0x174}, {'Y', 0x301, 0x0DD},
    {'Y', 0x302, 0x176}, {'Y', 0x308, 0x178}, {'Z', 0x301, 0x179}, {'Z', 0x307, 0x17B},
    {'Z', 0x30C, 0x17D}, {'a', 0x300, 0x0E0}, {'a', 0x301, 0x0E1}, {'a', 0x302, 0x0E2},
    {'a', 0x303, 0x0E3}, {'a', 0x304, 0x101}, {'a', 0x306, 0x103}, {'a', 0x308, 0x0E4},
    {'a', 0x30A, 0x0E5}, {'a', 0x328, 0x105}, {'c', 0x301, 0x107}, {'c', 0x302, 0x109},
    {'c', 0x307, 0x10B}, {'c', 0x30C, 0x10D}, {'c', 0x327, 0x0E7}, {'d', 0x30C, 0x10F},
    {'e', 0x300, 0x0E8}, {'e', 0x301, 0x0E9}, {'e', 0x302, 0x0EA}, {'e', 0x304, 0x113},
    {'e', 0x306, 0x115}, {'e', 0x307, 0x117}, {'e', 0x308, 0x0EB}, {'e', 0x30C, 0x11B},
    {'e', 0x328, 0x119}, {'g', 0x302, 0x11D}, {'g', 0x306, 0x11F}, {'g', 0x307, 0x121},
    {'g', 0x327, 0x123}, {'h', 0x302, 0x125}, {'i', 0x300, 0x0EC}, {'i', 0x301, 0x0ED},
    {'i', 0x302, 0x0EE}, {'i', 0x303, 0x129}, {'i', 0x304, 0x12B}, {'i', 0x306, 0x12D},
    {'i', 0x308, 0x0EF}, {'i', 0x328, 0x12F}, {'j', 0x302, 0x135}, {'k', 0x327, 0x137},
    {'l', 0x301, 0x13A}, {'l', 0x30C, 0x13E}, {'l', 0x327, 0x13C}, {'n', 0x301, 0x144},
    {'n', 0x303, 0x0F1}, {'n', 0x30C, 0x148}, {'n', 0x327, 0x146}, {'o', 0x300, 0x0F2},
    {'o', 0x301, 0x0F3}, {'o', 0x302, 0x0F4}, {'o', 0x303, 0x0F5}, {'o', 0x304, 0x14D},
    {'o', 0x306, 0x14F}, {'o', 0x308, 0x0F6}, {'o', 0x30B, 0x151}, {'r', 0x301, 0x155},
    {'r', 0x30C, 0x159}, {'r', 0x327, 0x157}, {'s', 0x301, 0x15B}, {'s', 0x302, 0x15D},
    {'s', 0x30C, 0x161}, {'s', 0x327, 0x15F}, {'t', 0x30C, 0x165}, {'t', 0x327, 0x163},
    {'u', 0x300, 0x0F9}, {'u', 0x301, 0x0FA}, {'u', 0x302, 0x0FB}, {'u', 0x303, 0x169},
    {'u', 0x304, 0x16B}, {'u', 0x306, 0x16D}, {'u', 0x308, 0x0FC}, {'u', 0x30A, 0x16F},
    {'u', 0x30B, 0x171}, {'u', 0x328, 0x173}, {'w', 0x302, 0x175}, {'y', 0x301, 0x0FD},
    {'y', 0x302, 0x177}, {'y', 0x308, 0x0FF}, {'z', 0x301, 0x17A}, {'z', 0x307, 0x17C},
    {'z', 0x30C, 0x17E},
};

}  // namespace

std::string ComposeLatinLetters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char letter = text[i];
    if (static_cast<unsigned char>(letter) < 0x80 && i + 1 < text.size()) {
      const CodePoint mark = Decode(text, i + 1);
      if (mark.valid && mark.cp >= 0x300 && mark.cp <= 0x36F) {
        const auto* it = std::lower_bound(
            std::begin(kLatinCompositions), std::end(kLatinCompositions), std::make_pair(letter, mark.cp),
            [](const LatinComposition& c, const std::pair<char, char32_t>& key) {
              return c.letter != key.first ? c.letter < key.first : c.mark < key.second;
            });
        if (it != std::end(kLatinCompositions) && it->letter == letter && it->mark == mark.cp) {
          AppendUtf8(out, it->composed);
          i += 1 + mark.len;
          continue;
        }
      }
    }
    out += letter;
    ++i;
  }
  return out;
}

std::string RepairUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const CodePoint c = Decode(text, i);
    AppendCodePoint(out, text, i, c);
    i += c.len;
  }
  return out;
}

std::string_view CutAtCodePoint(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t keep = max_bytes;
  while (keep > 0 && IsContinuation(static_cast<unsigned char>(text[keep]))) --keep;
  return text.substr(0, keep);
}

std::string QuoteInput(std::string_view text) {
  constexpr size_t kShown = 200;
  const bool cut = text.size() > kShown;
  if (cut) {
    size_t keep = kShown;
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
    text = text.substr(0, keep);
  }
  std::string out = "'";
  out.reserve(text.size() + 8);
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += Hex2(u);
    } else {
      out.push_back(c);
    }
  }
  if (cut) out += "...";
  return out + "'";
}

std::string BoundedName(std::string_view raw) {
  // Invalid UTF-8 is repaired here, where the name is read, not first by the
  // JSON writer: a history then holds the name a trace read now gives, and
  // the hash of the raw bytes keeps two names apart that differ only in
  // bytes the repair makes alike.
  std::string repaired;
  if (ValidUtf8Prefix(raw) != raw.size()) {
    char hash[24];
    std::snprintf(hash, sizeof hash, "#%016llx", static_cast<unsigned long long>(Fnv1a64(raw)));
    repaired = RepairUtf8(raw) + hash;
    raw = repaired;
  }
  std::string_view name = raw;
  if (name.size() <= kMaxNameBytes) return std::string(name);
  char tail[32];
  std::snprintf(tail, sizeof tail, "...#%016llx", static_cast<unsigned long long>(Fnv1a64(name)));
  size_t keep = kMaxNameBytes - std::strlen(tail);
  // Never cut inside a UTF-8 sequence: back up over continuation bytes.
  while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
  return std::string(name.substr(0, keep)) + tail;
}

bool IsBoundedName(std::string_view name) {
  constexpr size_t kTail = 4 + 16;  // "...#" and the hash
  if (name.size() != kMaxNameBytes || name.substr(name.size() - kTail, 4) != "...#") return false;
  for (char c : name.substr(name.size() - 16))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string ShortenText(std::string_view text, size_t width, bool tell_apart) {
  if (static_cast<size_t>(DisplayWidth(text)) <= width) return std::string(text);
  if (tell_apart && width > 12) {
    char hash[16];
    std::snprintf(hash, sizeof hash, "#%06llx", static_cast<unsigned long long>(Fnv1a64(text) & 0xffffff));
    return ShortenText(text, width - 7) + hash;
  }
  const std::vector<Column> columns = Columns(text);
  const size_t keep = width > 3 ? width - 3 : width;
  const size_t cut = HeadEnd(columns, static_cast<int>(keep), text.size());
  return std::string(text.substr(0, cut)) + (width > 3 ? "..." : "");
}

namespace {

// A code point that belongs to the character before it though it may take
// a column of its own: variation selectors (the emoji one after a heart),
// combining marks for symbols (the keycap), skin tones, tag characters (a
// subdivision flag), and the dependent vowel signs and other marks of the
// Indic scripts U+0900-0DFF, whose blocks share one layout.
bool ContinuesCharacter(uint32_t cp) {
  if ((cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0x1F3FB && cp <= 0x1F3FF) ||
      (cp >= 0xE0020 && cp <= 0xE007F) || (cp >= 0xE0100 && cp <= 0xE01EF))
    return true;
  if (cp >= 0x0900 && cp <= 0x0DFF) {
    const uint32_t low = cp & 0x7F;
    return (low >= 0x01 && low <= 0x03) || low == 0x3C || (low >= 0x3E && low <= 0x4D) ||
           (low >= 0x55 && low <= 0x57) || low == 0x62 || low == 0x63;
  }
  return false;
}

}  // namespace

std::string ShortenToBytes(std::string_view text, size_t max_bytes, bool tell_apart) {
  if (text.size() <= max_bytes) return std::string(text);
  char hash[16] = "";
  if (tell_apart)
    std::snprintf(hash, sizeof hash, "#%08llx", static_cast<unsigned long long>(Fnv1a64(text) & 0xffffffffULL));
  const size_t suffix = 3 + std::string_view(hash).size();  // "…" is 3 bytes
  const size_t room = max_bytes > suffix ? max_bytes - suffix : 0;
  // The last place at or before `room` where a glyph starts: a code point
  // that takes a column (not a combining mark, nor one joined to the one
  // before, nor the second regional indicator of a flag).
  size_t cut = 0;
  bool done = false;
  ForEachColumn(text, [&](Column c) {
    if (done) return;
    if (c.offset > room) {
      done = true;
      return;
    }
    const CodePoint cp = Decode(text, c.offset);
    if (c.width > 0 && !(cp.valid && ContinuesCharacter(cp.cp))) cut = c.offset;
  });
  return std::string(text.substr(0, cut)) + "\u2026" + hash;
}

std::string EscapeGithubAnnotationMessage(std::string_view text) {
  return EscapeGithub(text, false);
}

std::string EscapeGithubAnnotationProperty(std::string_view text) {
  return EscapeGithub(text, true);
}

namespace {

std::string ShortenMiddle(const std::string& cell, int width, bool tell_apart) {
  if (DisplayWidth(cell) <= width) return cell;
  const std::vector<Column> columns = Columns(cell);
  const int hash_width = tell_apart ? 7 : 0;
  const int keep = std::max(1, (width - 1 - hash_width) / 2);
  const size_t head = HeadEnd(columns, keep, cell.size());
  const size_t tail = TailStart(columns, keep, cell.size());
  if (tail <= head) return cell;
  char hash[16] = "";
  if (tell_apart) std::snprintf(hash, sizeof hash, "#%06llx", static_cast<unsigned long long>(Fnv1a64(cell) & 0xffffff));
  return cell.substr(0, head) + "\u2026" + hash + cell.substr(tail);
}

}  // namespace

std::vector<std::string> ShortenColumn(const std::vector<std::string>& cells, int width) {
  std::map<std::string, std::set<std::string>> shown;
  for (const std::string& c : cells) shown[ShortenMiddle(c, width, false)].insert(c);
  std::vector<std::string> out;
  out.reserve(cells.size());
  for (const std::string& c : cells) {
    std::string s = ShortenMiddle(c, width, false);
    out.push_back(shown[s].size() > 1 ? ShortenMiddle(c, width, true) : std::move(s));
  }
  return out;
}

int DisplayWidth(std::string_view text) {
  int width = 0;
  ForEachColumn(text, [&width](Column c) { width += c.width; });
  return width;
}

std::vector<int> ColumnWidths(const std::vector<std::vector<std::string>>& rows) {
  std::vector<int> width;
  for (const std::vector<std::string>& row : rows) {
    if (row.size() > width.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], DisplayWidth(row[i]));
  }
  return width;
}

std::string PadText(std::string_view text, int width, bool align_right) {
  const int fill = width - DisplayWidth(text);
  if (fill <= 0) return std::string(text);
  return align_right ? std::string(static_cast<size_t>(fill), ' ') + std::string(text)
                     : std::string(text) + std::string(static_cast<size_t>(fill), ' ');
}

}  // namespace gpugate
