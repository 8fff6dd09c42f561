// Builtin CPU kernels (see cpu_kernels.h for the work-counting convention).
#include "harness/backends/cpu_kernels.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "config/builtin_kernels.h"
#include "harness/do_not_optimize.h"
#include "util/random.h"
#include "util/strings.h"

namespace gpugate {

namespace detail {

void FillPseudoRandom(float* data, int64_t n, uint64_t seed, float lo, float hi) {
  const uint64_t base = SplitMix64(seed);
  for (int64_t i = 0; i < n; ++i) {
    // Top 24 bits -> a float in [0, 1) with every value exactly representable.
    uint64_t bits = SplitMix64(base + static_cast<uint64_t>(i)) >> 40;
    float u = static_cast<float>(bits) * (1.0f / 16777216.0f);
    data[i] = lo + (hi - lo) * u;
  }
}

}  // namespace detail

namespace {

constexpr int64_t kDefaultStreamN = int64_t{1} << 23;  // 8 Mi floats = 32 MiB per array
constexpr int64_t kDefaultGemmN = 256;
constexpr int64_t kFloat = static_cast<int64_t>(sizeof(float));

// Unit roundoff of binary32 and Higham's gamma_k = k*u / (1 - k*u), the
// rigorous bound on the relative error of a k-term recursive sum or dot
// product (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// Lemma 3.1 and Section 3.1).
constexpr double kUnitRoundoff = FLT_EPSILON / 2.0;
double Gamma(int64_t k) {
  double ku = static_cast<double>(k) * kUnitRoundoff;
  return ku / (1.0 - ku);
}

std::string Where(const std::string& kernel, int64_t i) {
  return kernel + ": output element " + std::to_string(i);
}

std::string Mismatch(const std::string& where, double got, double want, double tol) {
  char buf[160];
  std::snprintf(buf, sizeof buf, " is %.9g, expected %.9g (tolerance %.3g)", got, want, tol);
  return where + buf;
}

// ----- streaming kernels ---------------------------------------------------

class CopyKernel final : public CpuKernel {
 public:
  explicit CopyKernel(int64_t n) : src_(n), dst_(n, 0.0f) {
    detail::FillPseudoRandom(src_.data(), n, 11, -1.0f, 1.0f);
  }
  const std::string& Name() const override { return name_; }
  void Run() override {
    const float* __restrict s = src_.data();
    float* __restrict d = dst_.data();
    const int64_t n = static_cast<int64_t>(src_.size());
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    EscapePointer(d);
    ClobberMemory();
  }
  WorkCounts Work() const override {
    const int64_t n = static_cast<int64_t>(src_.size());
    return WorkCounts{2 * n * kFloat, 0.0, n};
  }
  Status Verify() const override {
    for (size_t i = 0; i < src_.size(); ++i) {
      if (dst_[i] != src_[i])
        return ToolError(Mismatch(Where(name_, static_cast<int64_t>(i)), dst_[i], src_[i], 0));
    }
    return Status::Ok();
  }

 private:
  std::string name_ = "copy";
  std::vector<float> src_, dst_;
};

class TriadKernel final : public CpuKernel {
 public:
  explicit TriadKernel(int64_t n) : a_(n, 0.0f), b_(n), c_(n) {
    detail::FillPseudoRandom(b_.data(), n, 21, -1.0f, 1.0f);
    detail::FillPseudoRandom(c_.data(), n, 22, -1.0f, 1.0f);
  }
  const std::string& Name() const override { return name_; }
  void Run() override {
    float* __restrict a = a_.data();
    const float* __restrict b = b_.data();
    const float* __restrict c = c_.data();
    const float s = kScalar;
    const int64_t n = static_cast<int64_t>(a_.size());
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    EscapePointer(a);
    ClobberMemory();
  }
  WorkCounts Work() const override {
    const int64_t n = static_cast<int64_t>(a_.size());
    return WorkCounts{3 * n * kFloat, 2.0 * static_cast<double>(n), n};
  }
  Status Verify() const override {
    for (size_t i = 0; i < a_.size(); ++i) {
      double want = static_cast<double>(b_[i]) + double{kScalar} * c_[i];
      double tol = Gamma(2) * (std::fabs(b_[i]) + std::fabs(double{kScalar} * c_[i]));
      if (std::fabs(a_[i] - want) > tol)
        return ToolError(Mismatch(Where(name_, static_cast<int64_t>(i)), a_[i], want, tol));
    }
    return Status::Ok();
  }

