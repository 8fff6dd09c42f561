// Table-driven check of hostile custom benchmark and pytest-benchmark files:
// every tests/data/bad_ingest/{custom,pytest}_*.json begins with the line
// "# expect: LINE:COL substring". That line is blanked before the JSON is
// read (so positions are the file's own), the content must still be
// detected as its format, and reading it must fail with exit code 2 and a
// message "<path>:LINE:COL: ..." containing the substring.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ingest/custom.h"
#include "ingest/format.h"
#include "ingest/pytest.h"
#include "util/fs.h"

namespace gpugate {
namespace {

const char kBadIngestDir[] = GPUGATE_SOURCE_DIR "/tests/data/bad_ingest";

std::vector<std::string> BadFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kBadIngestDir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

struct Case {
  std::string position;   // "7:5"
  std::string substring;  // part of the message
  std::string json;       // the file with its first line blanked
};

bool ReadCase(const std::string& path, Case* out) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return false;
  const std::string prefix = "# expect: ";
  const size_t eol = text->find('\n');
  if (text->rfind(prefix, 0) != 0 || eol == std::string::npos) return false;
  const std::string rest = text->substr(prefix.size(), eol - prefix.size());
  const size_t space = rest.find(' ');
  if (space == std::string::npos || space + 1 >= rest.size()) return false;
  out->position = rest.substr(0, space);
  out->substring = rest.substr(space + 1);
  out->json = text->substr(eol);  // keeps the newline: line numbers stay the file's
  return true;
}

TEST(BadIngestFiles, FolderHoldsBothFormats) {
  size_t custom = 0, pytest = 0;
  for (const std::string& f : BadFiles()) {
    const std::string stem = std::filesystem::path(f).stem().string();
    custom += stem.rfind("custom_", 0) == 0;
    pytest += stem.rfind("pytest_", 0) == 0;
  }
  EXPECT_GE(custom, 12u);
  EXPECT_GE(pytest, 15u);
}

class BadIngestFile : public ::testing::TestWithParam<std::string> {};

TEST_P(BadIngestFile, FailsWithPositionedInputError) {
  const std::string& path = GetParam();
  Case c;
  ASSERT_TRUE(ReadCase(path, &c)) << path
                                  << ": the first line must be '# expect: LINE:COL substring'";
  const bool custom = std::filesystem::path(path).stem().string().rfind("custom_", 0) == 0;
  EXPECT_EQ(SniffFormat(c.json), custom ? InputFormat::kCustom : InputFormat::kPytest);
  Result<Results> r = custom ? CustomFromJson(c.json, path) : PytestFromJson(c.json, path);
  ASSERT_FALSE(r.ok()) << path << " was read without an error";
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  const std::string& message = r.error().message;
  const std::string want_prefix = path + ":" + c.position + ": ";
  EXPECT_EQ(message.rfind(want_prefix, 0), 0u)
      << "message: " << message << "\nexpected prefix: " << want_prefix;
  EXPECT_NE(message.find(c.substring), std::string::npos)
      << "message: " << message << "\nexpected to contain: " << c.substring;
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string stem = std::filesystem::path(info.param).stem().string();
  for (char& ch : stem)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return stem;
}

INSTANTIATE_TEST_SUITE_P(Files, BadIngestFile, ::testing::ValuesIn(BadFiles()), CaseName);

}  // namespace
}  // namespace gpugate
