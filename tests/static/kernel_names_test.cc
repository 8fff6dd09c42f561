// The names static results give kernels (static/kernel_names.h), on real
// nvcc 13.0 archives (tests/data/cubins/README.md): two files with one
// anonymous-namespace kernel name, and two k.cu files in two folders built
// in two workspaces. A name must not depend on the order of the archive's
// members nor on the folder the library was built in.
#include "static/kernel_names.h"
#include "util/text/escape.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

#include "harness/static_runner.h"
#include "static/ar_archive.h"
#include "static/cubin.h"
#include "static/inspect_render.h"
#include "util/demangle.h"
#include "static/cubin_data.h"
#include "util/fs.h"

namespace gpugate {
namespace {

const std::string kData = testing::CubinDataPath("");

std::string Load(const std::string& file) { return testing::LoadCubinData(file); }

// The archive with its members in the opposite order (GNU names, as ar
// writes them; the symbol table left out).
std::string Reversed(const std::string& archive) {
  Result<std::vector<ArMember>> members = ParseArArchive(archive, "lib.a");
  EXPECT_TRUE(members.ok());
  std::string out = "!<arch>\n";
  if (!members.ok()) return out;
  for (auto m = members->rbegin(); m != members->rend(); ++m) {
    char h[61];
    std::snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", (m->name + "/").c_str(), "0", "0", "0", "644",
                  m->bytes.size());
    out += std::string(h, 60) + std::string(m->bytes);
    if (m->bytes.size() % 2) out += "\n";
  }
  return out;
}

// Each result kernel's name and its SASS hash: the pairs a baseline's
// kernels are matched by.
std::map<std::string, std::string> NamedCode(const std::string& bytes, const std::string& name) {
  Result<InspectReport> r = InspectBytes(bytes, name);
  EXPECT_TRUE(r.ok()) << r.error().message;
  std::map<std::string, std::string> out;
  if (!r.ok()) return out;
  WorkloadSpec spec;
  spec.name = "kernels";
  spec.kind = WorkloadKind::kStatic;
  for (const KernelResult& k : StaticWorkloadResult(spec, *r).kernels)
    EXPECT_TRUE(out.emplace(k.name, k.attributes.at(kSassHashAttribute)).second) << k.name;
  return out;
}

std::set<std::string> Names(const std::map<std::string, std::string>& named) {
  std::set<std::string> out;
  for (const auto& [name, hash] : named) out.insert(name);
  return out;
}

// anon_scale_a.cu and anon_scale_b.cu each hold `scale` in an anonymous
// namespace: one demangled name, two kernels, told apart by the file nvcc
// wrote into their mangled names.
TEST(StaticKernelNamesTest, KernelsOfOneNameInTwoFilesAreNamedByTheirFile) {
  const std::map<std::string, std::string> named = NamedCode(Load("anon_scale_sm90.a"), "libanon.a");
  EXPECT_EQ(Names(named), (std::set<std::string>{"(anonymous namespace)::scale(float*) {anon_scale_a.cu}@sm_90",
                                                 "(anonymous namespace)::scale(float*) {anon_scale_b.cu}@sm_90"}));
  ASSERT_EQ(named.size(), 2u);
  EXPECT_NE(named.begin()->second, named.rbegin()->second);  // two kernels indeed
}

// The same library with its members in the other order (another link or
// `ar` order, code unchanged): every name holds the same kernel's code.
TEST(StaticKernelNamesTest, ReorderedArchiveMembersGiveTheSameNames) {
  for (const char* file : {"anon_scale_sm90.a", "same_name_sm80_rdc_ws1.a"}) {
    const std::string archive = Load(file);
    const std::map<std::string, std::string> named = NamedCode(archive, file);
    EXPECT_EQ(named.size(), file[0] == 'a' ? 2u : 4u) << file;
    EXPECT_EQ(NamedCode(Reversed(archive), file), named) << file;
  }
}

// same_name_x.cu and same_name_y.cu built as x/k.cu and y/k.cu of one
// library (one first external symbol, so masking the folder hashes gives
// their static kernels one name), in two workspaces: the same names for the
// same code in both, whatever the members' order.
TEST(StaticKernelNamesTest, TwoWorkspacesGiveTheSameNames) {
  const std::string ws1 = Load("same_name_sm80_rdc_ws1.a");
  const std::string ws2 = Load("same_name_sm80_rdc_ws2.a");
  ASSERT_NE(ws1, ws2);  // the folders' hashes differ
  const std::map<std::string, std::string> named = NamedCode(ws1, "libsame.a");
  // An -rdc static kernel reads as it does without -rdc: its inner name.
  EXPECT_EQ(Names(named), (std::set<std::string>{"stat_k(float*)@sm_80", "stat_k(float*)@sm_80 #2",
                                                 "pub(float*)@sm_80", "pub(float*)@sm_80 #2"}));
  EXPECT_EQ(NamedCode(ws2, "libsame.a"), named);
  EXPECT_EQ(NamedCode(Reversed(ws2), "libsame.a"), named);
}

// A name no other kernel has is the one it always had, but for an -rdc
// static kernel's, which reads as its inner name (as without -rdc), without
// the part of its name that an edit of a host function changes.
TEST(StaticKernelNamesTest, ANameNoOtherKernelHasStaysAsItWas) {
  for (const char* file : {"heavy_sm90.cubin", "static_rdc_a.cubin", "small_sm80_sm90_zstd.fatbin"}) {
    Result<InspectReport> r = InspectBytes(Load(file), file);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const std::vector<std::vector<std::string>> names = ResultKernelNames(*r);
    ASSERT_EQ(names.size(), r->cubins.size());
    for (size_t c = 0; c < names.size(); ++c)
      for (size_t i = 0; i < names[c].size(); ++i) {
        const KernelInfo& k = r->cubins[c].cubin.kernels[i];
        if (k.name.starts_with("__nv_static_")) continue;
        EXPECT_EQ(names[c][i], DemangleKernelName(k.name.c_str()) + "@" + ArchText(k)) << file;
      }
  }
  Result<InspectReport> rdc = InspectBytes(Load("static_rdc_a.cubin"), "k.cubin");
  ASSERT_TRUE(rdc.ok());
  EXPECT_EQ(ResultKernelNames(*rdc)[0], (std::vector<std::string>{"stat_k(float*)@sm_80", "pub(float*)@sm_80"}));
  // The first external symbol's part (here "_Z3pubPf") does not name it.
  InspectReport edited = *rdc;
  std::string& name = edited.cubins[0].cubin.kernels[0].name;
  ASSERT_NE(name.find("_Z3pubPf_"), std::string::npos) << name;
  name.replace(name.find("_Z3pubPf_"), 8, "7a26ff48");
  EXPECT_EQ(ResultKernelNames(edited)[0][0], "stat_k(float*)@sm_80");
}

KernelInfo Kernel(const std::string& name, uint64_t sass_hash) {
  KernelInfo k;
  k.name = name;
  k.arch = 90;
  k.sass_hash = sass_hash;
  return k;
}

InspectedCubin Cubin(const std::string& member, std::vector<KernelInfo> kernels) {
  InspectedCubin c;
  c.source = member.empty() ? "app: .nv_fatbin" : "lib.a(" + member + ")";
  c.member = member;
  c.cubin.arch = 90;
  c.cubin.kernels = std::move(kernels);
  return c;
}

// Two k.cu files whose first external symbols differ (nvcc's names as it
// wrote them for two folders): the part of the name that symbol gives does
// not tell them apart (an edit of a host function would change it), so they
// share the file's label and are numbered.
TEST(StaticKernelNamesTest, OneFileNameTwiceIsNumbered) {
  InspectReport r;
  r.cubins.push_back(Cubin("", {Kernel("_ZN36_GLOBAL__N__c7adba6d_4_k_cu_d589cb605scaleEPf", 1)}));
  r.cubins.push_back(Cubin("", {Kernel("_ZN36_GLOBAL__N__8a651b66_4_k_cu_163926765scaleEPf", 2)}));
  r.cubins.push_back(Cubin("", {Kernel("_ZN36_GLOBAL__N__0a1b2c3d_4_a_cu_163926765scaleEPf", 3)}));
  const std::vector<std::vector<std::string>> names = ResultKernelNames(r);
  const std::string scale = "(anonymous namespace)::scale(float*) ";
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0][0], scale + "{k.cu}@sm_90");  // SASS 1 first
  EXPECT_EQ(names[1][0], scale + "{k.cu}@sm_90 #2");
  EXPECT_NE(names[0][0], names[1][0]);
  EXPECT_EQ(names[2][0], scale + "{a.cu}@sm_90");
  // Another workspace: other folder hashes, other order.
  InspectReport other;
  other.cubins.push_back(Cubin("", {Kernel("_ZN36_GLOBAL__N__11111111_4_a_cu_163926765scaleEPf", 3)}));
  other.cubins.push_back(Cubin("", {Kernel("_ZN36_GLOBAL__N__22222222_4_k_cu_163926765scaleEPf", 2)}));
  other.cubins.push_back(Cubin("", {Kernel("_ZN36_GLOBAL__N__33333333_4_k_cu_d589cb605scaleEPf", 1)}));
  const std::vector<std::vector<std::string>> again = ResultKernelNames(other);
  EXPECT_EQ(again[0][0], names[2][0]);
  EXPECT_EQ(again[1][0], names[1][0]);
  EXPECT_EQ(again[2][0], names[0][0]);
}

