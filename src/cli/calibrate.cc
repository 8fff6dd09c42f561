// `gpugate calibrate [-o PROFILE.json] [--cpu] [--device N]`: measure this
// device's achievable bandwidth, FLOP/s and launch overhead into a device
// profile (docs/kernels.md). A GPU when one is usable; the CPU with --cpu.
#include <cstdio>
#include <iostream>
#include <string>

#include "cli/command.h"
#include "harness/calibrate.h"
#include "model/device_profile.h"
#include "util/file_write.h"
#include "util/text/escape.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

std::string Summary(const DeviceProfile& p) {
  char buf[512];
  std::string fp16 = "not measured";
  if (p.peak_fp16_flops) {
    char f[32];
    std::snprintf(f, sizeof f, "%.3g GFLOP/s", *p.peak_fp16_flops * 1e-9);
    fp16 = f;
  }
  std::snprintf(buf, sizeof buf,
                "%s profile: bandwidth %.3g GB/s, FP32 %.3g GFLOP/s, FP16 %s, launch overhead %.3g us, "
                "ridge %.3g FLOP/B\n",
                p.kind == "cpu" ? "CPU" : "GPU", p.peak_bytes_per_second * 1e-9, p.peak_fp32_flops * 1e-9,
                fp16.c_str(), p.launch_overhead_s * 1e6, p.Ridge());
  return buf;
}

}  // namespace

int CalibrateCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("output,o", po::value<std::string>(), "device profile to write (atomically); default: print it on stdout")
      ("cpu", "measure the CPU (for the CPU backend) instead of a GPU")
      ("device", po::value<int>()->default_value(0), "CUDA device index to measure")
      ("threads", po::value<int>()->default_value(0),
       ("--cpu: threads (0 = every online CPU; at most 4 x the online CPUs, " +
        std::to_string(MaxCalibrationThreads()) + " here)").c_str());
  po::positional_options_description positional;
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;

  const bool cpu = vm.count("cpu") > 0;
  if (!cpu && vm["threads"].as<int>() != 0)
    return ReportError(InputError("--threads applies to --cpu only"));
  if (cpu && !vm["device"].defaulted())
    return ReportError(InputError("--device names a GPU; it cannot be used with --cpu"));
  const int threads = vm["threads"].as<int>();
  if (threads < 0 || threads > MaxCalibrationThreads())
    return ReportError(InputError("--threads must be from 0 to " + std::to_string(MaxCalibrationThreads()) +
                                  " (4 x the online CPUs), got " + std::to_string(threads)));
  // -o is checked before the measurement, which takes seconds.
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());
  Result<DeviceProfile> profile = ToolError("");
  if (cpu) {
    CpuCalibrationOptions o;
    o.threads = threads;
    std::cerr << "gpugate: calibrating the CPU (triad bandwidth, FP32 FMA FLOP/s)...\n";
    profile = CalibrateCpu(o);
  } else {
    if (auto why = GpuCalibrationUnavailable())
      return ReportError(InputError("calibrate: no GPU to measure (" + *why +
                                    "); use --cpu to calibrate this machine's CPU for the CPU backend"));
    std::cerr << "gpugate: calibrating GPU " << vm["device"].as<int>() << "...\n";
    profile = CalibrateGpu(vm["device"].as<int>());
  }
  if (!profile.ok()) return ReportError(profile.error());
  std::cerr << "gpugate: " << Summary(*profile);
  // The method says how the CPU was measured, and whether its arrays were capped.
  if (cpu) std::cerr << "gpugate: " << EscapeTerminal(profile->method) << "\n";
  const std::string json = DeviceProfileToJson(*profile);
  if (!vm.count("output")) {
    std::cout << json;
    return 0;
  }
  if (Status st = WriteFileAtomic(vm["output"].as<std::string>(), json); !st.ok())
    return ReportError(st.error());
  return 0;
}

}  // namespace gpugate
