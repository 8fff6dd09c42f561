// Test-only reader of `ptxas -v` reports (the lines nvcc -Xptxas -v prints),
// so tests can compare `gpugate inspect` with what ptxas said for the same
// build. Deliberately tiny: the product's build-log reader is elsewhere.
#pragma once

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace gpugate::testing {

struct PtxasKernel {
  int registers = -1;
  int64_t stack_frame = -1;
  int64_t spill_stores = -1;
  int barriers = 0;
  int64_t smem = 0;
  std::optional<int64_t> cmem0;
};

/// (kernel, arch) -> what ptxas printed; arch is 90 for 'sm_90'.
using PtxasReport = std::map<std::pair<std::string, int>, PtxasKernel>;

/// The number before `suffix` in `line` ("... 1536 bytes smem" -> 1536).
inline std::optional<int64_t> NumberBefore(const std::string& line, const std::string& suffix) {
  const size_t at = line.find(suffix);
  if (at == std::string::npos || at == 0) return std::nullopt;
  size_t start = at - 1;
  while (start > 0 && line[start - 1] >= '0' && line[start - 1] <= '9') --start;
  if (start == at || line[start] < '0' || line[start] > '9') return std::nullopt;
  return std::stoll(line.substr(start, at - start));
}

inline PtxasReport ParsePtxasV(const std::string& text) {
  PtxasReport report;
  std::istringstream in(text);
  std::string line;
  std::pair<std::string, int> current;
  bool have = false;
  const std::string entry = "Compiling entry function '";
  while (std::getline(in, line)) {
    if (size_t at = line.find(entry); at != std::string::npos) {
      const size_t name_start = at + entry.size();
      const size_t name_end = line.find('\'', name_start);
      const size_t arch_at = line.find("for 'sm_", name_end);
      if (name_end == std::string::npos || arch_at == std::string::npos) continue;
      current = {line.substr(name_start, name_end - name_start), std::stoi(line.substr(arch_at + 8))};
      report[current] = PtxasKernel{};
      have = true;
      continue;
    }
    if (!have) continue;
    PtxasKernel& k = report[current];
    if (line.find("bytes stack frame") != std::string::npos) {
      k.stack_frame = NumberBefore(line, " bytes stack frame").value_or(-1);
      k.spill_stores = NumberBefore(line, " bytes spill stores").value_or(-1);
    }
    if (line.find("Used ") != std::string::npos && line.find(" registers") != std::string::npos) {
      k.registers = static_cast<int>(NumberBefore(line, " registers").value_or(-1));
      k.barriers = static_cast<int>(NumberBefore(line, " barriers").value_or(0));
      k.smem = NumberBefore(line, " bytes smem").value_or(0);
      k.cmem0 = NumberBefore(line, " bytes cmem[0]");
    }
  }
  return report;
}

}  // namespace gpugate::testing
