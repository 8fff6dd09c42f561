// Backend "cuda": the builtin kernels on an NVIDIA GPU, timed with CUDA
// events (implementation in cuda_backend.cu, built only with CUDA). This
// header is plain C++ and includes no CUDA headers; without CUDA,
// cuda_unavailable.cc provides the same functions and every workload is
// unsupported with the reason "gpugate was built without CUDA".
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "harness/backend.h"
#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Creates the CUDA backend. Cheap: the device is probed on first use. When
/// no device can be used its Unsupported() says why ("no CUDA device: ...").
std::unique_ptr<Backend> MakeCudaBackend();

/// nullopt when a CUDA device can run workloads here, else the reason
/// ("no CUDA device: CUDA driver version is insufficient ...").
std::optional<std::string> CudaUnavailableReason();

/// Environment fingerprint of CUDA device `device_index`: name, compute
/// capability, driver and runtime versions, SM count, clocks, memory, L2, and
/// (from NVML when libnvidia-ml.so.1 loads) ECC, MIG and UUID.
/// A kToolError when no device is usable.
Result<GpuInfo> QueryCudaGpuInfo(int device_index = 0);

}  // namespace gpugate
