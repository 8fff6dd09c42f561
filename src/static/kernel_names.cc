// Result names of static kernels (see kernel_names.h).
#include "static/kernel_names.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <tuple>

#include "util/demangle.h"
#include "util/random.h"
#include "util/text/escape.h"

namespace gpugate {

namespace {

// One kernel of the report, with what names it and what orders it among
// kernels of one name.
struct Kernel {
  size_t cubin = 0, index = 0;  // its place in the report: the last resort
  std::string stable;           // mangled, folder hashes masked
  std::string text;             // demangled, without the arch
  std::string arch;
  const std::string* member = nullptr;
  uint64_t siblings = 0;  // the names of its cubin's kernels
  uint64_t sass_hash = 0;
};

std::string Hex8(uint64_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "%08llx", static_cast<unsigned long long>(v & 0xffffffffu));
  return text;
}

// "anon_scale_a_cu" -> "anon_scale_a.cu".
std::string FileLabel(std::string file) {
  if (file.size() > 3 && file.ends_with("_cu")) file[file.size() - 3] = '.';
  return file;
}

// An -rdc static kernel's name, "__nv_static_<N>__<8 hex>_<len>_<file>_<S>_
// <inner mangled name>", where N is the length of the part up to the inner
// name and S stands for the file's first external symbol (its hash, or the
// symbol itself when short): the file and the inner name, or nothing.
std::optional<std::pair<std::string, std::string>> RdcStatic(const std::string& name) {
  constexpr std::string_view kMarker = "__nv_static_";
  if (!name.starts_with(kMarker)) return std::nullopt;
  size_t p = kMarker.size(), n = 0;
  const size_t digits = p;
  for (; p < name.size() && name[p] >= '0' && name[p] <= '9' && p - digits < 4; ++p) n = n * 10 + (name[p] - '0');
  if (p == digits || name.compare(p, 2, "__") != 0 || p + 2 + n >= name.size()) return std::nullopt;
  const std::string file = KernelSourceFile(name);
  if (file.empty()) return std::nullopt;
  return std::make_pair(file, name.substr(p + 2 + n));
}

// `mangled` with the part nvcc derives from the file's first external symbol
// masked in its anonymous namespaces ("_GLOBAL__N__<8 hex>_<len>_<file>_<S>",
// an identifier whose length the mangling gives): an edit of a host function
// does not rename the kernel. A grouping key, never shown.
std::string MaskFirstSymbol(std::string mangled) {
  constexpr std::string_view kMarker = "_GLOBAL__N__";
  for (size_t at = mangled.find(kMarker); at != std::string::npos; at = mangled.find(kMarker, at + 1)) {
    size_t d = at;
    while (d > 0 && mangled[d - 1] >= '0' && mangled[d - 1] <= '9') --d;
    if (d == at || at - d > 4) continue;
    const size_t length = static_cast<size_t>(std::stoul(mangled.substr(d, at - d)));
    const std::string file = KernelSourceFile(std::string_view(mangled).substr(at));
    // "_GLOBAL__N__" 8 "_" len "_" file "_"
    const size_t head = kMarker.size() + 9 + std::to_string(file.size()).size() + 1 + file.size() + 1;
    if (file.empty() || length <= head || at + length > mangled.size()) continue;
    for (size_t i = at + head; i < at + length; ++i) mangled[i] = 'x';
  }
  return mangled;
}

std::vector<Kernel> CollectKernels(const InspectReport& report) {
  std::vector<Kernel> kernels;
  for (size_t c = 0; c < report.cubins.size(); ++c) {
    const InspectedCubin& cubin = report.cubins[c];
    // The grouping key of each kernel, and the text it shows: an -rdc static
    // kernel as its inner name (the same as without -rdc), keyed by its file.
    std::vector<std::string> stable, shown;
    for (const KernelInfo& k : cubin.cubin.kernels) {
      const std::string masked = StableKernelName(k.name);
      if (auto rdc = RdcStatic(masked)) {
        // (In the form KernelSourceFile reads, for the labels.)
        stable.push_back("__nv_static_0__xxxxxxxx_" + std::to_string(rdc->first.size()) + "_" + rdc->first + "__" +
                         MaskFirstSymbol(rdc->second));
        shown.push_back(rdc->second);
      } else {
        stable.push_back(MaskFirstSymbol(masked));
        shown.push_back(masked);
      }
    }
    std::vector<std::string> sorted = stable;
    std::sort(sorted.begin(), sorted.end());
    std::string all;
    for (const std::string& s : sorted) all += s + '\n';
    const uint64_t siblings = Fnv1a64(all);
    for (size_t i = 0; i < stable.size(); ++i) {
      const KernelInfo& k = cubin.cubin.kernels[i];
      Kernel x;
      x.cubin = c;
      x.index = i;
      x.text = DemangleKernelName(shown[i].c_str());
      x.stable = std::move(stable[i]);
      x.arch = ArchText(k);
      x.member = &cubin.member;
      x.siblings = siblings;
      x.sass_hash = k.sass_hash;
      kernels.push_back(std::move(x));
    }
  }
  return kernels;
}

// The label of each masked mangled name among `stable` (the names of kernels
// whose demangled names agree): its source file where no other has that
// file, else the file and a hash of the name.
std::map<std::string, std::string> Labels(const std::set<std::string>& stable) {
  std::map<std::string, int> files;
  for (const std::string& s : stable) ++files[KernelSourceFile(s)];
  std::map<std::string, std::string> labels;
  for (const std::string& s : stable) {
    const std::string file = KernelSourceFile(s);
    if (!file.empty() && files[file] == 1)
      labels[s] = FileLabel(file);
    else
      labels[s] = (file.empty() ? std::string() : FileLabel(file) + " ") + Hex8(Fnv1a64(s));
  }
  return labels;
}

// Kernels of one masked mangled name: by what does not depend on where they
// stand in the binary first.
void SortIndistinguishable(std::vector<const Kernel*>* same) {
  std::sort(same->begin(), same->end(), [](const Kernel* a, const Kernel* b) {
    return std::tie(*a->member, a->siblings, a->sass_hash, a->cubin, a->index) <
           std::tie(*b->member, b->siblings, b->sass_hash, b->cubin, b->index);
  });
}

// BoundedName(body + suffix + number), but where that cuts the name (over
// kMaxNameBytes), the cut falls in `body`: the label, the arch and the
// number ("{a.cu}@sm_90", " #2") stay at the end, readable, and a policy
// pattern or the pairing of numbered kernels (which strips " #n") still finds
// them. The hash in a cut name is of body + suffix, without the number, so
// the kernels of one numbered group share it; a group whose longest number
// would not fit is cut whole.
std::string BoundedKernelName(const std::string& body, const std::string& suffix, const std::string& number,
                              bool numbered) {
  constexpr size_t kTail = 4 + 16;  // "...#" and 16 hex digits
  constexpr size_t kLongestNumber = 8;  // " #" and up to 6 digits
  const std::string whole = body + suffix;
  const bool fits = whole.size() + (numbered ? kLongestNumber : number.size()) <= kMaxNameBytes;
  if (fits || suffix.size() + number.size() > 256 || ValidUtf8Prefix(suffix) != suffix.size())
    return BoundedName(whole + number);
  std::string cut = BoundedName(whole);
  if (!IsBoundedName(cut)) {
    // It fit alone, but not with a number: cut it as BoundedName would.
    char tail[32];
    std::snprintf(tail, sizeof tail, "...#%016llx", static_cast<unsigned long long>(Fnv1a64(cut)));
    cut = cut.substr(0, kMaxNameBytes - kTail) + tail;
  }
  // Room for the longest number in a numbered group, so that its names
  // differ only in their numbers.
  size_t keep = kMaxNameBytes - kTail - suffix.size() - (numbered ? kLongestNumber : number.size());
  while (keep > 0 && (static_cast<unsigned char>(cut[keep]) & 0xC0) == 0x80) --keep;
  return cut.substr(0, keep) + cut.substr(cut.size() - kTail) + suffix + number;
}

}  // namespace

