// CollectKernelMetrics with the CUPTI range profiler (cupti_range_profiler.h)
// and the Profiler Host API: auto range (one range per kernel launch),
// kernel replay (CUPTI replays each kernel for every pass), one nesting
// level. The host object that builds the configuration is created for the
// device's own chip and counter availability; the same object evaluates the
// decoded counter data into metric values. Not verified on hardware.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cupti/cupti_text.h"
#include "metrics/range_profiler.h"

namespace gpugate {

namespace {

Error Fail(const char* call, CUptiResult r) { return ToolError(std::string(call) + " failed: " + CuptiText(r)); }

#define GPUGATE_CUPTI_CALL(call, params)                 \
  do {                                                   \
    if (CUptiResult r_ = call(&(params)); r_ != CUPTI_SUCCESS) \
      return Fail(#call, r_);                             \
  } while (0)

// The current context of the calling thread, through the runtime's driver
// entry point (gpugate does not link libcuda: it must start without a driver).
Result<CUcontext> CurrentContext() {
  using GetCurrentFn = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &status);
  if (e != cudaSuccess || fn == nullptr || status != cudaDriverEntryPointSuccess)
    return ToolError(std::string("cannot find cuCtxGetCurrent in the CUDA driver: ") + cudaGetErrorString(e));
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCurrentFn>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    return ToolError("no current CUDA context to profile");
  return ctx;
}

// Owns the profiler session's objects; releases them in reverse order.
class Session {
 public:
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (profiler_ != nullptr) {
      auto p = Params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      p.pRangeProfilerObject = profiler_;
      (void)cuptiRangeProfilerDisable(&p);
    }
    if (host_ != nullptr) {
      auto p = Params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
      p.pHostObject = host_;
      (void)cuptiProfilerHostDeinitialize(&p);
    }
    if (initialized_) {
      auto p = Params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
      (void)cuptiProfilerDeInitialize(&p);
    }
  }

  Result<MetricCollection> Run(int device, const std::vector<std::string>& metrics,
                               const std::function<Status()>& launch, size_t max_ranges) {
    if (metrics.empty()) return MetricCollection{};
    if (max_ranges == 0) max_ranges = 1;
    if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
      return ToolError(std::string("cudaSetDevice: ") + cudaGetErrorString(e));
    if (cudaError_t e = cudaFree(nullptr); e != cudaSuccess)  // creates the primary context
      return ToolError(std::string("cannot create a CUDA context: ") + cudaGetErrorString(e));
    Result<CUcontext> ctx = CurrentContext();
    if (!ctx.ok()) return ctx.error();

    auto init = Params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    GPUGATE_CUPTI_CALL(cuptiProfilerInitialize, init);
    initialized_ = true;

    MetricCollection out;
    auto chip = Params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = static_cast<size_t>(device);
    GPUGATE_CUPTI_CALL(cuptiDeviceGetChipName, chip);
    out.chip = chip.pChipName != nullptr ? chip.pChipName : "";

    auto avail = Params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = *ctx;
    GPUGATE_CUPTI_CALL(cuptiProfilerGetCounterAvailability, avail);
    std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    GPUGATE_CUPTI_CALL(cuptiProfilerGetCounterAvailability, avail);

    auto host = Params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host.pChipName = out.chip.c_str();
    host.pCounterAvailabilityImage = availability.data();
    GPUGATE_CUPTI_CALL(cuptiProfilerHostInitialize, host);
    host_ = host.pHostObject;

    std::vector<const char*> names;
    for (const std::string& m : metrics) names.push_back(m.c_str());
    auto add = Params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host_;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    GPUGATE_CUPTI_CALL(cuptiProfilerHostConfigAddMetrics, add);
    auto image_size = Params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    image_size.pHostObject = host_;
    GPUGATE_CUPTI_CALL(cuptiProfilerHostGetConfigImageSize, image_size);
    std::vector<uint8_t> config(image_size.configImageSize);
    auto image = Params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    image.pHostObject = host_;
    image.configImageSize = config.size();
    image.pConfigImage = config.data();
    GPUGATE_CUPTI_CALL(cuptiProfilerHostGetConfigImage, image);
    auto passes = Params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    passes.configImageSize = config.size();
    passes.pConfigImage = config.data();
    GPUGATE_CUPTI_CALL(cuptiProfilerHostGetNumOfPasses, passes);
    out.passes = passes.numOfPasses;

    auto enable = Params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = *ctx;
    GPUGATE_CUPTI_CALL(cuptiRangeProfilerEnable, enable);
    profiler_ = enable.pRangeProfilerObject;

    auto data_size = Params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    data_size.pRangeProfilerObject = profiler_;
    data_size.pMetricNames = names.data();
    data_size.numMetrics = names.size();
    data_size.maxNumOfRanges = max_ranges;
    data_size.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges);
    GPUGATE_CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize, data_size);
    std::vector<uint8_t> counter_data(data_size.counterDataSize);
    auto data_init = Params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    data_init.pRangeProfilerObject = profiler_;
    data_init.counterDataSize = counter_data.size();
    data_init.pCounterData = counter_data.data();
    GPUGATE_CUPTI_CALL(cuptiRangeProfilerCounterDataImageInitialize, data_init);

