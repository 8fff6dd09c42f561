// Tests of the small string helpers behind "did you mean".
#include "util/strings.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

TEST(StringsTest, CharacterColumnsCountCodePoints) {
  const std::string line = "a: \"日本\", b";  // 日 and 本 are 3 bytes each
  EXPECT_EQ(CharColumnAt(line, 0), 1);
  EXPECT_EQ(CharColumnAt(line, 4), 5);    // 日 starts at byte 4
  EXPECT_EQ(CharColumnAt(line, 7), 6);    // 本
  EXPECT_EQ(CharColumnAt(line, 13), 10);  // 'b'
  EXPECT_EQ(CharColumnAt(line, 20), 17);  // past the end: one column per byte
  for (int column : {1, 5, 6, 7, 10})
    EXPECT_EQ(CharColumnAt(line, ByteOfCharColumn(line, column)), column) << column;
  EXPECT_EQ(ByteOfCharColumn(line, 6), 7u);
  EXPECT_EQ(ByteOfCharColumn(line, 99), line.size());
}

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

// The table is kept in three rows: transpositions two rows back, and
// lengths that differ, still give the full table's answers.
TEST(StringsTest, EditDistanceInThreeRows) {
  EXPECT_EQ(EditDistance("abcdef", "badcfe"), 3);  // three transpositions
  EXPECT_EQ(EditDistance("ca", "abc"), 3);         // optimal string alignment, not Damerau
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(EditDistance("min_sampels", "min_samples"), 1);
  EXPECT_EQ(EditDistance("a", "ba"), 1);
  EXPECT_EQ(EditDistance("ab", "ba"), 1);
}

// A candidate whose length differs from the word's by more than the edit
// limit is never compared: a key of megabytes is answered at once, without
// a table of its length.
TEST(StringsTest, ClosestMatchSkipsCandidatesOfAnotherLength) {
  const std::vector<std::string> keys = {"warmup", "rounds", "timeout", "min_samples"};
  EXPECT_EQ(ClosestMatch(std::string(8 << 20, 'w'), keys), "");
  EXPECT_EQ(ClosestMatch("warmupxx", keys), "warmup");  // 2 edits, limit 2
  EXPECT_EQ(ClosestMatch("warmupxxx", keys), "warmup");  // 3 longer, limit 3: still compared
  EXPECT_EQ(ClosestMatch("warmupxxxx", keys), "");        // 4 longer: skipped
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