std::vector<std::vector<std::string>> ResultKernelNames(const InspectReport& report) {
  std::vector<std::vector<std::string>> names(report.cubins.size());
  for (size_t c = 0; c < report.cubins.size(); ++c) names[c].resize(report.cubins[c].cubin.kernels.size());
  const std::vector<Kernel> kernels = CollectKernels(report);
  // Kernels by the name they would have alone, then by masked mangled name.
  std::map<std::string, std::map<std::string, std::vector<const Kernel*>>> by_name;
  for (const Kernel& k : kernels) by_name[k.text + "@" + k.arch][k.stable].push_back(&k);
  std::set<std::string> taken;
  // A kernel's name: its demangled text, then what tells it apart (label,
  // arch, number), bounded in the text (BoundedKernelName).
  auto give = [&](const Kernel& k, const std::string& body, const std::string& suffix, int number, bool numbered) {
    auto text = [](int n) { return n <= 1 ? std::string() : " #" + std::to_string(n); };
    std::string name = BoundedKernelName(body, suffix, text(number), numbered);
    // A label or number that some other kernel's own name already holds.
    for (int n = std::max(number, 1) + 1; taken.count(name); ++n)
      name = BoundedKernelName(body, suffix, text(n), true);
    taken.insert(name);
    names[k.cubin][k.index] = std::move(name);
  };
  for (const auto& [alone, groups] : by_name)
    if (groups.size() == 1 && groups.begin()->second.size() == 1) {
      const Kernel& k = *groups.begin()->second.front();
      give(k, k.text, "@" + k.arch, 1, false);
    }
  for (auto& [alone, groups] : by_name) {
    if (groups.size() == 1 && groups.begin()->second.size() == 1) continue;
    std::set<std::string> stable;
    for (const auto& [s, same] : groups) stable.insert(s);
    const std::map<std::string, std::string> labels =
        groups.size() > 1 ? Labels(stable) : std::map<std::string, std::string>{};
    for (auto& [s, same] : groups) {
      const Kernel& first = *same.front();
      const std::string suffix = (groups.size() > 1 ? " {" + labels.at(s) + "}" : std::string()) + "@" + first.arch;
      SortIndistinguishable(&same);
      for (size_t n = 0; n < same.size(); ++n)
        give(*same[n], first.text, suffix, static_cast<int>(n) + 1, same.size() > 1);
    }
  }
  return names;
}

}  // namespace gpugate
