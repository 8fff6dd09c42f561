#include "model/static_code.h"

#include <map>
#include <string>

namespace gpugate {

bool SameStaticCode(const WorkloadResult& a, const WorkloadResult& b) {
  if (a.status != WorkloadStatus::kOk || b.status != WorkloadStatus::kOk) return false;
  if (!IsStaticResult(a) || !IsStaticResult(b)) return false;
  // SASS that was found but not read (a limit, a corrupt entry) may differ.
  for (const WorkloadResult* w : {&a, &b})
    if (auto it = w->counters.find(kSassNotInspectedCounter); it != w->counters.end() && it->second > 0) return false;
  if (a.kernels.size() != b.kernels.size() || a.kernels.empty()) return false;
  std::map<std::string, std::string> hashes;
  for (const KernelResult& k : a.kernels) {
    auto it = k.attributes.find(kSassHashAttribute);
    if (it == k.attributes.end()) return false;
    hashes[k.name] = it->second;
  }
  if (hashes.size() != a.kernels.size()) return false;  // a name twice: not a result gpugate wrote
  for (const KernelResult& k : b.kernels) {
    auto it = k.attributes.find(kSassHashAttribute);
    auto have = hashes.find(k.name);
    if (it == k.attributes.end() || have == hashes.end() || have->second != it->second) return false;
  }
  return true;
}

}  // namespace gpugate
