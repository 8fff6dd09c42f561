// ptxas / nvlink log parser: real logs generated with CUDA 13.0 (see
// tests/data/ptxas_logs/README.md), older formats, CRLF, and a table-driven
// hostile corpus (tests/data/ptxas_logs/bad/*.log, "# expect: LINE:COL text").
#include "static/ptxas_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpugate {
namespace {

const std::string kLogDir = GPUGATE_SOURCE_DIR "/tests/data/ptxas_logs";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<PtxasKernel> ParseFile(const std::string& name) {
  Result<std::vector<PtxasKernel>> kernels = ParsePtxasLog(ReadFile(kLogDir + "/" + name), name);
  EXPECT_TRUE(kernels.ok()) << (kernels.ok() ? "" : kernels.error().message);
  return kernels.ok() ? kernels.value() : std::vector<PtxasKernel>{};
}

const PtxasKernel* Find(const std::vector<PtxasKernel>& kernels, const std::string& name, int sm) {
  for (const PtxasKernel& k : kernels) {
    if (k.name == name && k.sm == sm) return &k;
  }
  return nullptr;
}

TEST(PtxasLogTest, Cuda13Sm80) {
  std::vector<PtxasKernel> kernels = ParseFile("cuda13_sm80_xptxas_v.log");
  ASSERT_EQ(kernels.size(), 7u);
  const PtxasKernel& clustered = kernels[0];
  EXPECT_EQ(clustered.name, "_Z9clusteredPf");
  EXPECT_EQ(clustered.sm, 80);
  EXPECT_EQ(clustered.registers, 6);
  EXPECT_EQ(clustered.barriers, 0);
  EXPECT_EQ(clustered.cmem0, 360);
  EXPECT_TRUE(clustered.entry);
  EXPECT_EQ(clustered.line, 2);

  const PtxasKernel* reduce = Find(kernels, "_Z13reduce_sharedPKfPfi", 80);
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->registers, 10);
  EXPECT_EQ(reduce->barriers, 1);
  EXPECT_EQ(reduce->shared, 1024);
  EXPECT_EQ(reduce->cmem0, 372);
  EXPECT_EQ(reduce->line, 24);

  const PtxasKernel* helper = Find(kernels, "_Z6helperPKfi", 80);
  ASSERT_NE(helper, nullptr);
  EXPECT_FALSE(helper->entry);
  EXPECT_EQ(helper->registers, 0);
  EXPECT_EQ(helper->line, 22);

  const PtxasKernel* pressure = Find(kernels, "_Z8pressurePKfPfi", 80);
  ASSERT_NE(pressure, nullptr);
  EXPECT_EQ(pressure->registers, 40);
  EXPECT_EQ(pressure->spill_stores, 0);
}

TEST(PtxasLogTest, SpillsUnderMaxrregcount) {
  std::vector<PtxasKernel> kernels = ParseFile("cuda13_sm80_maxrregcount16.log");
  ASSERT_EQ(kernels.size(), 7u);
  const PtxasKernel* pressure = Find(kernels, "_Z8pressurePKfPfi", 80);
  ASSERT_NE(pressure, nullptr);
  EXPECT_EQ(pressure->registers, 24);
  EXPECT_EQ(pressure->stack_frame, 144);
  EXPECT_EQ(pressure->spill_stores, 284);
  EXPECT_EQ(pressure->spill_loads, 304);
  EXPECT_EQ(pressure->cmem0, 372);
  EXPECT_EQ(pressure->line, 24);
}

TEST(PtxasLogTest, ThreeArchsInOneLog) {
  std::vector<PtxasKernel> kernels = ParseFile("cuda13_multi_arch_resource_usage.log");
  ASSERT_EQ(kernels.size(), 21u);
  for (int sm : {75, 90, 120}) {
    EXPECT_EQ(std::count_if(kernels.begin(), kernels.end(),
                            [sm](const PtxasKernel& k) { return k.sm == sm; }),
              7)
        << sm;
    const PtxasKernel* helper = Find(kernels, "_Z6helperPKfi", sm);
    ASSERT_NE(helper, nullptr) << sm;
    EXPECT_FALSE(helper->entry);
  }
  const PtxasKernel* clustered90 = Find(kernels, "_Z9clusteredPf", 90);
  ASSERT_NE(clustered90, nullptr);
  EXPECT_EQ(clustered90->registers, 12);
  EXPECT_EQ(clustered90->shared, 16);
  EXPECT_EQ(clustered90->cmem0, 0);  // sm_90 builds print no cmem[0]
  EXPECT_EQ(Find(kernels, "_Z8pressurePKfPfi", 75)->registers, 52);
  EXPECT_EQ(Find(kernels, "_Z8pressurePKfPfi", 120)->stack_frame, 128);
  EXPECT_EQ(Find(kernels, "_Z13reduce_sharedPKfPfi", 120)->registers, 11);
}

