// Tests of the small string helpers behind "did you mean".
#include "util/strings.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

TEST(StringsTest, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0);
  EXPECT_EQ(EditDistance("warmup", "warmup"), 0);
  EXPECT_EQ(EditDistance("warmpu", "warmup"), 1);  // transposition
  EXPECT_EQ(EditDistance("cdua", "cuda"), 1);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(EditDistance("abc", ""), 3);
}

TEST(StringsTest, DidYouMean) {
  std::vector<std::string> keys = {"warmup", "rounds", "timeout"};
  EXPECT_EQ(DidYouMean("warmpu", keys), " (did you mean 'warmup'?)");
  EXPECT_EQ(DidYouMean("xyzzy", keys), "");
  EXPECT_EQ(ClosestMatch("ronds", keys), "rounds");
}

TEST(StringsTest, SplitTrim) {
  EXPECT_EQ(Split("a,b,,c", ','), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(Trim("  x y \n"), "x y");
  EXPECT_TRUE(StartsWith("gpugate", "gpu"));
  EXPECT_TRUE(EndsWith("trace.json.gz", ".gz"));
}

}  // namespace
}  // namespace gpugate
