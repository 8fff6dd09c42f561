// The environment fingerprint of this machine and the run metadata (git, time).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "model/results.h"
#include "util/result.h"

namespace gpugate {

/// Host, OS, CPU model, cores, governor, compiler, and the runner class the
/// process environment names (RunnerClassFromVariables over getenv). GPU
/// fields are left null; the CUDA backend fills them when it finds a device.
Environment DetectEnvironment();

/// "Quadro GV100, cc 7.0, 80 SMs, SM 1627 MHz, memory 850 MHz, ECC off": the
/// numbers that make two GPUs of one name run at other speeds. A run of
/// several GPUs (an nvbench file, a trace) keeps one per device it measured
/// in run.source_context["gpu_device.<id>"], compared device by device.
std::string GpuFingerprint(const GpuInfo& gpu);
inline constexpr const char* kGpuDeviceContextPrefix = "gpu_device.";

/// The runner class the process environment names: GPUGATE_ENV_KEY when set
/// and not empty; on a GitHub-hosted runner (GITHUB_ACTIONS=true, ImageOS
/// set) "<RUNNER_OS>-<RUNNER_ARCH>-<ImageOS>", e.g. "linux-x64-ubuntu24";
/// otherwise null (self-hosted and local machines name their class with
/// --env-key, or keep the CPU/GPU key). `get` returns a variable or nullptr.
/// The value is a slug (Slug in model/baseline.h).
std::optional<std::string> RunnerClassFromVariables(const std::function<const char*(const char*)>& get);

/// Checks a runner class a user names (--env-key): at least one letter or
/// digit. Returns its slug, the form stored in results and file names.
Result<std::string> ParseRunnerClass(const std::string& text);

/// Tool version, UTC time, run id, git sha/branch/dirty when the working
/// directory is inside a git repository (read without running a shell).
RunInfo MakeRunInfo(const std::string& suite_name);

/// Current UTC time as ISO-8601 ("2026-11-21T23:59:00Z") and as ns since epoch.
std::string UtcNowIso8601();
int64_t UnixNowNs();

/// Git state of the repository that contains `dir`.
struct GitState {
  std::optional<std::string> sha;     ///< commit HEAD points at; null if unborn
  std::optional<std::string> branch;  ///< "main"; null when HEAD is detached
  std::optional<bool> dirty;          ///< tracked files modified; null if unknown
};

/// Finds the nearest `.git` (folder, or file holding "gitdir: PATH") at or
/// above `dir` and reads HEAD, loose refs and packed-refs directly, without a
/// shell. With `check_dirty`, runs `git status --porcelain
/// --untracked-files=no` (argv, no shell); dirty stays null when git is not
/// installed or fails. All fields are null outside a repository.
GitState ReadGitState(const std::string& dir, bool check_dirty);

/// CPU model named by /proc/cpuinfo text: "model name" (x86), else "Hardware"
/// (ARM), else "cpu model" (MIPS), "Processor" or "cpu" (POWER); "" if none.
std::string CpuModelFromCpuinfo(std::string_view cpuinfo);

}  // namespace gpugate
