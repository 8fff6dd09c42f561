// File helpers: whole-file reads, temporary folders and path parts. Writes
// (atomic, locked, in place) are in util/file_write.h, included here for the
// callers of WriteFileAtomic.
#pragma once

#include <string>
#include <string_view>

#include "util/file_write.h"
#include "util/result.h"

namespace gpugate {

/// Reads a whole file. Error (exit 2) names the path and the OS reason.
Result<std::string> ReadFile(const std::string& path);

/// A fresh folder under the system's temporary directory
/// ("<tmp>/<prefix>-XXXXXX"), removed with its contents when the object goes
/// out of scope. path() is empty when it could not be created.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// File name without folders and the last extension: "a/b/suite.yaml" -> "suite".
std::string FileStem(const std::string& path);
/// Folder part of a path ("." when none).
std::string DirName(const std::string& path);

}  // namespace gpugate
