// Replays what fuzzing found: every file in tests/data/fuzz_regressions/<target>/
// goes through the fuzz target of that name (fuzz/targets.cc: the reader the
// CLI uses plus its checks), which aborts on a failed check; under the
// sanitizer build (scripts/sanitize.sh) ASan and UBSan watch it too. And the
// seeds made for the fuzzers (tests/data/fuzz_seeds) stay valid inputs, so
// fuzzing starts from files the readers accept.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "config/policy.h"
#include "model/baseline.h"
#include "model/merge.h"
#include "model/results_json.h"
#include "targets.h"
#include "util/fs.h"

namespace gpugate {
namespace {

namespace fs = std::filesystem;

const char kRegressionsDir[] = GPUGATE_SOURCE_DIR "/tests/data/fuzz_regressions";
const char kSeedsDir[] = GPUGATE_SOURCE_DIR "/tests/data/fuzz_seeds";

std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file()) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadOrFail(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? *text : std::string();
}

class FuzzRegressionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzRegressionTest, ReplaysThroughItsTarget) {
  const fs::path path = GetParam();
  const std::string target_name = path.parent_path().filename().string();
  const fuzz::Target* target = fuzz::FindTarget(target_name);
  ASSERT_NE(target, nullptr) << path << ": the folder must name a fuzz target";
  const std::string bytes = ReadOrFail(path.string());
  target->run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  fs::path p(info.param);
  std::string name = p.parent_path().filename().string() + "_" + p.stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Inputs, FuzzRegressionTest,
                         ::testing::ValuesIn(FilesUnder(kRegressionsDir)), CaseName);

TEST(FuzzTargetsTest, EveryRegressionFolderNamesATarget) {
  std::error_code ec;
  int folders = 0;
  for (const auto& entry : fs::directory_iterator(kRegressionsDir, ec)) {
    ++folders;
    EXPECT_NE(fuzz::FindTarget(entry.path().filename().string()), nullptr) << entry.path();
  }
  EXPECT_GT(folders, 0);
}

TEST(FuzzSeedsTest, ResultsSeedsRead) {
  std::vector<std::string> files = FilesUnder(std::string(kSeedsDir) + "/results");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    Result<Results> r = ReadResultsFile(f);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  }
}

TEST(FuzzSeedsTest, BaselineSeedsRead) {
  std::vector<std::string> files = FilesUnder(std::string(kSeedsDir) + "/baseline");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    Result<Baseline> b = ReadBaselineFile(f);
    ASSERT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message);
    EXPECT_GE(b->runs.size(), 2u) << f;
  }
}

TEST(FuzzSeedsTest, PolicySeedsRead) {
  std::vector<std::string> files = FilesUnder(std::string(kSeedsDir) + "/policy");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    Result<Policy> p = LoadPolicyFile(f);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  }
}

// A merge seed is shard files joined by "\n--- shard ---\n" (the merge
// target's input); its shards merge.
TEST(FuzzSeedsTest, MergeSeedsMerge) {
  std::vector<std::string> files = FilesUnder(std::string(kSeedsDir) + "/merge");
  ASSERT_FALSE(files.empty());
  const std::string separator = "\n--- shard ---\n";
  for (const std::string& f : files) {
    const std::string text = ReadOrFail(f);
    std::vector<Results> shards;
    std::vector<std::string> names;
    size_t begin = 0;
    while (true) {
      size_t end = text.find(separator, begin);
      std::string name = f + "#" + std::to_string(shards.size() + 1);
      Result<Results> r = ResultsFromJson(
          text.substr(begin, end == std::string::npos ? std::string::npos : end - begin), name);
      ASSERT_TRUE(r.ok()) << r.error().message;
      shards.push_back(std::move(r).value());
      names.push_back(name);
      if (end == std::string::npos) break;
      begin = end + separator.size();
    }
    EXPECT_GE(shards.size(), 2u) << f;
    Result<Results> merged = MergeShards(shards, names);
    EXPECT_TRUE(merged.ok()) << (merged.ok() ? "" : merged.error().message);
  }
}

}  // namespace
}  // namespace gpugate
