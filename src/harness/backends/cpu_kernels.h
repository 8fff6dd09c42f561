// Builtin CPU kernels: real work on deterministic pseudo-random data, each
// declaring the bytes it moves and the FLOPs it does per invocation.
//
// Counting convention (STREAM's, McCalpin 1995): bytes are the compulsory
// traffic of one invocation, i.e. every array element read once plus every
// element written once; write-allocate reads and cache reuse are not counted.
// FLOPs count each floating-point add and multiply as one.
//   copy           dst = src               bytes 2*n*4          flops 0
//   triad          a = b + s*c             bytes 3*n*4          flops 2n
//   saxpy          y = a*x + y             bytes 3*n*4          flops 2n
//   reduce         sum += x[i]             bytes n*4            flops n
//   sgemm_naive    C = A*B (n x n), i-j-k  bytes 3*n*n*4        flops 2n^3
//   sgemm_blocked  C = A*B, cache-blocked  bytes 3*n*n*4        flops 2n^3
// The sgemm byte count is the compulsory minimum (read A and B, write C), not
// the traffic the loop order really causes; it is what makes the naive and
// blocked variants comparable.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// One builtin kernel with its inputs allocated and initialised.
class CpuKernel {
 public:
  virtual ~CpuKernel() = default;
  /// The kernel name ("triad").
  virtual const std::string& Name() const = 0;
  /// Runs one invocation. Repeated invocations leave the outputs verifiable.
  virtual void Run() = 0;
  /// Work of one invocation (see the counting convention above).
  virtual WorkCounts Work() const = 0;
  /// Checks the outputs against a reference computed independently (in
  /// double precision where rounding matters). Call after at least one Run().
  virtual Status Verify() const = 0;
};

/// Names of the builtin kernels, in documentation order. The CUDA backend
/// implements the same names.
const std::vector<std::string>& CpuKernelNames();

/// Default problem size `n` of a kernel when the suite gives none (elements
/// for the streaming kernels, matrix order for sgemm).
int64_t DefaultKernelSize(const std::string& kernel);

/// Creates and initialises a kernel. `sizes["n"]` sets the problem size.
/// Errors (exit code 2): unknown kernel name (with a suggestion), n <= 0, or
/// a size whose buffers would exceed 16 GiB.
Result<std::unique_ptr<CpuKernel>> MakeCpuKernel(const std::string& name,
                                                 const std::map<std::string, int64_t>& sizes);

namespace detail {
/// Deterministic fill with values in [lo, hi): splitmix64 (Steele, Lea &
/// Flood 2014) of the element index and the seed, so data is non-trivial but
/// identical on every machine.
void FillPseudoRandom(float* data, int64_t n, uint64_t seed, float lo, float hi);
}  // namespace detail

}  // namespace gpugate