TEST(PtxasLogTest, RelocatableDeviceCodeAndNvlink) {
  std::vector<PtxasKernel> kernels = ParseFile("cuda13_sm86_rdc.log");
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0].name, "_Z5applyPfi");
  EXPECT_TRUE(kernels[0].entry);
  EXPECT_EQ(kernels[0].registers, 24);
  EXPECT_EQ(kernels[0].cmem0, 364);
  EXPECT_EQ(kernels[1].name, "_Z5scalef");
  EXPECT_FALSE(kernels[1].entry);
  EXPECT_EQ(kernels[1].sm, 86);
  // nvlink: quoted name, lower-case "used", "0 stack", lmem.
  EXPECT_EQ(kernels[2].name, "_Z5applyPfi");
  EXPECT_TRUE(kernels[2].entry);
  EXPECT_EQ(kernels[2].registers, 24);
  EXPECT_EQ(kernels[2].cmem0, 364);
  EXPECT_EQ(kernels[2].shared, 0);
  EXPECT_EQ(kernels[2].line, 12);
  // nvlink prints no spill figures: unknown, not 0. ptxas's records have them.
  EXPECT_FALSE(kernels[2].spill_stores.has_value());
  EXPECT_FALSE(kernels[2].spill_loads.has_value());
  EXPECT_EQ(kernels[0].spill_stores, 0);
  EXPECT_EQ(kernels[0].spill_loads, 0);
}

// Each "N bytes gmem" line starts a ptxas module. A -rdc module prints its
// device functions before its kernels: they take the module's arch, not the
// previous module's (probe DE2); a module of functions alone names none.
// Two files' logs one after the other keep their modules apart, so a
// function's copy in each file is told apart (probe DE1).
TEST(PtxasLogTest, DeviceFunctionsTakeTheirModulesArch) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for f\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
      "ptxas info    : Function properties for k\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 0 barriers, 372 bytes cmem[0]\n"
      "ptxas info    : 0 bytes gmem, 8 bytes cmem[4]\n"
      "ptxas info    : Function properties for f\n"
      "    216 bytes stack frame, 240 bytes spill stores, 304 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 0 barriers\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for g\n"
      "    8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n";
  Result<std::vector<PtxasKernel>> parsed = ParsePtxasLog(log, "rdc.log");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const std::vector<PtxasKernel>& k = *parsed;
  ASSERT_EQ(k.size(), 5u);
  EXPECT_EQ(k[0].name, "f");
  EXPECT_EQ(k[0].sm, 80);
  EXPECT_EQ(k[0].module, 1);
  EXPECT_EQ(k[0].spill_stores, 0);
  EXPECT_EQ(k[1].module, 1);
  EXPECT_EQ(k[2].name, "f");
  EXPECT_EQ(k[2].sm, 90);
  EXPECT_EQ(k[2].module, 2);
  EXPECT_EQ(k[2].spill_stores, 240);
  EXPECT_EQ(k[3].module, 2);
  EXPECT_EQ(k[4].name, "g");
  EXPECT_EQ(k[4].sm, 0);  // a module of functions alone, after sm_90's
  EXPECT_EQ(k[4].module, 3);
}

TEST(PtxasLogTest, NvlinkAloneHasNoArch) {
  Result<std::vector<PtxasKernel>> kernels = ParsePtxasLog(
      "nvlink info    : Function properties for '_Z5applyPfi':\n"
      "nvlink info    : used 24 registers, used 0 barriers, 32 stack, 0 bytes smem, 364 bytes "
      "cmem[0], 0 bytes lmem\n",
      "link.log");
  ASSERT_TRUE(kernels.ok()) << kernels.error().message;
  ASSERT_EQ(kernels->size(), 1u);
  EXPECT_EQ((*kernels)[0].sm, 0);
  EXPECT_EQ((*kernels)[0].stack_frame, 32);
}

