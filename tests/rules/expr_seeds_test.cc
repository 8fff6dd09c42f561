// The seeds of the rule_expr fuzz target (tests/data/fuzz_seeds/rule_expr)
// stay valid, so fuzzing starts from text the parser accepts: *.expr files
// are expressions, *.msg files message templates, over the test schema
// (the fuzz target's schema has the same names).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "expr_test_util.h"
#include "rules/expr.h"

namespace gpugate::rules {
namespace {

TEST(RuleExprSeedsTest, SeedsParse) {
  const std::string dir = GPUGATE_SOURCE_DIR "/tests/data/fuzz_seeds/rule_expr";
  int exprs = 0, templates = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const SourcePos pos{entry.path().string(), 1, 1};
    if (entry.path().extension() == ".expr") {
      Result<Expr> e = ParseExpr(text.str(), testing::TestSchema(), pos);
      EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
      ++exprs;
    } else if (entry.path().extension() == ".msg") {
      Result<Template> t = ParseTemplate(text.str(), testing::TestSchema(), pos);
      EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
      EXPECT_GE(t.ok() ? t->parts.size() : 0u, 2u) << entry.path();
      ++templates;
    }
  }
  EXPECT_GE(exprs, 3);
  EXPECT_GE(templates, 1);
}

}  // namespace
}  // namespace gpugate::rules
