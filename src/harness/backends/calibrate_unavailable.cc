// GPU calibration in a build without CUDA: a clear reason, never a number.
#ifndef GPUGATE_HAVE_CUDA

#include "harness/calibrate.h"

namespace gpugate {

std::optional<std::string> GpuCalibrationUnavailable() {
  return std::string("gpugate was built without CUDA");
}

Result<DeviceProfile> CalibrateGpu(int /*device*/) {
  return ToolError("calibrate: gpugate was built without CUDA");
}

}  // namespace gpugate

#endif  // GPUGATE_HAVE_CUDA