// CUDA 13's nvlink ends every line with "(target: sm_NN)": the record's arch.
TEST(PtxasLogTest, NvlinkTargetNamesTheArch) {
  Result<std::vector<PtxasKernel>> kernels = ParsePtxasLog(
      "nvlink info    : 0 bytes gmem (target: sm_90)\n"
      "nvlink info    : Function properties for '_Z7boundedPf': (target: sm_90)\n"
      "nvlink info    : used 104 registers, used 0 barriers, 0 stack, 0 bytes smem, 536 bytes cmem[0], 0 bytes "
      "lmem (target: sm_90)\n"
      "nvlink info    : 0 bytes gmem (target: sm_100a)\n"
      "nvlink info    : Function properties for '_Z7boundedPf': (target: sm_100a)\n"
      "nvlink info    : used 55 registers, used 0 barriers, 64 stack, 0 bytes smem, 0 bytes lmem (target: "
      "sm_100a)\n",
      "link.log");
  ASSERT_TRUE(kernels.ok()) << kernels.error().message;
  ASSERT_EQ(kernels->size(), 2u);
  EXPECT_EQ((*kernels)[0].sm, 90);
  EXPECT_EQ((*kernels)[0].registers, 104);
  EXPECT_EQ((*kernels)[0].cmem0, 536);
  EXPECT_EQ((*kernels)[1].sm, 100);
  EXPECT_EQ((*kernels)[1].registers, 55);
  EXPECT_EQ((*kernels)[1].stack_frame, 64);

  Result<std::vector<PtxasKernel>> bad = ParsePtxasLog(
      "nvlink info    : Function properties for '_Z7boundedPf': (target: compute_90)\n", "bad.log");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("bad.log:1:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("expected '(target: sm_NN)'"), std::string::npos) << bad.error().message;
}

TEST(PtxasLogTest, OlderFormats) {
  std::vector<PtxasKernel> kernels = ParseFile("older_cuda_formats.log");
  ASSERT_EQ(kernels.size(), 6u);
  const PtxasKernel* hash = Find(kernels, "_Z11hash_roundsILj8EEvPjj", 50);
  ASSERT_NE(hash, nullptr);  // MSBuild "1>  " prefixes
  EXPECT_EQ(hash->registers, 255);
  EXPECT_EQ(hash->stack_frame, 296);
  EXPECT_EQ(hash->spill_stores, 176);
  EXPECT_EQ(hash->spill_loads, 312);
  EXPECT_EQ(hash->shared, 8192);
  EXPECT_EQ(hash->cmem0, 324);
  const PtxasKernel* malloc_fn = Find(kernels, "cudaMalloc", 50);
  ASSERT_NE(malloc_fn, nullptr);
  EXPECT_FALSE(malloc_fn->entry);
  EXPECT_EQ(malloc_fn->stack_frame, 8);
  const PtxasKernel* assign = Find(kernels, "_Z12assign_pointsILi1EEvjjPKfS1_Pj", 61);
  ASSERT_NE(assign, nullptr);
  EXPECT_EQ(assign->registers, 30);
  EXPECT_EQ(assign->barriers, 0);
  EXPECT_EQ(assign->cmem0, 360);  // not cmem[2]
  EXPECT_EQ(Find(kernels, "_Z7colsumsPfS_jj", 20)->shared, 256);
  EXPECT_EQ(Find(kernels, "_Z10scrypt_texILi1EEvPjjj", 80)->spill_loads, 400);
  const PtxasKernel* wgmma = Find(kernels, "_Z8wgmma_mmPK6__halfPf", 90);  // 'sm_90a'
  ASSERT_NE(wgmma, nullptr);
  EXPECT_EQ(wgmma->registers, 168);
  EXPECT_EQ(wgmma->shared, 65536);
}

TEST(PtxasLogTest, CrlfLineEndsParseTheSame) {
  std::string text = ReadFile(kLogDir + "/cuda13_sm80_maxrregcount16.log");
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  Result<std::vector<PtxasKernel>> lf = ParsePtxasLog(text, "lf.log");
  Result<std::vector<PtxasKernel>> dos = ParsePtxasLog(crlf, "crlf.log");
  ASSERT_TRUE(lf.ok());
  ASSERT_TRUE(dos.ok()) << dos.error().message;
  ASSERT_EQ(lf->size(), dos->size());
  for (size_t i = 0; i < lf->size(); ++i) {
    EXPECT_EQ((*lf)[i].name, (*dos)[i].name);
    EXPECT_EQ((*lf)[i].registers, (*dos)[i].registers);
    EXPECT_EQ((*lf)[i].spill_loads, (*dos)[i].spill_loads);
    EXPECT_EQ((*lf)[i].line, (*dos)[i].line);
  }
}

TEST(PtxasLogTest, TrailingBlanksAreIgnored) {
  Result<std::vector<PtxasKernel>> kernels = ParsePtxasLog(
      "ptxas info    : Compiling entry function '_Z1kv' for 'sm_86'  \r\n"
      "ptxas info    : Function properties for _Z1kv \t\r\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads   \r\n"
      "ptxas info    : Used 12 registers, 348 bytes cmem[0] \r\n",
      "blanks.log");
  ASSERT_TRUE(kernels.ok()) << kernels.error().message;
  ASSERT_EQ(kernels->size(), 1u);
  EXPECT_EQ((*kernels)[0].name, "_Z1kv");
  EXPECT_EQ((*kernels)[0].stack_frame, 8);
  EXPECT_EQ((*kernels)[0].cmem0, 348);
}

TEST(PtxasLogTest, UnknownLinesAndEmptyInputAreSkipped) {
  Result<std::vector<PtxasKernel>> none = ParsePtxasLog("", "empty.log");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  Result<std::vector<PtxasKernel>> noise = ParsePtxasLog(
      "kernel.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n"
      "ptxas warning : Value of threads per SM for entry _Z1kv is out of range\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compile time = 1.0 ms\n"
      "ptxas info    something without a colon\n"
      "\n\n",
      "noise.log");
  ASSERT_TRUE(noise.ok()) << noise.error().message;
  EXPECT_TRUE(noise->empty());
}

TEST(PtxasLogTest, NamesAreKeptAsBytes) {
  // A name with a control character and a quote-free odd spelling is kept
  // verbatim; outputs escape it.
  Result<std::vector<PtxasKernel>> kernels = ParsePtxasLog(
      "ptxas info    : Compiling entry function '_Z1k\x1b[31m' for 'sm_80'\n"
      "ptxas info    : Used 8 registers\n",
      "odd.log");
  ASSERT_TRUE(kernels.ok()) << kernels.error().message;
  ASSERT_EQ(kernels->size(), 1u);
  EXPECT_EQ((*kernels)[0].name, "_Z1k\x1b[31m");
  EXPECT_EQ((*kernels)[0].registers, 8);
}

// The hostile corpus.
std::vector<std::string> BadLogs() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kLogDir + "/bad", ec)) {
    if (entry.path().extension() == ".log") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(BadPtxasLogsTest, FolderHoldsEnoughCases) { EXPECT_GE(BadLogs().size(), 20u); }

class BadPtxasLogTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadPtxasLogTest, FailsWithPositionedInputError) {
  const std::string& path = GetParam();
  const std::string text = ReadFile(path);
  const std::string prefix = "# expect: ";
  ASSERT_EQ(text.rfind(prefix, 0), 0u) << path << ": first line must be '# expect: L:C text'";
  std::string first = text.substr(prefix.size(), text.find('\n') - prefix.size());
  if (!first.empty() && first.back() == '\r') first.pop_back();
  const size_t space = first.find(' ');
  ASSERT_NE(space, std::string::npos) << path;
  const std::string position = first.substr(0, space);
  const std::string substring = first.substr(space + 1);