// One mangled name in several places (a template kernel instantiated in two
// files, one object twice): numbered by the member's name, then the other
// kernels of its cubin, then its SASS, never by where it stands.
TEST(StaticKernelNamesTest, OneMangledNameTwiceIsNumberedInAnOrderOfItsOwn) {
  const std::string tmpl = "_Z5applyIfEvPT_";
  InspectReport r;
  r.cubins.push_back(Cubin("b.o", {Kernel(tmpl, 7)}));
  r.cubins.push_back(Cubin("a.o", {Kernel(tmpl, 7), Kernel("_Z3onePf", 9)}));
  r.cubins.push_back(Cubin("", {Kernel(tmpl, 5)}));
  r.cubins.push_back(Cubin("", {Kernel(tmpl, 4)}));
  std::vector<std::vector<std::string>> names = ResultKernelNames(r);
  const std::string apply = "void apply<float>(float*)@sm_90";
  EXPECT_EQ(names[3][0], apply);  // no member ("" first), SASS 4
  EXPECT_EQ(names[2][0], apply + " #2");
  EXPECT_EQ(names[1][0], apply + " #3");  // a.o
  EXPECT_EQ(names[0][0], apply + " #4");  // b.o
  EXPECT_EQ(names[1][1], "one(float*)@sm_90");
  std::swap(r.cubins[0], r.cubins[1]);
  std::swap(r.cubins[2], r.cubins[3]);
  const std::vector<std::vector<std::string>> swapped = ResultKernelNames(r);
  EXPECT_EQ(swapped[0][0], names[1][0]);
  EXPECT_EQ(swapped[1][0], names[0][0]);
  EXPECT_EQ(swapped[2][0], names[3][0]);
  EXPECT_EQ(swapped[3][0], names[2][0]);
}

