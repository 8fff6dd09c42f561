// Writing files so that they are never lost, half-written or replaced
// wrongly (docs/safety.md "Files"):
// - a regular file (or a new one) is replaced atomically: the bytes go to a
//   temp file "<target>.tmp.<pid>.XXXXXX" beside it, held under flock while
//   written, fsynced, renamed over the target, and the folder is fsynced; a
//   reader or a killed writer sees the old or the new file, never a mix;
// - temp files left by killed writers (nobody holds their lock) are removed
//   by the next write of the same target;
// - a symlink is followed: its target is replaced and the link stays;
// - devices, FIFOs and sockets are written in place, never replaced;
// - "-", /dev/stdout, /dev/fd/1 and /proc/self/fd/1 go through std::cout
//   (and /dev/stderr, /dev/fd/2, /proc/self/fd/2 through std::cerr), so the
//   console guards (util/text/workflow_guard.h) see them;
// - a failed write (EFBIG, ENOSPC, EIO, EDQUOT...) is a ToolError naming the
//   path and the reason; the old file stays and the temp file is removed.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace gpugate {

/// Writes `bytes` to `path` as described above. Errors are ToolErrors (exit 3)
/// that start with the path.
Status WriteFileAtomic(const std::string& path, std::string_view bytes);

/// Writes several files as one: each regular file (path, bytes) goes to a
/// temp file beside it, then standard output and devices are written, and
/// only when all of that succeeded are the temps renamed into place. A
/// failure (disk full, a file size limit, /dev/full) replaces none of the
/// files: no report is left saying what the others could not.
Status WriteFilesAtomic(const std::vector<std::pair<std::string, std::string>>& files);

/// Appends `bytes` to `path` (created 0644 when missing) under an exclusive
/// flock on it, so appenders that lock do not interleave
/// ($GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT). Waits at most `lock_timeout_s`
/// seconds for the lock. `what` names the file in errors.
Status AppendToFileLocked(const std::string& path, std::string_view bytes, const std::string& what,
                          double lock_timeout_s = 60);

/// "-" and the names of standard output (/dev/stdout, /dev/fd/1,
/// /proc/self/fd/1).
bool IsStdoutPath(const std::string& path);

/// `path` with a symlink in its last component followed (repeatedly, also
/// when the final target does not exist yet); `path` itself when it is not a
/// symlink. Relative link targets are taken relative to the link's folder.
std::string ResolveFinalSymlinks(const std::string& path);

/// Removes temp files "<target>.tmp.<pid>.XXXXXX" (and the older
/// "<target>.tmp.XXXXXX") of `target` whose flock can be taken: their writer
/// is dead. Returns how many were removed. WriteFileAtomic calls it.
int RemoveStaleTempFiles(const std::string& target);

/// An exclusive flock held on a file until destruction. The file is created
/// when missing and removed when the lock is let go (while still held), so
/// none is left beside what it guards; a waiter that locked a file which was
/// removed meanwhile tries again on the file now at the path.
class FileLock {
 public:
  /// Takes the lock on `path`, waiting at most `timeout_s` seconds (0: one
  /// try). A timeout is a ToolError naming the path and the wait, followed
  /// by `timeout_hint` in parentheses when given.
  static Result<FileLock> Acquire(const std::string& path, double timeout_s,
                                  const std::string& timeout_hint = "");
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  FileLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void Release();
  int fd_ = -1;
  std::string path_;  // removed on release
};

namespace detail {
/// Called right after a staged temp file is created, before it is in the
/// signal handler's cleanup list (tests: a signal in that window).
extern void (*g_temp_created_hook)();
}  // namespace detail

}  // namespace gpugate
