// The profiler's CUDA parts on a device (ctest label gpu): event-timed
// scopes and the device memory sampler. Without a device every test skips
// and says why.
#include <gpugate/profiler.h>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <thread>

namespace gpugate {
namespace {

bool HaveDevice() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

TEST(ProfilerGpuTest, CudaScopesTimeStreamWork) {
  if (!HaveDevice()) GTEST_SKIP() << "no CUDA device: event-timed scopes not run";
  Profiler profiler;
  void* buffer = nullptr;
  ASSERT_EQ(cudaMalloc(&buffer, 64 << 20), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (int i = 0; i < 10; ++i) {
    auto s = profiler.ScopeCuda("memset", stream);
    EXPECT_TRUE(s.active());
    cudaMemsetAsync(buffer, i, 64 << 20, stream);
  }
  profiler.Synchronize();
  const std::vector<OperationStats> ops = profiler.Operations();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].backend, ProfileBackend::kCuda);
  EXPECT_EQ(ops[0].count, 10);
  EXPECT_GT(ops[0].min, 0.0);
  EXPECT_EQ(profiler.cuda_errors(), 0);
  cudaStreamDestroy(stream);
  cudaFree(buffer);
}

TEST(ProfilerGpuTest, ScopesOnABusyStreamLeaveNoErrorForTheProgram) {
  if (!HaveDevice()) GTEST_SKIP() << "no CUDA device: event-timed scopes not run";
  Profiler profiler;
  void* buffer = nullptr;
  ASSERT_EQ(cudaMalloc(&buffer, 256 << 20), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  // Each scope begins while the one before is still running on the device:
  // the event query says cudaErrorNotReady, which must not become the
  // program's last error nor drop the next scope.
  for (int i = 0; i < 20; ++i) {
    auto s = profiler.ScopeCuda("memset", stream);
    cudaMemsetAsync(buffer, i, 256 << 20, stream);
    s.Stop();
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "scope " << i;
  }
  profiler.Synchronize();
  const std::vector<OperationStats> ops = profiler.Operations();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].count, 20);
  EXPECT_EQ(profiler.cuda_errors(), 0);
  cudaStreamDestroy(stream);
  cudaFree(buffer);
}

TEST(ProfilerGpuTest, ScopesOnStreamsOfTwoDevicesAreTimed) {
  int count = 0;
  if (!HaveDevice() || cudaGetDeviceCount(&count) != cudaSuccess || count < 2)
    GTEST_SKIP() << "fewer than two CUDA devices: one event pool per device not run";
  Profiler profiler;
  void* buffers[2] = {nullptr, nullptr};
  cudaStream_t streams[2] = {nullptr, nullptr};
  for (int d = 0; d < 2; ++d) {
    ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&buffers[d], 16 << 20), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&streams[d]), cudaSuccess);
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);  // device 1's scopes begin with device 0 current
  for (int i = 0; i < 10; ++i)
    for (int d = 0; d < 2; ++d) {
      auto s = profiler.ScopeCuda(d == 0 ? "dev0" : "dev1", streams[d]);
      EXPECT_TRUE(s.active());
      cudaSetDevice(d);
      cudaMemsetAsync(buffers[d], i, 16 << 20, streams[d]);
      cudaSetDevice(0);
    }
  profiler.Synchronize();
  EXPECT_EQ(profiler.cuda_errors(), 0);
  for (const OperationStats& op : profiler.Operations()) EXPECT_EQ(op.count, 10) << op.name;
  for (int d = 0; d < 2; ++d) {
    cudaSetDevice(d);
    cudaStreamDestroy(streams[d]);
    cudaFree(buffers[d]);
  }
}

TEST(ProfilerGpuTest, MemorySamplerSeesAnAllocation) {
  if (!HaveDevice()) GTEST_SKIP() << "no CUDA device: memory sampler not run";
  GpuMemorySampler sampler;
  std::string error;
  ASSERT_TRUE(sampler.Start(std::chrono::milliseconds(1), &error)) << error;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const int64_t before = sampler.PeakUsedBytes();
  void* buffer = nullptr;
  ASSERT_EQ(cudaMalloc(&buffer, 256 << 20), cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  sampler.Stop();
  cudaFree(buffer);
  EXPECT_GE(sampler.PeakUsedBytes(), before + (256 << 20));
  Profiler profiler;
  sampler.ExportTo(profiler);
  EXPECT_NE(profiler.ResultsJson().find("\"used_bytes\""), std::string::npos);
}

TEST(ProfilerGpuTest, MemorySamplerFailsWithoutADevice) {
  if (HaveDevice()) GTEST_SKIP() << "a CUDA device is present: the no-device path is not reachable";
  GpuMemorySampler sampler;
  std::string error;
  EXPECT_FALSE(sampler.Start(std::chrono::milliseconds(1), &error));
  EXPECT_EQ(error, "no CUDA device");
}

TEST(ProfilerGpuTest, CudaScopesWithoutADeviceAreInactiveAndCounted) {
  if (HaveDevice()) GTEST_SKIP() << "a CUDA device is present: the no-device path is not reachable";
  Profiler profiler;
  {
    auto s = profiler.ScopeCuda("k", nullptr);
    EXPECT_FALSE(s.active());
  }
  EXPECT_EQ(profiler.cuda_errors(), 1);
  EXPECT_TRUE(profiler.Operations().empty());
}

}  // namespace
}  // namespace gpugate
