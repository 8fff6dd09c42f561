// Small string helpers shared by parsers and the CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpugate {

/// Edit distance with adjacent transpositions (for "did you mean").
int EditDistance(std::string_view a, std::string_view b);

/// The closest candidate within a small distance, or "" when nothing is close.
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or "".
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

/// "a, b, c" — or, past `max_names`, the first ones and "and N more":
/// "a, b and 49998 more". Bounded however long the list.
std::string JoinAtMost(const std::vector<std::string>& names, size_t max_names);

std::vector<std::string> Split(std::string_view s, char sep);
std::string Trim(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);

/// The bytes of a `Key:   N kB` line of a /proc file (status, meminfo): the
/// kernel writes "kB" and means KiB. Empty when no line names `key` (with
/// its colon) or its value is not a count of at most 15 digits.
std::optional<int64_t> ProcKibField(std::string_view text, std::string_view key);

/// Appends code point `code_point` (at most U+10FFFF, not a surrogate) in UTF-8.
void AppendUtf8(std::string& out, uint32_t code_point);

/// The 1-based character column (UTF-8 code points, as editors count) at
/// byte `byte` of `line`: one more than the code points that start before it.
int CharColumnAt(std::string_view line, size_t byte);
/// The byte of `line` where 1-based character column `column` starts
/// (line.size() past the end): the inverse of CharColumnAt.
size_t ByteOfCharColumn(std::string_view line, int column);

}  // namespace gpugate
