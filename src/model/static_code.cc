#include "model/static_code.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

std::string_view AttributeOf(const KernelResult& k, const char* key) {
  auto it = k.attributes.find(key);
  return it == k.attributes.end() ? std::string_view() : std::string_view(it->second);
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
    // The same code first, in number order on both sides: each current
    // kernel takes the lowest base number of its hash not yet taken.
    std::map<std::string_view, std::vector<int>> base_of_hash;  // numbers, highest first
    for (auto it = g.base.rbegin(); it != g.base.rend(); ++it)
      if (std::string_view h = AttributeOf(*it->second, kSassHashAttribute); !h.empty())
        base_of_hash[h].push_back(it->first);
    for (auto& [cn, ck] : g.current) {
      auto same = base_of_hash.find(AttributeOf(*ck, kSassHashAttribute));
      if (same == base_of_hash.end() || same->first.empty() || same->second.empty()) continue;
      to[ck] = same->second.back();
      used.insert(same->second.back());
      same->second.pop_back();
    }
    // Then a changed one whose masked mangled name is one baseline kernel's
    // alone, on each side.
    std::map<std::string_view, std::pair<int, int>> base_of_stable;  // count, number
    std::map<std::string_view, int> current_count;
    for (const auto& [bn, bk] : g.base) {
      auto& [count, number] = base_of_stable[AttributeOf(*bk, kStableMangledNameAttribute)];
      ++count;
      number = bn;
    }
    for (const auto& [cn, ck] : g.current) ++current_count[AttributeOf(*ck, kStableMangledNameAttribute)];
    for (auto& [cn, ck] : g.current) {
      const std::string_view key = AttributeOf(*ck, kStableMangledNameAttribute);
      if (to.count(ck) || key.empty() || current_count[key] != 1) continue;
      auto base = base_of_stable.find(key);
      if (base == base_of_stable.end() || base->second.first != 1 || used.count(base->second.second)) continue;
      to[ck] = base->second.second;
      used.insert(base->second.second);
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
  std::map<std::string_view, const KernelResult*> by_name;
  for (const KernelResult& k : a.kernels) {
    if (AttributeOf(k, kSassHashAttribute).empty()) return false;
    by_name[k.name] = &k;
  }
  if (by_name.size() != a.kernels.size()) return false;  // a name twice: not a result gpugate wrote
  for (const KernelResult& k : bb.kernels) {
    auto have = by_name.find(k.name);
    const std::string_view hash = AttributeOf(k, kSassHashAttribute);
    if (hash.empty() || have == by_name.end() || AttributeOf(*have->second, kSassHashAttribute) != hash) return false;
    // The same SASS with other resources (a static shared array's size, the
    // launch bounds, the register count) is not the same kernel.
    if (!SameKernelResources(*have->second, k)) return false;
  }
  return true;
}

bool SameKernelResources(const KernelResult& a, const KernelResult& b) {
  // Spills come from a ptxas log that one side may lack; the same SASS with
  // the same registers and stack frame spills the same.
  auto binary_metrics = [](const KernelResult& k) {
    std::map<std::string, double> m = k.metrics;
    m.erase("spill_store_bytes");
    m.erase("spill_load_bytes");
    return m;
  };
  return binary_metrics(a) == binary_metrics(b) && AttributeOf(a, "arch") == AttributeOf(b, "arch") &&
         AttributeOf(a, "occupancy_limiter") == AttributeOf(b, "occupancy_limiter") &&
         AttributeOf(a, kOtherCodeHashAttribute) == AttributeOf(b, kOtherCodeHashAttribute);
}

}  // namespace gpugate