    auto set = Params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    set.pRangeProfilerObject = profiler_;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = counter_data.size();
    set.pCounterDataImage = counter_data.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = max_ranges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    GPUGATE_CUPTI_CALL(cuptiRangeProfilerSetConfig, set);

    auto start = Params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = profiler_;
    GPUGATE_CUPTI_CALL(cuptiRangeProfilerStart, start);
    Status launched = launch();
    cudaError_t synced = cudaDeviceSynchronize();
    auto stop = Params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = profiler_;
    GPUGATE_CUPTI_CALL(cuptiRangeProfilerStop, stop);
    if (!launched.ok()) return launched.error();
    if (synced != cudaSuccess) return ToolError(std::string("profiled launch: ") + cudaGetErrorString(synced));

    auto decode = Params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = profiler_;
    GPUGATE_CUPTI_CALL(cuptiRangeProfilerDecodeData, decode);
    out.dropped_ranges = decode.numOfRangeDropped;

    auto info = Params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    GPUGATE_CUPTI_CALL(cuptiRangeProfilerGetCounterDataInfo, info);
    for (size_t i = 0; i < info.numTotalRanges; ++i) {
      auto range = Params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
          CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
      range.pCounterDataImage = counter_data.data();
      range.counterDataImageSize = counter_data.size();
      range.rangeIndex = i;
      range.rangeDelimiter = "/";
      GPUGATE_CUPTI_CALL(cuptiRangeProfilerCounterDataGetRangeInfo, range);
      std::vector<double> values(names.size(), 0.0);
      auto eval = Params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
          CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
      eval.pHostObject = host_;
      eval.pCounterDataImage = counter_data.data();
      eval.counterDataImageSize = counter_data.size();
      eval.rangeIndex = i;
      eval.ppMetricNames = names.data();
      eval.numMetrics = names.size();
      eval.pMetricValues = values.data();
      GPUGATE_CUPTI_CALL(cuptiProfilerHostEvaluateToGpuValues, eval);
      MetricRange r;
      r.name = range.rangeName != nullptr ? range.rangeName : "range " + std::to_string(i);
      for (size_t m = 0; m < metrics.size(); ++m) r.values[metrics[m]] = values[m];
      out.ranges.push_back(std::move(r));
    }
    return out;
  }

 private:
  bool initialized_ = false;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  CUpti_RangeProfiler_Object* profiler_ = nullptr;
};

}  // namespace

Result<MetricCollection> CollectKernelMetrics(int device, const std::vector<std::string>& metrics,
                                              const std::function<Status()>& launch, size_t max_ranges) {
  Session session;
  return session.Run(device, metrics, launch, max_ranges);
}

}  // namespace gpugate
