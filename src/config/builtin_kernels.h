// Sizes of the builtin kernels (`kind: builtin`): the one size parameter they
// read and the largest size their buffers may take. Shared by the suite
// reader, which refuses a size beyond the limit at load with its position,
// and the CPU and CUDA backends, which allocate the buffers. Plain C++17 (the
// CUDA backend includes it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpugate {

/// The size parameter every builtin kernel reads: n, the elements of the
/// streaming kernels (copy, triad, saxpy, reduce) and the order of the n x n
/// sgemm products. No kernel reads another size (m, k).
inline constexpr std::string_view kBuiltinSizeParam = "n";

/// Bytes of buffers one builtin kernel may allocate: three arrays of n
/// floats, or three n x n matrices of floats.
inline constexpr int64_t kMaxBuiltinBufferBytes = int64_t{16} << 30;
inline constexpr int64_t kBuiltinBufferCount = 3;
inline constexpr int64_t kBuiltinElementBytes = 4;  // float

/// Whether a builtin kernel is an n x n product (its buffers grow as n^2).
inline bool IsBuiltinGemm(std::string_view kernel) { return kernel == "sgemm_naive" || kernel == "sgemm_blocked"; }

/// The largest n whose buffers fit kMaxBuiltinBufferBytes.
constexpr int64_t MaxBuiltinSize(bool gemm) {
  const int64_t elements = kMaxBuiltinBufferBytes / (kBuiltinBufferCount * kBuiltinElementBytes);
  if (!gemm) return elements;
  int64_t lo = 0, hi = elements;  // the integer square root, by bisection
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (mid <= elements / mid) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// Why `n` cannot be a size of `kernel` ("needs more than 16 GiB of
/// buffers (n is at most 37837)"), or nothing. Precondition: n >= 1.
inline std::optional<std::string> BuiltinSizeProblem(std::string_view kernel, int64_t n) {
  const int64_t max = MaxBuiltinSize(IsBuiltinGemm(kernel));
  if (n <= max) return std::nullopt;
  return "n=" + std::to_string(n) + " needs more than " + std::to_string(kMaxBuiltinBufferBytes >> 30) +
         " GiB of buffers (kernel " + std::string(kernel) + " takes n up to " + std::to_string(max) + ")";
}

}  // namespace gpugate
