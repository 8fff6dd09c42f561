// Small string helpers.
#include "util/strings.h"

#include <algorithm>

namespace gpugate {

int EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance: Levenshtein plus adjacent
  // transpositions ("cdua" -> "cuda" is one edit), the common typo. Three
  // rows of the table (a transposition looks two rows back), O(|b|) memory.
  const size_t n = a.size(), m = b.size();
  std::vector<int> before(m + 1), previous(m + 1), row(m + 1);
  for (size_t j = 0; j <= m; ++j) previous[j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[m];
}

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  // Allow roughly one edit per three characters, at least one, at most three.
  int limit = std::clamp(static_cast<int>(std::min<size_t>(word.size(), 9)) / 3, 1, 3);
  std::string best;
  int best_d = limit + 1;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: a candidate that
    // differs by more than the limit is not compared (a 15 MB word costs
    // nothing against short keys).
    const size_t gap = word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (gap >= static_cast<size_t>(best_d)) continue;
    int d = EditDistance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string m = ClosestMatch(word, candidates);
  return m.empty() ? "" : " (did you mean '" + m + "'?)";
}

std::string JoinAtMost(const std::vector<std::string>& names, size_t max_names) {
  const size_t shown = std::min(names.size(), max_names);
  std::string out;
  for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (shown < names.size()) out += (shown ? " and " : "") + std::to_string(names.size() - shown) + " more";
  return out;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.emplace_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

void AppendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

int CharColumnAt(std::string_view line, size_t byte) {
  const size_t end = std::min(byte, line.size());
  int column = 1;
  for (size_t i = 0; i < end; ++i)
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++column;
  return column + static_cast<int>(byte - end);
}

size_t ByteOfCharColumn(std::string_view line, int column) {
  size_t i = 0;
  for (int c = 1; c < column && i < line.size(); ++c) {
    ++i;
    while (i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) ++i;
  }
  return i;
}

std::optional<int64_t> ProcKibField(std::string_view text, std::string_view key) {
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with(key) || line.substr(key.size(), 1) != ":") continue;
    line.remove_prefix(key.size() + 1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    int64_t kib = 0;
    size_t digits = 0;
    for (; digits < line.size() && digits < 15 && line[digits] >= '0' && line[digits] <= '9'; ++digits)
      kib = kib * 10 + (line[digits] - '0');
    const std::string_view rest = line.substr(digits);
    if (digits == 0 || !(rest.empty() || rest == " kB")) return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace gpugate
