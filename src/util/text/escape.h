// The text layer: escaping of untrusted text (workload, metric and kernel
// names, labels, sentences) for every output format -- Markdown, XML, HTML,
// JSON string literals, the terminal and GitHub workflow commands -- and the
// UTF-8 checks they share. Every output of gpugate goes through here, so a
// fix to escaping fixes them all.
//
// Every function repairs invalid UTF-8 (each bad byte becomes U+FFFD, or a
// visible \xNN on the terminal) so no format is left with bytes its readers
// reject. Bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E,
// U+200F, U+061C), which could make a name read differently on screen, are
// shown as the text "\u202E" in every format meant for people; JSON keeps
// them as \u escapes (its value is data). No escaped text can start a
// GitHub workflow command: "##[" never survives, and text that starts with
// "::" (after blanks) does not either (see also workflow_guard.h, which
// checks whole lines of the console).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The number formatting helpers (FormatPercent, FormatRatioCi, FormatDuration,
// FormatBytes, ...) live in format.h; included here so that code printing
// untrusted names and numbers needs one header.
#include "util/text/format.h"  // IWYU pragma: export

namespace gpugate {

/// How EscapeMarkdown writes a line break of the input.
enum class MarkdownNewline {
  kSpace,  ///< a single space (keeps a table row on one line)
  kBreak,  ///< "<br>" (a visible break that still keeps the row on one line)
};

/// Makes text literal in GitHub-flavoured Markdown, including inside a table
/// cell: `\ ` * _ [ ] # ~ | $` get a backslash, `& < >` become entities,
/// CR/LF become a space or "<br>", tabs a space, other control characters
/// U+FFFD. The result never starts a block and never ends a table cell.
/// Nor does it mention anyone or link anything on GitHub: a zero-width space
/// (`&#8203;`) follows `@` and `#` before a letter or digit (`@user`,
/// `@org/team`, `#12`), the `GH` of `GH-12`, the `:` of `://` and the `www`
/// of `www.`; nor does it show an emoji: the zero-width space also follows
/// the first `:` of a shortcode (`:+1:`, `:rocket:`), unless it is a C++
/// scope (`at::native::kernel` stays the kernel's name, and so `ns::x::b`
/// shows GitHub's emoji for `:x:`: docs/reports.md).
std::string EscapeMarkdown(std::string_view text,
                           MarkdownNewline newline = MarkdownNewline::kSpace);

/// Escapes for XML 1.0 text and attribute values alike: `& < > " '` become
/// entities, TAB/LF/CR become character references (so attribute value
/// normalisation keeps them), and characters XML 1.0 forbids (C0 controls
/// other than TAB/LF/CR, U+FFFE, U+FFFF) become U+FFFD. Safe to use in
/// CDATA-free text: "]]>" cannot survive because '>' is escaped. A file a CI
/// step prints must not hold workflow commands: "##[" is written "&#35;#[",
/// and "::" at the start of the text or of a raw line (after spaces or tabs)
/// "&#58;:".
std::string EscapeXml(std::string_view text);

/// Like EscapeXml, but keeps LF and TAB as raw characters (for element text,
/// where they are preserved and easier to read).
std::string EscapeXmlText(std::string_view text);

/// Like EscapeXml, for a name a reader prints as one line (a JUnit testcase
/// or classname): TAB, LF and CR become U+FFFD too, so that no part of it
/// can pose as a line of its own (a workflow command) once printed.
std::string EscapeXmlName(std::string_view text);

/// Escapes for HTML element text and quoted attribute values: `& < > " '`
/// become entities, control characters other than TAB/LF become U+FFFD, and
/// as in EscapeXml "##[" is written "&#35;#[" and "::" at the start of the
/// text or of a line "&#58;:".
std::string EscapeHtml(std::string_view text);

/// Removes terminal escape sequences (CSI "ESC [ ... final", OSC "ESC ] ...
/// BEL|ESC \\", other two-byte ESC forms, 8-bit C1 controls) and every other
/// control character except TAB and LF. Use on text that is meant to be shown
/// without its colours.
std::string StripAnsi(std::string_view text);

/// Makes untrusted text inert on a terminal while keeping it visible: every
/// control character (ESC, CR, LF, BEL, DEL, C1...) and invalid byte is
/// written as "\xNN" (ASCII), a bidi control as "\uNNNN", a backslash as
/// "\\". A ':' that would begin "::" after leading blanks and a '#' that
/// would begin "##[" are written as "\x3a" and "\x23" (GitHub workflow
/// command syntax). The result is one line of printable text.
std::string EscapeTerminal(std::string_view text);

/// Like EscapeTerminal, for text that continues a line another text started
/// (a frame after the first of a folded stack): a leading "::" cannot start
/// a workflow command there and is kept.
std::string EscapeTerminalInline(std::string_view text);

/// Like EscapeTerminal, for gpugate's own messages that quote untrusted
/// text (errors, warnings): line feeds and tabs are kept, backslashes are
/// not doubled; every other control character, bidi control and invalid
/// byte is written as \xNN / \uNNNN.
std::string EscapeTerminalLines(std::string_view text);

/// A JSON string literal, quotes included, whose parsed value is `text`
/// (invalid UTF-8 repaired to U+FFFD). '"', '\\', control characters, DEL,
/// C1, U+2028/U+2029 and bidi controls are written as escapes, and the '#'
/// that would begin "##[" as \u0023, so no line of a JSON file read by a
/// GitHub runner is a workflow command. With `for_script`, '<', '>' and '&'
/// are escaped too, so the literal is safe inside an HTML <script> element.
std::string JsonStringLiteral(std::string_view text, bool for_script = false);

/// Length of the longest valid UTF-8 prefix of `text` (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF).
size_t ValidUtf8Prefix(std::string_view text);

/// The character at byte `i` of `text` (i < text.size()), for code that
/// compares characters (globs): its code point and its length in bytes; a
/// byte where no valid UTF-8 sequence starts is a character of its own,
/// length 1, with the value 0x110000 + the byte, which no code point has.
struct TextCharacter {
  char32_t value;
  size_t len;
};
TextCharacter CharacterAt(std::string_view text, size_t i);

/// `text` with each letter written as a base letter and one combining mark
/// (U+0300-U+036F) that Unicode composes into a letter of Latin-1
/// Supplement or Latin Extended-A (U+00C0-U+017F) written as that letter:
/// "cafe\u0301" gives "caf\u00e9". This is Unicode normalisation (NFC) for
/// those letters only; other text is returned as it is. Two names with the
/// same result look the same on screen.
std::string ComposeLatinLetters(std::string_view text);

/// Why `name` cannot be the name of a workload, benchmark or suite, or
/// nullopt when it can: a name is valid UTF-8 without control characters
/// (C0, DEL, C1), bidirectional controls (see above) or line separators
/// (U+2028/U+2029). The reason names the first offending character and its
/// byte offset: "invalid UTF-8 at byte 3", "control character U+001B at
/// byte 0", "bidirectional control U+202E at byte 5". Readers of every
/// input refuse such names, so two names never differ only in bytes that
/// outputs repair or escape.
/// Names are also at most kMaxNameBytes long ("1500 bytes long; a name is at
/// most 1024"): a name is copied into every map, verdict and report row.
/// "(suite)" and "(suite: gpu...)" are reserved for the verdicts on a
/// suite's common shift.
std::optional<std::string> NameProblem(std::string_view name);

/// A name taken from a file's name (a results file's suite from "<stem>.json",
/// a trace's from its worker): what NameProblem refuses becomes "_" (controls,
/// bidi controls, line separators, each invalid UTF-8 byte), a reserved name
/// gets "_" before it, and a name so changed gets "#" and 16 hex digits of a
/// hash of `stem` ("(suite)" and "_(suite)" stay two names); a long one is
/// bounded (BoundedName). A name that needs no change is kept as it is.
std::string NameFromFileName(std::string_view stem);
inline constexpr size_t kMaxNameBytes = 1024;

/// Input text quoted for a diagnostic: 'TEXT', with control characters
/// (LF and CR included) and DEL as \xNN, so a value cannot forge a line of
/// the message or move the cursor, and text over 200 bytes cut at a code
/// point, ending in "..." (a hostile file may hold megabytes).
std::string QuoteInput(std::string_view text);

/// `name` when it is at most kMaxNameBytes long; otherwise its start (cut at
/// a code point) and "...#" with 16 hex digits of a hash of the whole name,
/// kMaxNameBytes long in all. Kernel names from traces, binaries and CUPTI
/// (demangled templates run to many kilobytes) go through it where they are
/// read, so every report shows them bounded and two long names stay apart.
/// A name with invalid UTF-8 is first repaired (each bad byte U+FFFD) and
/// gets "#" and 16 hex digits of a hash of its raw bytes: every run reads it
/// alike, and names that differ only in invalid bytes stay two.
std::string BoundedName(std::string_view name);

/// Whether `name` is the form BoundedName gives a longer name (its start,
/// "...#" and 16 hex digits, kMaxNameBytes long): the whole name is lost.
bool IsBoundedName(std::string_view name);

/// NameProblem, and for a name a person writes (suite, workload and tag
/// names in a suite) what would let two names look alike in every report:
/// an invisible character (zero-width space and joiners, soft hyphen, word
/// joiner, byte-order mark, tag characters) anywhere, a blank (a space, a
/// tab, a no-break or other Unicode space) at the start or the end, and,
/// with `no_blank`, anywhere.
std::optional<std::string> WrittenNameProblem(std::string_view name, bool no_blank = false);

/// At most `max_bytes` bytes of `text`, never cut inside a UTF-8 sequence
/// (a short sha or date of an untrusted field). Cut before escaping.
std::string_view CutAtCodePoint(std::string_view text, size_t max_bytes);

/// The character that starts at byte `i` of `text`, for a message: "'≥'
/// (U+2265)", or "U+202E" alone for one a terminal would not show as
/// itself (a control, a bidirectional control, an invisible or blank
/// character), or "byte \xE2" where no valid UTF-8 sequence starts.
std::string DescribeCharacterAt(std::string_view text, size_t i);

/// At most `max_bytes` bytes of `text` (at least 32), ending in "…" when it
/// was shortened, cut only where a character starts: never inside a UTF-8
/// sequence, between a letter and its combining marks, inside an emoji
/// sequence or between the two halves of a flag. With `tell_apart`, "…" is
/// followed by "#" and 8 hex digits of a hash of the whole text, so that two
/// long names with one beginning stay two names. Shorten before escaping.
std::string ShortenToBytes(std::string_view text, size_t max_bytes, bool tell_apart = false);

/// `text` with every invalid UTF-8 byte replaced by U+FFFD.
std::string RepairUtf8(std::string_view text);

/// At most `width` terminal columns of `text` (DisplayWidth), ending in
/// "..." when it was cut (never inside a UTF-8 sequence, nor between a
/// letter and its combining marks). With `tell_apart` (and a width over
/// 12), "..." is followed by "#" and 6 hex digits of a hash of the whole
/// text, so that two long names with one beginning (template arguments that
/// differ only at the end) read differently. Shorten before escaping.
std::string ShortenText(std::string_view text, size_t width, bool tell_apart = false);

/// Escapes the message part of a GitHub workflow command
/// ("::error title=...::MESSAGE"): '%' -> %25, CR -> %0D, LF -> %0A, after
/// removing terminal escape sequences and other control characters.
std::string EscapeGithubAnnotationMessage(std::string_view text);

/// Escapes a workflow-command property value (title=..., file=...): as the
/// message, plus ':' -> %3A and ',' -> %2C.
std::string EscapeGithubAnnotationProperty(std::string_view text);

/// Number of terminal columns the text takes: two for an East Asian Wide or
/// Fullwidth character (CJK, most emoji) and for an emoji sequence (joined
/// by U+200D, or a symbol with the emoji selector U+FE0F), none for a
/// combining mark or a format character, one for the rest
/// (scripts/gen_display_width.py makes the table from the Unicode database).
int DisplayWidth(std::string_view text);

/// Each cell of one table column at most `width` display columns wide: a
/// longer cell keeps its first and last characters around an ellipsis
/// ("…"), and two different cells that would then look alike both get 6 hex
/// digits of a hash of their whole text after it ("…#bf6f97"), so a
/// shortened row still says which name it is. Shorten escaped text.
std::vector<std::string> ShortenColumn(const std::vector<std::string>& cells, int width);

/// `text` padded with spaces to `width` display columns (DisplayWidth), on
/// the right, or on the left when `align_right`; longer text is unchanged.
std::string PadText(std::string_view text, int width, bool align_right = false);

/// The display width (DisplayWidth) of each column of a table: its widest
/// cell. Rows may have fewer cells than others.
std::vector<int> ColumnWidths(const std::vector<std::vector<std::string>>& rows);

}  // namespace gpugate
