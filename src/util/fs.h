// File helpers: bounded whole-file reads (no input can make gpugate read
// without end), temporary folders and path parts. Writes (atomic, locked, in
// place) are in util/file_write.h, included here for WriteFileAtomic's callers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/file_write.h"
#include "util/result.h"

namespace gpugate {

/// What an input file holds, for its size limit (docs/safety.md "Inputs").
enum class InputKind {
  kData,    ///< JSON (results, baselines, benchmark files), traces, sample files
  kConfig,  ///< suite and policy YAML: parsed into a tree that costs far more than its bytes
};

/// Default size limits. GPUGATE_MAX_INPUT_BYTES, when set, replaces both.
inline constexpr int64_t kDefaultMaxDataBytes = int64_t{256} << 20;   // 256 MiB
inline constexpr int64_t kDefaultMaxConfigBytes = int64_t{16} << 20;  // 16 MiB
/// The environment variable that sets the input size limit (bytes, or with
/// a K, M, G suffix for KiB, MiB, GiB).
inline constexpr const char* kMaxInputBytesVariable = "GPUGATE_MAX_INPUT_BYTES";

/// The size limit for inputs of `kind`. Error (exit 2) when
/// GPUGATE_MAX_INPUT_BYTES is set to something that is not a positive size.
Result<int64_t> MaxInputBytes(InputKind kind);

/// "the 256 MiB input limit (set GPUGATE_MAX_INPUT_BYTES)".
std::string InputLimitText(int64_t limit);

/// The input error for a file that cannot be opened ("PATH: cannot open:
/// REASON"), the one wording of every reader; for "-", which names no file
/// here, it says how to read standard input.
Error CannotOpen(const std::string& path, int err);
/// "FILE: larger than the 256 MiB input limit (set GPUGATE_MAX_INPUT_BYTES)".
Error InputTooLarge(const std::string& path, int64_t limit);

/// Reads a whole file of at most MaxInputBytes(kind) bytes. A regular file
/// larger than that is refused before reading; anything else (a FIFO,
/// /dev/stdin, /dev/zero) is read as a stream and refused after limit + 1
/// bytes, so no input is read forever. Errors (exit 2) name the path and the
/// OS reason or the limit.
Result<std::string> ReadFile(const std::string& path, InputKind kind = InputKind::kData);

/// Whether `path` names a regular file (following links). False when it does
/// not exist.
bool IsRegularFile(const std::string& path);

/// ReadFile for a file a workload names or writes (a static workload's
/// binary, a ptxas log, a command's results file): only a regular file. A
/// FIFO would block the run until something writes to it, a device might
/// never end: "PATH: not a regular file (a FIFO, device or folder)".
Result<std::string> ReadWorkloadFile(const std::string& path);

/// A fresh folder under the system's temporary directory
/// ("<tmp>/<prefix>-XXXXXX"), removed with its contents when the object goes
/// out of scope, or by RemoveLiveTemps() when gpugate ends by a signal
/// without unwinding. path() is empty when it could not be created.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int slot_ = -1;  ///< its slot in the registry a signal handler reads
};

/// A temporary file that RemoveLiveTemps() removes if gpugate ends by a
/// signal before Release(): a staged write's "<target>.tmp.<pid>.XXXXXX"
/// until it is renamed into place or removed. Release() (or destruction)
/// only forgets the file; it never removes it.
class LiveTempFile {
 public:
  LiveTempFile() = default;
  explicit LiveTempFile(const std::string& path);
  ~LiveTempFile() { Release(); }
  LiveTempFile(LiveTempFile&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  LiveTempFile& operator=(LiveTempFile&& other) noexcept;
  LiveTempFile(const LiveTempFile&) = delete;
  LiveTempFile& operator=(const LiveTempFile&) = delete;
  void Release();

 private:
  int slot_ = -1;  ///< its slot in the registry a signal handler reads
};

/// Removes the folder of every TempDir and the file of every LiveTempFile
/// that exists now (for a process about to end without running destructors:
/// an interrupt, harness/interrupt.h).
void RemoveLiveTemps();

/// The same from a signal handler, with async-signal-safe calls only (the
/// folders' files, then the folders; the files).
void RemoveLiveTempsFromSignal();

/// File name without folders and the last extension: "a/b/suite.yaml" -> "suite".
std::string FileStem(const std::string& path);
/// The name of an input file without its extensions: "perf.json" and
/// "perf.json.gz" -> "perf" (a compressed file is the same suite).
std::string DataFileStem(const std::string& path);
/// The name of a program as a benchmark tool recorded it (argv[0]): its
/// whole base name after the last '/' or '\\' (a Windows path; separators
/// at the end are dropped first), without a ".exe" suffix, or "" when the
/// path holds none ("", "/"); dots are part of a program's name
/// ("bin/nvbench.example.axes" -> "nvbench.example.axes",
/// "C:\\build\\bench_core.exe" -> "bench_core").
std::string ProgramName(const std::string& path);
/// Folder part of a path ("." when none).
std::string DirName(const std::string& path);

}  // namespace gpugate
