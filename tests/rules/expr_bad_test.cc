// Table-driven check of malformed rule expressions: every
// tests/data/bad_rule_exprs/*.expr begins with "# expect: LINE:COL substring";
// the expression starts on the second line (line 2, column 1) and runs to the
// end of the file. ParseCondition must fail with an input error
// "<path>:LINE:COL: ..." that contains the substring.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "expr_test_util.h"
#include "rules/expr.h"

namespace gpugate::rules {
namespace {

const char kBadExprsDir[] = GPUGATE_SOURCE_DIR "/tests/data/bad_rule_exprs";

std::vector<std::string> BadExprFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kBadExprsDir, ec))
    if (entry.path().extension() == ".expr") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

struct Case {
  std::string position;    // "2:19"
  std::string substring;   // part of the message
  std::string expression;  // from the second line on
};

bool ReadCase(const std::string& path, Case* out) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!std::getline(in, line)) return false;
  const std::string prefix = "# expect: ";
  if (line.rfind(prefix, 0) != 0) return false;
  std::string rest = line.substr(prefix.size());
  size_t space = rest.find(' ');
  if (space == std::string::npos || space + 1 >= rest.size()) return false;
  out->position = rest.substr(0, space);
  out->substring = rest.substr(space + 1);
  std::stringstream body;
  body << in.rdbuf();
  out->expression = body.str();
  return true;
}

TEST(BadRuleExprsTest, FolderHoldsEnoughCases) {
  EXPECT_GE(BadExprFiles().size(), 16u) << "in " << kBadExprsDir;
}

class BadRuleExprTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadRuleExprTest, FailsWithPositionedInputError) {
  const std::string& path = GetParam();
  Case c;
  ASSERT_TRUE(ReadCase(path, &c)) << path << ": the first line must be '# expect: LINE:COL substring'";
  Result<Expr> expr = ParseCondition(c.expression, testing::TestSchema(), SourcePos{path, 2, 1});
  ASSERT_FALSE(expr.ok()) << path << " parsed without an error";
  EXPECT_EQ(expr.error().code, ExitCode::kInputError) << expr.error().message;
  const std::string& message = expr.error().message;
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

INSTANTIATE_TEST_SUITE_P(Files, BadRuleExprTest, ::testing::ValuesIn(BadExprFiles()), CaseName);

}  // namespace
}  // namespace gpugate::rules
