#include "model/static_code.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace gpugate {

namespace {

// "name #3" -> "name", 3; "name" -> "name", 1.
std::pair<std::string, int> SplitNumber(const std::string& name) {
  const size_t hash = name.rfind(" #");
  if (hash == std::string::npos || hash + 2 >= name.size() || name.size() - hash - 2 > 6 ||
      name.find_first_not_of("0123456789", hash + 2) != std::string::npos || name[hash + 2] == '0')
    return {name, 1};
  return {name.substr(0, hash), std::stoi(name.substr(hash + 2))};
}

std::string HashOf(const KernelResult& k) {
  auto it = k.attributes.find(kSassHashAttribute);
  return it == k.attributes.end() ? std::string() : it->second;
}

}  // namespace

void PairNumberedKernels(const WorkloadResult& base, WorkloadResult* current) {
  if (!IsStaticResult(base) || !IsStaticResult(*current)) return;
  // Numbered groups: the kernels of one base name, by number.
  struct Group {
    std::map<int, const KernelResult*> base;
    std::map<int, KernelResult*> current;
  };
  std::map<std::string, Group> groups;
  for (const KernelResult& k : base.kernels) {
    auto [name, n] = SplitNumber(k.name);
    groups[name].base[n] = &k;
  }
  for (KernelResult& k : current->kernels) {
    auto [name, n] = SplitNumber(k.name);
    groups[name].current[n] = &k;
  }
  for (auto& entry : groups) {
    const std::string& name = entry.first;
    Group& g = entry.second;
    if (g.base.size() < 2 && g.current.size() < 2) continue;
    if (g.base.empty() || g.current.empty()) continue;
    auto numbered = [&name](int n) { return n == 1 ? name : name + " #" + std::to_string(n); };
    std::map<KernelResult*, int> to;  // current kernel -> the base number it takes
    std::set<int> used;
    // The same code first, in number order on both sides.
    for (auto& [cn, ck] : g.current) {
      const std::string h = HashOf(*ck);
      if (h.empty()) continue;
      for (const auto& [bn, bk] : g.base)
        if (!used.count(bn) && HashOf(*bk) == h) {
          to[ck] = bn;
          used.insert(bn);
          break;
        }
    }
    // Then a changed one whose masked mangled name is one baseline kernel's
    // alone, on each side.
    auto stable_of = [](const KernelResult& k) {
      auto it = k.attributes.find(kStableMangledNameAttribute);
      return it == k.attributes.end() ? std::string() : it->second;
    };
    std::map<std::string, int> base_count, current_count;
    for (const auto& [bn, bk] : g.base) ++base_count[stable_of(*bk)];
    for (const auto& [cn, ck] : g.current) ++current_count[stable_of(*ck)];
    for (auto& [cn, ck] : g.current) {
      const std::string key = stable_of(*ck);
      if (to.count(ck) || key.empty() || current_count[key] != 1 || base_count[key] != 1) continue;
      for (const auto& [bn, bk] : g.base)
        if (!used.count(bn) && stable_of(*bk) == key) {
          to[ck] = bn;
          used.insert(bn);
          break;
        }
    }
    // Then the changed ones, in order, to the names left.
    auto next = g.base.begin();
    for (auto& [cn, ck] : g.current) {
      if (to.count(ck)) continue;
      while (next != g.base.end() && used.count(next->first)) ++next;
      if (next != g.base.end()) {
        to[ck] = next->first;
        used.insert(next->first);
      }
    }
    // Any more (every baseline name is taken then): the next numbers.
    int fresh = 1;
    for (auto& [cn, ck] : g.current)
      if (!to.count(ck)) {
        while (used.count(fresh)) ++fresh;
        to[ck] = fresh;
        used.insert(fresh);
      }
    for (auto& [ck, n] : to) ck->name = numbered(n);
  }
}

bool SameStaticCode(const WorkloadResult& a, const WorkloadResult& b) {
  if (a.status != WorkloadStatus::kOk || b.status != WorkloadStatus::kOk) return false;
  if (!IsStaticResult(a) || !IsStaticResult(b)) return false;
  // SASS that was found but not read (a limit, a corrupt entry) may differ.
  for (const WorkloadResult* w : {&a, &b})
    if (auto it = w->counters.find(kSassNotInspectedCounter); it != w->counters.end() && it->second > 0) return false;
  if (a.kernels.size() != b.kernels.size() || a.kernels.empty()) return false;
  // Numbered kernels are paired by their code first (PairNumberedKernels).
  WorkloadResult paired;
  const WorkloadResult* other = &b;
  if (std::any_of(b.kernels.begin(), b.kernels.end(), [](const KernelResult& k) { return k.name.find(" #") != std::string::npos; }) ||
      std::any_of(a.kernels.begin(), a.kernels.end(), [](const KernelResult& k) { return k.name.find(" #") != std::string::npos; })) {
    paired = b;
    PairNumberedKernels(a, &paired);
    other = &paired;
  }
  const WorkloadResult& bb = *other;
  std::map<std::string, std::string> hashes;
  for (const KernelResult& k : a.kernels) {
    auto it = k.attributes.find(kSassHashAttribute);
    if (it == k.attributes.end()) return false;
    hashes[k.name] = it->second;
  }
  if (hashes.size() != a.kernels.size()) return false;  // a name twice: not a result gpugate wrote
  for (const KernelResult& k : bb.kernels) {
    auto it = k.attributes.find(kSassHashAttribute);
    auto have = hashes.find(k.name);
    if (it == k.attributes.end() || have == hashes.end() || have->second != it->second) return false;
  }
  return true;
}

}  // namespace gpugate