TEST(StaticKernelNamesTest, ALongNameKeepsItsArchAndNumberWhereItIsCut) {
  // A demangled name over kMaxNameBytes (template-heavy kernels reach it):
  // the cut falls in the name, so "@sm_90" and " #2" stay readable.
  const std::string id(1500, 'k');
  const std::string mangled = "_Z" + std::to_string(id.size()) + id + "Pf";
  InspectReport r;
  r.cubins.push_back(Cubin("", {Kernel(mangled, 7)}));
  r.cubins.push_back(Cubin("", {Kernel(mangled, 5)}));
  r.cubins.push_back(Cubin("", {Kernel("_Z3onePf", 9)}));
  const std::vector<std::vector<std::string>> names = ResultKernelNames(r);
  for (const std::string& n : {names[0][0], names[1][0]}) EXPECT_LE(n.size(), gpugate::kMaxNameBytes) << n;
  EXPECT_TRUE(names[1][0].ends_with("@sm_90")) << names[1][0];  // SASS 5 first
  EXPECT_TRUE(names[0][0].ends_with("@sm_90 #2")) << names[0][0];
  EXPECT_NE(names[0][0].find("...#"), std::string::npos);
  // One group: without its number, the second reads as the first (the
  // pairing of numbered kernels strips " #n").
  EXPECT_EQ(names[0][0].substr(names[0][0].size() - 9, 6), "@sm_90");
  EXPECT_EQ(names[0][0].substr(0, names[0][0].size() - 3), names[1][0]);
  EXPECT_EQ(names[2][0], "one(float*)@sm_90");  // short names as before
}

TEST(StaticKernelNamesTest, SourceFileOfAMangledName) {
  EXPECT_EQ(KernelSourceFile("_ZN48_GLOBAL__N__8a1951a5_15_anon_scale_a_cu_757a102c5scaleEPf"), "anon_scale_a_cu");
  EXPECT_EQ(KernelSourceFile("_ZN48_GLOBAL__N__xxxxxxxx_15_anon_scale_a_cu_757a102c5scaleEPf"), "anon_scale_a_cu");
  EXPECT_EQ(KernelSourceFile("__nv_static_25__xxxxxxxx_4_k_cu__Z3pubPf__Z6stat_kPf"), "k_cu");
  EXPECT_EQ(KernelSourceFile("__nv_static_37__8a1951a5_15_anon_scale_a_cu_757a102c__ZN48_GLOBAL__N__8a1951a5_15_"
                             "anon_scale_a_cu_757a102c5scaleEPf"),
            "anon_scale_a_cu");
  EXPECT_EQ(KernelSourceFile("_INTERNAL_7039cd95_5_an_cu_d589cb60_helper"), "an_cu");
  for (const char* none :
       {"_Z3pubPf", "plain_add", "__nv_static_", "_ZN36_GLOBAL__N__c7adba6d_x", "conv_GLOBAL__N__c7adba6d_4_k_cu",
        "_ZN36_GLOBAL__N__c7adba6d_99_k_cu", "_ZN36_GLOBAL__N__c7adbz6d_4_k_cu_d589cb605scaleEPf"})
    EXPECT_EQ(KernelSourceFile(none), "") << none;
}

}  // namespace
}  // namespace gpugate