 private:
  static constexpr float kScalar = 3.0f;  // STREAM's scalar
  std::string name_ = "triad";
  std::vector<float> a_, b_, c_;
};

// y = a*x + y in place. The sign of `a` alternates between invocations, so
// after any number of calls y is y0 (even count) or y0 + a*x (odd count) up
// to rounding, and the data stays bounded however often it runs.
class SaxpyKernel final : public CpuKernel {
 public:
  explicit SaxpyKernel(int64_t n) : x_(n), y_(n), y0_(n) {
    detail::FillPseudoRandom(x_.data(), n, 31, -1.0f, 1.0f);
    detail::FillPseudoRandom(y_.data(), n, 32, -1.0f, 1.0f);
    y0_ = y_;
  }
  const std::string& Name() const override { return name_; }
  void Run() override {
    const float a = (calls_ % 2 == 0) ? kA : -kA;
    const float* __restrict x = x_.data();
    float* __restrict y = y_.data();
    const int64_t n = static_cast<int64_t>(y_.size());
    for (int64_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
    ++calls_;
    EscapePointer(y);
    ClobberMemory();
  }
  WorkCounts Work() const override {
    const int64_t n = static_cast<int64_t>(y_.size());
    return WorkCounts{3 * n * kFloat, 2.0 * static_cast<double>(n), n};
  }
  Status Verify() const override {
    if (calls_ == 0) return ToolError(name_ + ": verified before it ran");
    const bool odd = calls_ % 2 == 1;
    for (size_t i = 0; i < y_.size(); ++i) {
      double ax = double{kA} * x_[i];
      double want = y0_[i] + (odd ? ax : 0.0);
      // Each call rounds once or twice; alternating calls cancel, so the
      // drift stays within a few ulps of the operands in practice. 1e-4
      // relative to the operand size allows ~800 ulps of drift while any
      // wrong formula (missing term, wrong sign) misses by O(1).
      double tol = 1e-4 * (std::fabs(y0_[i]) + std::fabs(ax)) + 1e-30;
      if (std::fabs(y_[i] - want) > tol)
        return ToolError(Mismatch(Where(name_, static_cast<int64_t>(i)), y_[i], want, tol));
    }
    return Status::Ok();
  }

 private:
  static constexpr float kA = 0.5f;
  std::string name_ = "saxpy";
  std::vector<float> x_, y_, y0_;
  int64_t calls_ = 0;
};

// Sum with eight independent accumulators (breaks the add dependency chain
// without -ffast-math; the partial sums are added at the end).
class ReduceKernel final : public CpuKernel {
 public:
  explicit ReduceKernel(int64_t n) : x_(n) {
    detail::FillPseudoRandom(x_.data(), n, 41, 0.0f, 1.0f);
  }
  const std::string& Name() const override { return name_; }
  void Run() override {
    const float* __restrict x = x_.data();
    const int64_t n = static_cast<int64_t>(x_.size());
    float acc[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += x[i + l];
    for (; i < n; ++i) acc[0] += x[i];
    float total = 0.0f;
    for (int l = 0; l < kLanes; ++l) total += acc[l];
    sum_ = total;
    DoNotOptimize(sum_);
  }
  WorkCounts Work() const override {
    const int64_t n = static_cast<int64_t>(x_.size());
    return WorkCounts{n * kFloat, static_cast<double>(n), n};
  }
  Status Verify() const override {
    double want = 0, abs_sum = 0;
    for (float v : x_) {
      want += v;
      abs_sum += std::fabs(v);
    }
    // Each lane sums ceil(n/8) terms, then the 8 partial sums are added: at
    // most m = n/8 + 8 roundings on any path. The worst-case bound gamma_m
    // is vacuous once m*u approaches 1 (m ~ 16M), so use the probabilistic
    // bound of Higham & Mary (SIAM J. Sci. Comput. 41(5), 2019, Thm 3.1):
    // |error| <= lambda * sqrt(m) * u * sum|x| with probability at least
    // 1 - 2 exp(-lambda^2 (1-u)^2 / 2); lambda = 8 makes a false alarm
    // < 1e-13, while at n = 16Mi (tolerance 0.07%) 0.1% missing data fails.
    const double m = static_cast<double>(x_.size()) / kLanes + kLanes + 1;
    double tol = 8.0 * std::sqrt(m) * kUnitRoundoff * abs_sum + 1e-30;
    if (std::fabs(sum_ - want) > tol) return ToolError(Mismatch(name_ + ": sum", sum_, want, tol));
    return Status::Ok();
  }

 private:
  static constexpr int kLanes = 8;
  std::string name_ = "reduce";
  std::vector<float> x_;
  float sum_ = 0.0f;
};

// ----- matrix multiply -----------------------------------------------------

class SgemmBase : public CpuKernel {
 public:
  SgemmBase(std::string name, int64_t n) : name_(std::move(name)), n_(n), a_(n * n), b_(n * n), c_(n * n, 0.0f) {
    detail::FillPseudoRandom(a_.data(), n * n, 51, -1.0f, 1.0f);
    detail::FillPseudoRandom(b_.data(), n * n, 52, -1.0f, 1.0f);
  }
  const std::string& Name() const override { return name_; }
  WorkCounts Work() const override {
    const double n = static_cast<double>(n_);
    return WorkCounts{3 * n_ * n_ * kFloat, 2.0 * n * n * n, n_ * n_};
  }
  /// Checks up to 256 entries (all of them for small n) against a double
  /// dot product, within the rigorous bound gamma_n * sum_k |a_ik * b_kj|.
  Status Verify() const override {
    const int64_t total = n_ * n_;
    const int64_t checks = std::min<int64_t>(total, 256);
    for (int64_t t = 0; t < checks; ++t) {
      int64_t idx = checks == total ? t : (t * 2654435761LL + 12345) % total;
      if (t == checks - 1) idx = total - 1;  // always include the last corner
      const int64_t i = idx / n_, j = idx % n_;
      double want = 0, abs_sum = 0;
      for (int64_t k = 0; k < n_; ++k) {
        double p = static_cast<double>(a_[i * n_ + k]) * b_[k * n_ + j];
        want += p;
        abs_sum += std::fabs(p);
      }
      double tol = Gamma(n_ + 1) * abs_sum + 1e-30;
      if (std::fabs(c_[idx] - want) > tol)
        return ToolError(Mismatch(name_ + ": C[" + std::to_string(i) + "][" + std::to_string(j) + "]",
                                  c_[idx], want, tol));
    }
    return Status::Ok();
  }

