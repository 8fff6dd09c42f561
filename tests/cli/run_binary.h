// Test helper: runs the real gpugate binary and captures exit code, stdout
// and stderr (end-to-end tests).
#pragma once

#include <string>
#include <vector>

namespace gpugate::testing {

struct Outcome {
  int exit_code = -1;   ///< exit status, or 128+signal
  std::string out;
  std::string err;
};

/// Runs GPUGATE_BINARY with `args` (no shell), in `cwd` (default: the
/// source root), with extra environment entries "K=V".
Outcome RunGpugate(const std::vector<std::string>& args, const std::string& cwd = "",
                   const std::vector<std::string>& env = {});

/// A fresh temporary directory, removed by the caller with RemoveTree.
std::string MakeTempDir();
void RemoveTree(const std::string& path);
std::string ReadAll(const std::string& path);
void WriteAll(const std::string& path, const std::string& text);

}  // namespace gpugate::testing
