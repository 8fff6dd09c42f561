// Tests of the JSON writing helpers (src/util/json_writer.h): shortest
// round-trip doubles, null for non-finite numbers and optionals, UTF-8 repair.
#include "util/json_writer.h"

#include <gtest/gtest.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <limits>
#include <optional>
#include <string>

namespace gpugate {
namespace {

std::string Format(double v) {
  char buf[40];
  int n = FormatJsonDouble(v, buf);
  return std::string(buf, static_cast<size_t>(n));
}

TEST(JsonWriter, DoublesUseShortestRoundTripText) {
  EXPECT_EQ(Format(0.1), "0.1");
  EXPECT_EQ(Format(2.0), "2.0");
  EXPECT_EQ(Format(-0.0), "-0.0");
  EXPECT_EQ(Format(1e-7), "1e-07");
  EXPECT_EQ(Format(1e21), "1e+21");
  EXPECT_EQ(Format(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Format(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(Format(std::numeric_limits<double>::denorm_min()), "5e-324");
}

TEST(JsonWriter, NonFiniteAndEmptyOptionalsAreNull) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartArray();
  WriteJsonDouble(w, std::numeric_limits<double>::quiet_NaN());
  WriteJsonDouble(w, -std::numeric_limits<double>::infinity());
  WriteJsonValue(w, std::optional<double>());
  WriteJsonValue(w, std::optional<double>(0.25));
  WriteJsonValue(w, std::optional<int64_t>(int64_t{1} << 40));
  WriteJsonValue(w, std::optional<bool>(false));
  WriteJsonValue(w, std::optional<std::string>("x"));
  w.EndArray();
  EXPECT_EQ(std::string(buffer.GetString()),
            "[null,null,null,0.25,1099511627776,false,\"x\"]");
}

TEST(JsonWriter, InvalidUtf8IsReplaced) {
  EXPECT_EQ(ValidUtf8Prefix("abc\xC3\xA9"), 5u);
  EXPECT_EQ(ValidUtf8Prefix("ab\xFF" "c"), 2u);
  EXPECT_EQ(ValidUtf8Prefix("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(ValidUtf8Prefix("\xED\xA0\x80"), 0u);      // UTF-16 surrogate
  EXPECT_EQ(ValidUtf8Prefix("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(ValidUtf8Prefix("\xE2\x82"), 0u);          // truncated
  EXPECT_EQ(RepairUtf8("ok\xFFok\xE2\x82"), "ok\xEF\xBF\xBDok\xEF\xBF\xBD\xEF\xBF\xBD");

  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  WriteJsonString(w, "a\xFF\"\n");
  EXPECT_EQ(std::string(buffer.GetString()), "\"a\xEF\xBF\xBD\\\"\\n\"");
}

}  // namespace
}  // namespace gpugate
