// The CUDA backend's entry points in a build without CUDA: the backend exists
// (so `--backend cuda` gives a clear reason) but supports nothing.
#ifndef GPUGATE_HAVE_CUDA

#include "harness/backends/cuda_backend.h"

namespace gpugate {

namespace {

constexpr const char* kNoCuda = "gpugate was built without CUDA";

class UnavailableCudaBackend final : public Backend {
 public:
  std::string Name() const override { return "cuda"; }
  std::optional<std::string> Unsupported(const WorkloadSpec& /*spec*/) const override { return kNoCuda; }
  Result<std::unique_ptr<WorkloadInstance>> Prepare(const WorkloadSpec& /*spec*/) override {
    return ToolError(kNoCuda);
  }
};

}  // namespace

std::unique_ptr<Backend> MakeCudaBackend() { return std::make_unique<UnavailableCudaBackend>(); }

std::optional<std::string> CudaUnavailableReason() { return std::string(kNoCuda); }

Result<GpuInfo> QueryCudaGpuInfo(int /*device_index*/) { return ToolError(kNoCuda); }

}  // namespace gpugate

#endif  // GPUGATE_HAVE_CUDA