 protected:
  std::string name_;
  int64_t n_;
  std::vector<float> a_, b_, c_;
};

// i-j-k: the inner loop walks B down a column (stride n), so it misses the
// cache on every step once a column no longer fits.
class SgemmNaiveKernel final : public SgemmBase {
 public:
  explicit SgemmNaiveKernel(int64_t n) : SgemmBase("sgemm_naive", n) {}
  void Run() override {
    const int64_t n = n_;
    const float* __restrict a = a_.data();
    const float* __restrict b = b_.data();
    float* __restrict c = c_.data();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int64_t k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
        c[i * n + j] = acc;
      }
    }
    EscapePointer(c);
    ClobberMemory();
  }
};

// c[0..len) += a * b[0..len): unit stride, no aliasing, vectorisable.
inline void AxpyRow(float* __restrict c, const float* __restrict b, float a, int64_t len) {
  for (int64_t j = 0; j < len; ++j) c[j] += a * b[j];
}
// Same with a compile-time length, so -O2's cheap vectoriser needs no epilogue.
template <int64_t kLen>
inline void AxpyRowFixed(float* __restrict c, const float* __restrict b, float a) {
  for (int64_t j = 0; j < kLen; ++j) c[j] += a * b[j];
}

// Cache-blocked i-k-j: a kBlockK x kBlockJ panel of B (128 KiB) stays in L2
// while kBlockI rows of A stream over it; the inner loop is a unit-stride
// axpy over a row of C. Each C element still accumulates its k terms in
// ascending order, like the naive kernel.
class SgemmBlockedKernel final : public SgemmBase {
 public:
  explicit SgemmBlockedKernel(int64_t n) : SgemmBase("sgemm_blocked", n) {}
  void Run() override {
    const int64_t n = n_;
    std::fill(c_.begin(), c_.end(), 0.0f);
    const float* a = a_.data();
    const float* b = b_.data();
    float* c = c_.data();
    for (int64_t jj = 0; jj < n; jj += kBlockJ) {
      const int64_t bj = std::min(kBlockJ, n - jj);
      for (int64_t kk = 0; kk < n; kk += kBlockK) {
        const int64_t kend = std::min(kk + kBlockK, n);
        for (int64_t ii = 0; ii < n; ii += kBlockI) {
          const int64_t iend = std::min(ii + kBlockI, n);
          for (int64_t i = ii; i < iend; ++i) {
            float* crow = c + i * n + jj;
            for (int64_t k = kk; k < kend; ++k) {
              const float aik = a[i * n + k];
              const float* brow = b + k * n + jj;
              if (bj == kBlockJ) {
                AxpyRowFixed<kBlockJ>(crow, brow, aik);
              } else {
                AxpyRow(crow, brow, aik, bj);
              }
            }
          }
        }
      }
    }
    EscapePointer(c);
    ClobberMemory();
  }

