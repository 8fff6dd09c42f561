// The real nvcc builds in tests/data/cubins (see the README there), for the
// static-lane tests: their path and their bytes.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "util/fs.h"

namespace gpugate::testing {

inline std::string CubinDataPath(const std::string& file) {
  return std::string(GPUGATE_SOURCE_DIR) + "/tests/data/cubins/" + file;
}

inline std::string LoadCubinData(const std::string& file) {
  Result<std::string> bytes = ReadFile(CubinDataPath(file));
  EXPECT_TRUE(bytes.ok()) << file;
  return bytes.ok() ? *bytes : std::string();
}

}  // namespace gpugate::testing
