// Escaping of untrusted text (workload, metric and kernel names, labels,
// sentences) for every output format: Markdown table cells, XML, HTML, the
// terminal, and GitHub workflow commands. Every function also repairs
// invalid UTF-8 (each bad byte becomes U+FFFD) so no format is left with
// bytes its readers reject.
#pragma once

#include <string>
#include <string_view>

// The number formatting helpers (FormatPercent, FormatRatioCi, FormatDuration,
// FormatBytes, ...) live in format.h; included here so that code printing
// untrusted names and numbers needs one header.
#include "report/format.h"  // IWYU pragma: export

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
std::string EscapeMarkdown(std::string_view text,
                           MarkdownNewline newline = MarkdownNewline::kSpace);

/// Escapes for XML 1.0 text and attribute values alike: `& < > " '` become
/// entities, TAB/LF/CR become character references (so attribute value
/// normalisation keeps them), and characters XML 1.0 forbids (C0 controls
/// other than TAB/LF/CR, U+FFFE, U+FFFF) become U+FFFD. Safe to use in
/// CDATA-free text: "]]>" cannot survive because '>' is escaped.
std::string EscapeXml(std::string_view text);

/// Like EscapeXml, but keeps LF and TAB as raw characters (for element text,
/// where they are preserved and easier to read).
std::string EscapeXmlText(std::string_view text);

/// Escapes for HTML element text and quoted attribute values: `& < > " '`
/// become entities, control characters other than TAB/LF become U+FFFD.
std::string EscapeHtml(std::string_view text);

/// Removes terminal escape sequences (CSI "ESC [ ... final", OSC "ESC ] ...
/// BEL|ESC \\", other two-byte ESC forms, 8-bit C1 controls) and every other
/// control character except TAB and LF. Use on text that is meant to be shown
/// without its colours.
std::string StripAnsi(std::string_view text);

/// Makes untrusted text inert on a terminal while keeping it visible: every
/// control character (ESC, CR, LF, BEL, DEL, C1...) is written as "\xNN"
/// (ASCII), a backslash as "\\". The result is one line of printable text.
std::string EscapeTerminal(std::string_view text);

/// Escapes the message part of a GitHub workflow command
/// ("::error title=...::MESSAGE"): '%' -> %25, CR -> %0D, LF -> %0A, after
/// removing terminal escape sequences and other control characters.
std::string EscapeGithubAnnotationMessage(std::string_view text);

/// Escapes a workflow-command property value (title=..., file=...): as the
/// message, plus ':' -> %3A and ',' -> %2C.
std::string EscapeGithubAnnotationProperty(std::string_view text);

/// Number of terminal columns the text takes, counting one per code point
/// (a close approximation for names; wide East-Asian glyphs count as one).
int DisplayWidth(std::string_view text);

}  // namespace gpugate
