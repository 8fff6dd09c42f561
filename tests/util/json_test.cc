// Tests of the positioned JSON DOM (src/util/json.h): value positions, syntax
// errors with line:col, numbers (NaN/Infinity literals, exact int64, correctly
// rounded doubles), unicode escapes and rejection of trailing garbage.
#include "util/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "util/json_writer.h"

namespace gpugate {
namespace {

JsonValue MustParse(std::string_view text) {
  Result<JsonValue> r = ParseJson(text, "t.json");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : JsonValue();
}

std::string ParseError(std::string_view text) {
  Result<JsonValue> r = ParseJson(text, "t.json");
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  return r.error().message;
}

TEST(JsonParse, ValuesRememberLineAndColumn) {
  const std::string text =
      "{\n"
      "  \"a\": [1, 22,\n"
      "        \"x\\\"y\", null],\n"
      "  \"b\": {\"c\": true}\n"
      "}\n";
  JsonValue root = MustParse(text);
  EXPECT_EQ(root.line, 1);
  EXPECT_EQ(root.column, 1);
  const JsonValue* a = root.Find("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->line, 2);
  EXPECT_EQ(a->column, 8);
  ASSERT_EQ(a->items.size(), 4u);
  EXPECT_EQ(a->items[0].line, 2);
  EXPECT_EQ(a->items[0].column, 9);
  EXPECT_EQ(a->items[1].column, 12);
  EXPECT_EQ(a->items[2].line, 3);
  EXPECT_EQ(a->items[2].column, 9);
  EXPECT_EQ(a->items[2].string, "x\"y");
  EXPECT_EQ(a->items[3].line, 3);
  EXPECT_EQ(a->items[3].column, 17);
  const JsonValue* c = root.Find("b")->Find("c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->line, 4);
  EXPECT_EQ(c->column, 14);
  EXPECT_TRUE(c->IsBool());
  EXPECT_TRUE(c->boolean);
}

TEST(JsonParse, ColumnsCountCodePointsNotBytes) {
  // "é" is two bytes in UTF-8 but one column.
  JsonValue root = MustParse("{\"\xC3\xA9\": 1, \"k\": -2.5e1}");
  ASSERT_EQ(root.members.size(), 2u);
  EXPECT_EQ(root.members[0].second.column, 7);
  EXPECT_EQ(root.members[1].second.column, 15);
  EXPECT_EQ(root.members[1].second.number, -25.0);
}

TEST(JsonParse, PositionsAfterLongGaps) {
  std::string long_string;
  for (int i = 0; i < 100; ++i) long_string += "\xC3\xA9";  // 100 x "é"
  JsonValue a = MustParse("[\"" + long_string + "\", 1]");
  EXPECT_EQ(a.items[1].column, 106);
  JsonValue b = MustParse("[1," + std::string(80, ' ') + "\n" + std::string(70, ' ') + "\n   2]");
  EXPECT_EQ(b.items[1].line, 3);
  EXPECT_EQ(b.items[1].column, 4);
}

TEST(JsonParse, MinifiedSingleLinePositions) {
  JsonValue root = MustParse("[[0.5,1.5],[2.5,NaN]]");
  ASSERT_EQ(root.items.size(), 2u);
  EXPECT_EQ(root.items[1].column, 12);
  EXPECT_EQ(root.items[1].items[1].column, 17);
  EXPECT_TRUE(std::isnan(root.items[1].items[1].number));
}

TEST(JsonParse, SyntaxErrorsNameLineAndColumn) {
  EXPECT_EQ(ParseError("{\n  \"a\": 1,\n  \"b\": tru\n}"), "t.json:3:11: Invalid value.");
  EXPECT_EQ(ParseError("[1,\n 2,,3]"), "t.json:2:4: Invalid value.");
  EXPECT_EQ(ParseError("{\"a\" 1}"), "t.json:1:6: Missing a colon after a name of object member.");
  EXPECT_EQ(ParseError("[1, 2 x"), "t.json:1:7: Missing a comma or ']' after an array element.");
}

TEST(JsonParse, AFileThatEndsInsideTheDocumentIsCalledTruncated) {
  EXPECT_EQ(ParseError("[1, 2"),
            "t.json:1:6: unexpected end of file (truncated?): Missing a comma or ']' after an "
            "array element.");
  EXPECT_EQ(ParseError("[1, 2\n\n  "),
            "t.json:3:3: unexpected end of file (truncated?): Missing a comma or ']' after an "
            "array element.");
  EXPECT_EQ(ParseError("\"abc"),
            "t.json:1:5: unexpected end of file (truncated?): Missing a closing quotation mark "
            "in string.");
  EXPECT_EQ(ParseError("{\"benchmarks\": [{\"name\": \"BM_A\", \"real_ti"),
            "t.json:1:42: unexpected end of file (truncated?): Missing a closing quotation mark "
            "in string.");
  // Cut inside an escape sequence (the fault is at its backslash) or a
  // literal (the fault is where the text ran out).
  EXPECT_EQ(ParseError("{\"name\": \"a\\u12"),
            "t.json:1:12: unexpected end of file (truncated?): Incorrect hex digit after \\u "
            "escape in string.");
  EXPECT_EQ(ParseError("{\"a\": [1, tr\n"),
            "t.json:1:13: unexpected end of file (truncated?): Invalid value.");
  // The same faults with text after them are syntax errors.
  EXPECT_EQ(ParseError("{\"name\": \"a\\u12\"}"),
            "t.json:1:12: Incorrect hex digit after \\u escape in string.");
  EXPECT_EQ(ParseError("{\"a\": [1, tr]}"), "t.json:1:13: Invalid value.");
  EXPECT_EQ(ParseError("{\"a\": xyz"), "t.json:1:7: Invalid value.");
}

TEST(JsonParse, ANulByteIsNamedWhereverItStands) {
  // RapidJSON reads NUL as the end of the text: after a complete document it
  // would hide what follows.
  EXPECT_EQ(ParseError(std::string("{\"a\": 1}\0{\"b\": 2}", 17)),
            "t.json:1:9: a NUL byte, which JSON text cannot hold (binary data?)");
  EXPECT_EQ(ParseError(std::string("{\"a\": 1}\n\0", 10)),
            "t.json:2:1: a NUL byte, which JSON text cannot hold (binary data?)");
  EXPECT_EQ(ParseError(std::string("[1,\0 2]", 7)),
            "t.json:1:4: a NUL byte, which JSON text cannot hold (binary data?)");
}

TEST(JsonParse, ARawControlCharacterInAStringIsNamedNotCalledAnEscape) {
  EXPECT_EQ(ParseError("[{\"name\": \"x\ty\"}]"),
            "t.json:1:13: not valid JSON: a control character (U+0009) inside a string, not escaped "
            "(\\t, \\n, \\u00XX) by the program that wrote the file");
  EXPECT_EQ(ParseError("{\"host\": \"a\nb\"}"),
            "t.json:1:12: not valid JSON: a control character (U+000A) inside a string, not escaped "
            "(\\t, \\n, \\u00XX) by the program that wrote the file");
  // An escape that JSON lacks is still one.
  EXPECT_EQ(ParseError("[\"a\\qb\"]"), "t.json:1:4: Invalid escape character in string.");
}

TEST(JsonParse, WhereADocumentCutShortEnds) {
  EXPECT_EQ(JsonCutShortAt("{"), std::make_optional(std::make_pair(1, 2)));
  EXPECT_EQ(JsonCutShortAt("{\n  \"benchmarks\": [\n"), std::make_optional(std::make_pair(3, 1)));
  EXPECT_EQ(JsonCutShortAt("{\"a\": 1}"), std::nullopt);
  EXPECT_EQ(JsonCutShortAt("not json"), std::nullopt);
  EXPECT_EQ(JsonCutShortAt("{\"a\": 1,, "), std::nullopt);
  EXPECT_EQ(JsonCutShortAt("  "), std::nullopt);
}

TEST(JsonParse, EmptyInputIsAnError) {
  EXPECT_EQ(ParseError(""), "t.json: empty file");
  EXPECT_EQ(ParseError(" \n\t\n"), "t.json: empty file");
}

TEST(JsonParse, TrailingGarbageIsRejected) {
  EXPECT_EQ(ParseError("{} x"),
            "t.json:1:4: The document root must not be followed by other values.");
  EXPECT_EQ(ParseError("[1]\n[2]"),
            "t.json:2:1: The document root must not be followed by other values.");
  // Trailing whitespace is fine.
  EXPECT_TRUE(ParseJson("[1]\n\n  ", "t.json").ok());
}

TEST(JsonParse, NanAndInfinityLiteralsAreNumbers) {
  JsonValue root = MustParse("[NaN, Infinity, -Infinity, Inf, -Inf]");
  ASSERT_EQ(root.items.size(), 5u);
  for (const JsonValue& v : root.items) {
    EXPECT_TRUE(v.IsNumber());
    EXPECT_FALSE(v.is_integer);
  }
  EXPECT_TRUE(std::isnan(root.items[0].number));
  EXPECT_EQ(root.items[1].number, std::numeric_limits<double>::infinity());
  EXPECT_EQ(root.items[2].number, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(root.items[3].number, std::numeric_limits<double>::infinity());
  EXPECT_EQ(root.items[4].number, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ParseError("[Nan]"), "t.json:1:4: Invalid value.");
}

TEST(JsonParse, IntegersStayExact) {
  JsonValue root = MustParse(
      "[0, -0, 42, 9007199254740993, 9223372036854775807, -9223372036854775808,"
      " 9223372036854775808, 1e3, 2.0]");
  ASSERT_EQ(root.items.size(), 9u);
  EXPECT_TRUE(root.items[0].is_integer);
  EXPECT_TRUE(root.items[1].is_integer);
  EXPECT_EQ(root.items[2].integer, 42);
  // 2^53 + 1 is not a double but is an exact int64.
  EXPECT_TRUE(root.items[3].is_integer);
  EXPECT_EQ(root.items[3].integer, 9007199254740993LL);
  EXPECT_EQ(root.items[4].integer, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(root.items[5].integer, std::numeric_limits<int64_t>::min());
  // One past int64: kept as a number only.
  EXPECT_FALSE(root.items[6].is_integer);
  EXPECT_EQ(root.items[6].number, 9223372036854775808.0);
  // Exponent or fraction: a number, not an integer literal.
  EXPECT_FALSE(root.items[7].is_integer);
  EXPECT_EQ(root.items[7].number, 1000.0);
  EXPECT_FALSE(root.items[8].is_integer);
  EXPECT_EQ(root.items[8].number, 2.0);
}

TEST(JsonParse, DoublesAreCorrectlyRounded) {
  JsonValue root = MustParse(
      "[0.1, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308, 1e-400,"
      " 0.30000000000000004, 123456789012345678901234567890]");
  ASSERT_EQ(root.items.size(), 7u);
  EXPECT_EQ(root.items[0].number, 0.1);
  EXPECT_EQ(root.items[1].number, std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(root.items[2].number, std::numeric_limits<double>::max());
  EXPECT_EQ(root.items[3].number, std::numeric_limits<double>::min());
  EXPECT_EQ(root.items[4].number, 0.0);  // underflow rounds to zero
  EXPECT_EQ(root.items[5].number, 0.1 + 0.2);
  EXPECT_EQ(root.items[6].number, 1.2345678901234568e29);
  EXPECT_EQ(ParseError("[1, 1e400]"),
            "t.json:1:5: Number too big to be stored in double.");
  EXPECT_EQ(ParseError("[1.8e308]"), "t.json:1:2: number '1.8e308' is out of range");
}

TEST(JsonParse, ShortestFormattedDoublesRoundTripBitForBit) {
  std::mt19937_64 rng(12345);
  std::string text = "[";
  std::vector<double> expected;
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d)) continue;
    char buf[40];
    int n = FormatJsonDouble(d, buf);
    if (!expected.empty()) text += ',';
    text.append(buf, static_cast<size_t>(n));
    expected.push_back(d);
  }
  text += "]";
  JsonValue root = MustParse(text);
  ASSERT_EQ(root.items.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    uint64_t a, b;
    std::memcpy(&a, &expected[i], sizeof a);
    std::memcpy(&b, &root.items[i].number, sizeof b);
    ASSERT_EQ(a, b) << "index " << i;
  }
}

TEST(JsonParse, UnicodeEscapesBecomeUtf8) {
  JsonValue root = MustParse(R"(["\u00e9\u20ac", "\ud83d\ude00", "a\u0000b", "\n\t\\\/"])");
  ASSERT_EQ(root.items.size(), 4u);
  EXPECT_EQ(root.items[0].string, "\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(root.items[1].string, "\xF0\x9F\x98\x80");
  EXPECT_EQ(root.items[2].string, std::string("a\0b", 3));
  EXPECT_EQ(root.items[3].string, "\n\t\\/");
  EXPECT_EQ(ParseError(R"(["\ud83d"])"),
            "t.json:1:3: The surrogate pair in string is invalid.");
}

TEST(JsonParse, ObjectsKeepFileOrder) {
  JsonValue root = MustParse(R"({"z": 1, "a": 2, "y": 3})");
  ASSERT_EQ(root.members.size(), 3u);
  EXPECT_EQ(root.members[0].first, "z");
  EXPECT_EQ(root.members[1].first, "a");
  EXPECT_EQ(root.Find("z")->integer, 1);
  EXPECT_EQ(root.Find("missing"), nullptr);
  EXPECT_EQ(root.Find("a")->Find("x"), nullptr);  // not an object
}

TEST(JsonParse, RepeatedKeysAreErrorsAtTheSecond) {
  // At the top level the second key itself is the position (it is caught
  // as it arrives); deeper, the second value.
  EXPECT_EQ(ParseError(R"({"z": 1, "a": 2, "z": 3})"), "t.json:1:18: duplicate key 'z' (first at 1:7)");
  EXPECT_EQ(ParseError("[{\"a\": {\"b\": 1,\n \"b\": [2]}}]"),
            "t.json:2:7: duplicate key 'b' (first at 1:14)");
  // Same keys in different objects, and keys that differ only in case, are fine.
  EXPECT_TRUE(ParseJson(R"([{"a": 1}, {"a": 2}, {"A": 1, "a": 2}])", "t.json").ok());
}

TEST(JsonParse, RepeatedKeysInLargeObjectsAreFound) {
  // Objects beyond the eager check are sorted when they close; the error
  // names the earliest repeat in file order.
  std::string text = "[{";
  for (int i = 0; i < 500; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  text += "\"k7\": 0, \"k3\": 0}]";
  std::string e = ParseError(text);
  EXPECT_NE(e.find("duplicate key 'k7'"), std::string::npos) << e;
  text = "[{";
  for (int i = 0; i < 500; ++i) text += (i ? ", " : "") + std::string("\"k") + std::to_string(i) + "\": 1";
  text += "}]";
  EXPECT_TRUE(ParseJson(text, "t.json").ok());
}

TEST(JsonStreaming, ARepeatedStreamedArrayIsRefusedBeforeItStreams) {
  size_t calls = 0;
  Result<JsonValue> r = ParseJsonStreaming(
      R"({"w": [1, 2], "w": [3]})", "t.json", "w",
      [&calls](const JsonValue&, const JsonValue&, size_t) {
        ++calls;
        return Status::Ok();
      });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.json:1:15: duplicate key 'w' (first at 1:7)");
  EXPECT_EQ(calls, 2u);
}

TEST(JsonParse, TypeNames) {
  JsonValue root = MustParse(R"([null, false, 1, "s", [], {}])");
  std::vector<std::string> names;
  for (const auto& v : root.items) names.push_back(v.TypeName());
  EXPECT_EQ(names, (std::vector<std::string>{"null", "bool", "number", "string", "array",
                                             "object"}));
}

TEST(JsonParse, ByteOrderMarkIsSkipped) {
  JsonValue root = MustParse("\xEF\xBB\xBF{\"a\": 1}");
  EXPECT_EQ(root.column, 1);
  EXPECT_EQ(root.Find("a")->column, 7);
}

TEST(JsonParse, DeepNestingIsRejected) {
  std::string text(600, '[');
  text += std::string(600, ']');
  EXPECT_EQ(ParseError(text), "t.json:1:513: nesting deeper than 512 levels");
  std::string ok(100, '[');
  ok += std::string(100, ']');
  EXPECT_TRUE(ParseJson(ok, "t.json").ok());
}

TEST(JsonStreaming, ElementsArePassedOneByOneAndDropped) {
  const std::string text =
      "{\"head\": 1,\n"
      " \"items\": [{\"a\": [1, 2]},\n"
      "           7, \"s\"],\n"
      " \"tail\": {\"items\": [5]}}";
  std::vector<std::string> seen;
  Result<JsonValue> doc = ParseJsonStreaming(
      text, "t.json", "items",
      [&](const JsonValue& root, const JsonValue& element, size_t index) -> Status {
        // Members before the array are complete; later ones are not there yet.
        EXPECT_NE(root.Find("head"), nullptr);
        EXPECT_EQ(root.Find("tail"), nullptr);
        seen.push_back(std::to_string(index) + ":" + element.TypeName() + "@" +
                       std::to_string(element.line) + ":" + std::to_string(element.column));
        if (index == 0) {
          EXPECT_EQ(element.Find("a")->items[1].integer, 2);
        }
        return Status::Ok();
      });
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(seen, (std::vector<std::string>{"0:object@2:12", "1:number@3:12", "2:string@3:15"}));
  const JsonValue* items = doc->Find("items");
  ASSERT_NE(items, nullptr);
  EXPECT_TRUE(items->IsArray());
  EXPECT_TRUE(items->items.empty());
  EXPECT_EQ(items->line, 2);
  EXPECT_EQ(items->column, 11);
  // Only the top-level member is streamed; a nested one of the same name stays.
  EXPECT_EQ(doc->Find("tail")->Find("items")->items.size(), 1u);
}

TEST(JsonStreaming, HandlerErrorStopsTheParse) {
  int calls = 0;
  Result<JsonValue> doc = ParseJsonStreaming(
      "{\"items\": [1, 2, 3, 4]}", "t.json", "items",
      [&](const JsonValue&, const JsonValue& element, size_t) -> Status {
        ++calls;
        if (element.integer == 2) return InputError("t.json: stop at 2");
        return Status::Ok();
      });
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().message, "t.json: stop at 2");
  EXPECT_EQ(calls, 2);
}

TEST(JsonStreaming, OtherDocumentsParseAsUsual) {
  auto fail = [](const JsonValue&, const JsonValue&, size_t) -> Status {
    return InputError("unexpected");
  };
  Result<JsonValue> array = ParseJsonStreaming("[[1], {\"items\": [2]}]", "t.json", "items", fail);
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(array->items.size(), 2u);
  EXPECT_EQ(ParseJsonStreaming("{\"items\": [1,]}", "t.json", "items",
                               [](const JsonValue&, const JsonValue&, size_t) {
                                 return Status::Ok();
                               })
                .error()
                .message,
            "t.json:1:14: Invalid value.");
}

TEST(JsonError, FormatsNameLineColumnPathMessage) {
  JsonValue root = MustParse("{\n  \"x\": \"s\"\n}");
  Error e = JsonError("r.json", *root.Find("x"), "workloads[0].x", "expected a number, got string");
  EXPECT_EQ(e.message, "r.json:2:8: workloads[0].x: expected a number, got string");
  EXPECT_EQ(e.code, ExitCode::kInputError);
  EXPECT_EQ(JsonError("r.json", root, "", "not results").message, "r.json:1:1: not results");
}

TEST(JsonTest, WideEncodingsAreNamed) {
  using namespace std::string_view_literals;
  EXPECT_EQ(WideEncodingText("\xFF\xFE{\0\"\0"sv),
            "text in UTF-16 (little-endian), not UTF-8: convert it (iconv -f UTF-16 -t UTF-8 IN > OUT)");
  EXPECT_EQ(WideEncodingText("{\0\"\0b\0"sv)->substr(0, 30), "text in UTF-16 (little-endian)");
  EXPECT_EQ(WideEncodingText("\0{\0\""sv)->substr(0, 27), "text in UTF-16 (big-endian)");
  EXPECT_EQ(WideEncodingText("\xFF\xFE\0\0{\0\0\0"sv)->substr(0, 30), "text in UTF-32 (little-endian)");
  EXPECT_EQ(WideEncodingText("{\0\0\0\"\0\0\0"sv)->substr(0, 30), "text in UTF-32 (little-endian)");
  EXPECT_EQ(WideEncodingText("\0\0\0{\0\0\0\""sv)->substr(0, 27), "text in UTF-32 (big-endian)");
  EXPECT_FALSE(WideEncodingText("{\"a\": 1}"));
  EXPECT_FALSE(WideEncodingText(""));
  EXPECT_FALSE(WideEncodingText("\xEF\xBB\xBF{}"));  // a UTF-8 BOM is UTF-8
  // Every reader's fault text says it.
  const std::string u16("\xFF\xFE{\0}\0", 6);
  EXPECT_EQ(JsonFaultText(u16, 0, 3).substr(0, 30), "text in UTF-16 (little-endian)");
}

}  // namespace
}  // namespace gpugate
