// Table-driven check of malformed suites: every tests/data/bad_suites/*.yaml
// begins with "# expect: LINE:COL substring"; loading it must fail with exit
// code 2 and a message "<path>:LINE:COL: ..." that contains the substring.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/suite.h"

namespace gpugate {
namespace {

const char kBadSuitesDir[] = GPUGATE_SOURCE_DIR "/tests/data/bad_suites";

std::vector<std::string> BadSuiteFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kBadSuitesDir, ec))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

struct Expectation {
  std::string position;   // "7:5"
  std::string substring;  // part of the message
};

// Parses the first line "# expect: 7:5 unknown key 'warmpu'".
bool ReadExpectation(const std::string& path, Expectation* out) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return false;
  const std::string prefix = "# expect: ";
  if (line.rfind(prefix, 0) != 0) return false;
  std::string rest = line.substr(prefix.size());
  size_t space = rest.find(' ');
  if (space == std::string::npos || space + 1 >= rest.size()) return false;
  out->position = rest.substr(0, space);
  out->substring = rest.substr(space + 1);
  return true;
}

TEST(BadSuitesTest, FolderHoldsEnoughCases) {
  EXPECT_GE(BadSuiteFiles().size(), 18u) << "in " << kBadSuitesDir;
}

class BadSuiteTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadSuiteTest, FailsWithPositionedInputError) {
  const std::string& path = GetParam();
  Expectation expect;
  ASSERT_TRUE(ReadExpectation(path, &expect))
      << path << ": the first line must be '# expect: LINE:COL substring'";

  Result<Suite> suite = LoadSuiteFile(path);
  ASSERT_FALSE(suite.ok()) << path << " loaded without an error";
  EXPECT_EQ(suite.error().code, ExitCode::kInputError) << suite.error().message;
  const std::string& message = suite.error().message;
  std::string want_prefix = path + ":" + expect.position + ": ";
  EXPECT_EQ(message.rfind(want_prefix, 0), 0u)
      << "message: " << message << "\nexpected prefix: " << want_prefix;
  EXPECT_NE(message.find(expect.substring), std::string::npos)
      << "message: " << message << "\nexpected to contain: " << expect.substring;
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string stem = std::filesystem::path(info.param).stem().string();
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return stem;
}

INSTANTIATE_TEST_SUITE_P(Files, BadSuiteTest, ::testing::ValuesIn(BadSuiteFiles()), CaseName);

}  // namespace
}  // namespace gpugate
