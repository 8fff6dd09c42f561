// Shared helpers of the ingest readers (ingest/ingest_util.h).
#include "ingest/ingest_util.h"

#include <gtest/gtest.h>

namespace gpugate::detail {
namespace {

TEST(ParseTimestampNsTest, ZonedTimesBecomeUnixNanoseconds) {
  EXPECT_EQ(ParseTimestampNs("1970-01-01T00:00:01.5Z"), 1500000000);
  EXPECT_EQ(ParseTimestampNs("1970-01-01 01:00:00+01:00"), 0);
  EXPECT_EQ(ParseTimestampNs("1969-12-31T23:59:59Z"), -1000000000);
  EXPECT_EQ(ParseTimestampNs("2026-11-21T23:59:00"), std::nullopt);  // no zone
}

// Found by fuzzing (gbench "date": "1013-11-21T22:54:09+00:00"): the seconds
// times 1e9 overflowed int64 (undefined behaviour). Times int64 nanoseconds
// cannot hold are no time.
TEST(ParseTimestampNsTest, TimesOutsideInt64NanosecondsAreRejected) {
  EXPECT_EQ(ParseTimestampNs("1013-11-21T22:54:09+00:00"), std::nullopt);
  EXPECT_EQ(ParseTimestampNs("9999-12-31T23:59:59Z"), std::nullopt);
  EXPECT_EQ(ParseTimestampNs("2262-04-12T00:00:00Z"), std::nullopt);
  EXPECT_EQ(ParseTimestampNs("1677-09-21T00:00:00Z"), std::nullopt);
  EXPECT_EQ(ParseTimestampNs("2262-04-11T00:00:00Z"), 9223286400LL * 1000000000LL);
  EXPECT_EQ(ParseTimestampNs("1677-09-22T00:00:00Z"), -9223286400LL * 1000000000LL);
}

}  // namespace
}  // namespace gpugate::detail