 private:
  static constexpr int64_t kBlockI = 64;
  static constexpr int64_t kBlockK = 128;
  static constexpr int64_t kBlockJ = 256;
};

bool IsGemm(const std::string& name) { return IsBuiltinGemm(name); }

}  // namespace

const std::vector<std::string>& CpuKernelNames() {
  static const std::vector<std::string> kNames = {"copy",   "triad",       "saxpy",
                                                  "reduce", "sgemm_naive", "sgemm_blocked"};
  return kNames;
}

int64_t DefaultKernelSize(const std::string& kernel) {
  return IsGemm(kernel) ? kDefaultGemmN : kDefaultStreamN;
}

Result<std::unique_ptr<CpuKernel>> MakeCpuKernel(const std::string& name,
                                                 const std::map<std::string, int64_t>& sizes) {
  const auto& names = CpuKernelNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    return InputError("unknown builtin kernel '" + name + "'" + DidYouMean(name, names));
  }
  int64_t n = DefaultKernelSize(name);
  if (auto it = sizes.find("n"); it != sizes.end()) n = it->second;
  if (n <= 0) return InputError("kernel " + name + ": size n must be positive, got " + std::to_string(n));
  // Buffer bytes: 3 arrays of n floats, or 3 matrices of n*n floats (the
  // suite reader refuses such a size at load already).
  if (std::optional<std::string> problem = BuiltinSizeProblem(name, n))
    return InputError("kernel " + name + ": size " + *problem);
  std::unique_ptr<CpuKernel> k;
  if (name == "copy") k = std::make_unique<CopyKernel>(n);
  else if (name == "triad") k = std::make_unique<TriadKernel>(n);
  else if (name == "saxpy") k = std::make_unique<SaxpyKernel>(n);
  else if (name == "reduce") k = std::make_unique<ReduceKernel>(n);
  else if (name == "sgemm_naive") k = std::make_unique<SgemmNaiveKernel>(n);
  else k = std::make_unique<SgemmBlockedKernel>(n);
  return k;
}

}  // namespace gpugate
