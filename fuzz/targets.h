// The fuzz targets, one per reader: each feeds its input to the same parse
// function the CLI uses and checks what every reader owes its callers beyond
// "does not crash". Built into the libFuzzer binaries (entry.cc, with
// GPUGATE_FUZZ=ON) and into gpugate_tests, which replays
// tests/data/fuzz_regressions/<target>/ through them. docs/fuzzing.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace gpugate::fuzz {

struct Target {
  const char* name;  ///< also the folder of its regression inputs
  /// Runs one input; aborts (a crash libFuzzer records) when a check fails.
  void (*run)(const uint8_t* data, size_t size);
};

/// Every target, in a fixed order.
const std::vector<Target>& Targets();

/// The target called `name`, or nullptr.
const Target* FindTarget(std::string_view name);

}  // namespace gpugate::fuzz
