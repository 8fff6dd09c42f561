// A schema and a scope backed by maps, shared by the rule expression tests.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "rules/expr.h"

namespace gpugate::rules::testing {

/// Names as the rule engine will offer them for a kernel in its workload.
inline Schema TestSchema() {
  Schema s;
  s["kernel.duration"] = {Type::kNumber, Dim::Time(), "time per call", true, false, ""};
  s["kernel.bytes"] = {Type::kNumber, Dim::Bytes(), "bytes moved per call", true, false, ""};
  s["kernel.throughput"] = {Type::kNumber, Dim::Rate(), "achieved bandwidth", false, false, ""};
  s["kernel.grid_blocks"] = {Type::kNumber, Dim::Number(), "blocks per launch", false, false, ""};
  s["kernel.name"] = {Type::kString, {}, "kernel name", false, false, ""};
  s["kernel.regime"] = {Type::kString, {}, "roofline regime", false, false, ""};
  s["kernel"] = {Type::kNumber, Dim::Number(), "the kernels of a workload", false, true, ""};
  s["device.sms"] = {Type::kNumber, Dim::Number(), "streaming multiprocessors", false, false, ""};
  s["workload.cv"] = {Type::kNumber, Dim::Number(), "coefficient of variation", false, false, ""};
  s["trace.available"] = {Type::kBool, {}, "a trace was read", false, false, ""};
  s["trace.gpu_idle_pct"] = {Type::kNumber, Dim::Number(), "GPU idle fraction", false, false, ""};
  return s;
}

/// Values by name; names not in the map are unknown.
class MapScope : public Scope {
 public:
  std::map<std::string, Value, std::less<>> values;
  std::map<std::string, Value, std::less<>> shares;
  std::map<std::string, Value, std::less<>> counts;

  Value Lookup(std::string_view name) const override { return Get(values, name); }
  Value Share(std::string_view name) const override { return Get(shares, name); }
  Value Count(std::string_view name) const override { return Get(counts, name); }

 private:
  static Value Get(const std::map<std::string, Value, std::less<>>& m, std::string_view name) {
    auto it = m.find(name);
    return it == m.end() ? Value{} : it->second;
  }
};

}  // namespace gpugate::rules::testing