  Result<std::vector<PtxasKernel>> kernels = ParsePtxasLog(text, path);
  ASSERT_FALSE(kernels.ok()) << path << " parsed";
  EXPECT_EQ(kernels.error().code, ExitCode::kInputError) << path;
  const std::string& message = kernels.error().message;
  EXPECT_EQ(message.rfind(path + ":" + position + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(substring), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadPtxasLogTest, ::testing::ValuesIn(BadLogs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = std::filesystem::path(info.param).stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// Error columns count characters, as the suite and JSON readers do.
TEST(PtxasLogTest, ErrorColumnsCountCharacters) {
  Result<std::vector<PtxasKernel>> bad =
      ParsePtxasLog("ptxas info    : Compiling entry function '\u65e5\u672c\u8a9e' for 'sm_x'\n", "k.log");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("k.log:1:52: expected an arch such as 'sm_80'", 0), 0u) << bad.error().message;
  Result<std::vector<PtxasKernel>> marked = ParsePtxasLog(
      "\xEF\xBB\xBFptxas info    : Compiling entry function '\u65e5\u672c\u8a9e' for 'sm_x'\n", "k.log");
  ASSERT_FALSE(marked.ok());
  EXPECT_EQ(marked.error().message.rfind("k.log:1:52: ", 0), 0u) << marked.error().message;  // the mark takes no column
}

}  // namespace
}  // namespace gpugate
