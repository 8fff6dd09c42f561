// Unit tests of the rule expression language (src/rules/expr.h): precedence,
// units, dimensions, three-valued logic, functions, templates, limits and
// error positions. Malformed expressions are in expr_bad_test.cc.
#include "rules/expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "expr_test_util.h"

namespace gpugate::rules {
namespace {

using testing::MapScope;
using testing::TestSchema;

const SourcePos kPos{"policy.yaml", 7, 11};

Expr MustParse(const std::string& text) {
  Result<Expr> e = ParseExpr(text, TestSchema(), kPos);
  EXPECT_TRUE(e.ok()) << text << ": " << (e.ok() ? "" : e.error().message);
  return e.ok() ? *e : Expr();
}

std::string ErrorOf(const std::string& text) {
  Result<Expr> e = ParseExpr(text, TestSchema(), kPos);
  EXPECT_FALSE(e.ok()) << text << " parsed";
  return e.ok() ? std::string() : e.error().message;
}

// A scope with every name of the test schema known.
MapScope FullScope() {
  MapScope s;
  s.values["kernel.duration"] = Value::Number(20e-6, Dim::Time());
  s.values["kernel.bytes"] = Value::Number(4.0 * 1048576, Dim::Bytes());
  s.values["kernel.throughput"] = Value::Number(200e9, Dim::Rate());
  s.values["kernel.grid_blocks"] = Value::Number(40);
  s.values["kernel.name"] = Value::String("gemm<128>");
  s.values["kernel.regime"] = Value::String("memory-bound");
  s.values["device.sms"] = Value::Number(108);
  s.values["workload.cv"] = Value::Number(0.02);
  s.values["trace.available"] = Value::Bool(true);
  s.values["trace.gpu_idle_pct"] = Value::Number(0.25);
  s.shares["kernel.duration"] = Value::Number(0.4);
  s.counts["kernel"] = Value::Number(12);
  return s;
}

double Num(const std::string& text, const Scope& scope) {
  Value v = Evaluate(MustParse(text), scope);
  EXPECT_EQ(v.kind, Value::Kind::kNumber) << text;
  return v.number;
}

Value::Kind KindOf(const std::string& text, const Scope& scope) {
  return Evaluate(MustParse(text), scope).kind;
}

bool IsTrue(const std::string& text, const Scope& scope) {
  return Evaluate(MustParse(text), scope).IsTrue();
}

TEST(ExprTest, Precedence) {
  MapScope none;
  EXPECT_EQ(Num("1 + 2 * 3", none), 7);
  EXPECT_EQ(Num("(1 + 2) * 3", none), 9);
  EXPECT_EQ(Num("10 - 4 - 3", none), 3);
  EXPECT_EQ(Num("12 / 3 / 2", none), 2);
  EXPECT_EQ(Num("-2 * 3 + 1", none), -5);
  EXPECT_EQ(Num("- (2 - 5)", none), 3);
  EXPECT_TRUE(IsTrue("true or false and false", none));    // and binds tighter
  EXPECT_FALSE(IsTrue("not true or false", none));          // not binds tighter than or
  EXPECT_TRUE(IsTrue("not (true and false)", none));
  EXPECT_TRUE(IsTrue("1 + 1 == 2 and 2 * 2 > 3", none));
  EXPECT_TRUE(IsTrue("not 1 > 2", none));                   // not (1 > 2)
}

TEST(ExprTest, UnitsScaleToSecondsAndBytes) {
  MapScope none;
  EXPECT_DOUBLE_EQ(Num("5us", none), 5e-6);
  EXPECT_DOUBLE_EQ(Num("5 us", none), 5e-6);
  EXPECT_DOUBLE_EQ(Num("5\xC2\xB5s", none), 5e-6);  // MICRO SIGN
  EXPECT_DOUBLE_EQ(Num("5\xCE\xBCs", none), 5e-6);  // GREEK SMALL LETTER MU
  EXPECT_DOUBLE_EQ(Num("250ns", none), 250e-9);
  EXPECT_DOUBLE_EQ(Num("1.5ms", none), 1.5e-3);
  EXPECT_DOUBLE_EQ(Num("2s", none), 2);
  EXPECT_DOUBLE_EQ(Num("1KB", none), 1000);
  EXPECT_DOUBLE_EQ(Num("1KiB", none), 1024);
  EXPECT_DOUBLE_EQ(Num("4 MiB", none), 4194304);
  EXPECT_DOUBLE_EQ(Num("2GB", none), 2e9);
  EXPECT_DOUBLE_EQ(Num("1GiB", none), 1073741824.0);
  EXPECT_DOUBLE_EQ(Num("900 GB/s", none), 900e9);
  EXPECT_DOUBLE_EQ(Num("1.5MiB/s", none), 1.5 * 1048576);
  EXPECT_DOUBLE_EQ(Num("30%", none), 0.3);
  EXPECT_DOUBLE_EQ(Num("1e-3", none), 1e-3);
  EXPECT_DOUBLE_EQ(Num("2.5E2", none), 250);
  EXPECT_TRUE(IsTrue("1000ns == 1us and 1024B == 1KiB and 50% == 0.5", none));
  EXPECT_EQ(MustParse("5us").dim(), Dim::Time());
  EXPECT_EQ(MustParse("5 MB").dim(), Dim::Bytes());
  EXPECT_EQ(MustParse("5 GB/s").dim(), Dim::Rate());
  EXPECT_EQ(MustParse("5%").dim(), Dim::Number());
}

TEST(ExprTest, UnitDoesNotSwallowKeywordsOrDivision) {
  MapScope s = FullScope();
  EXPECT_TRUE(IsTrue("kernel.grid_blocks > 5 and true", s));
  // "GB / kernel.duration" is a division, not the rate unit "GB/s".
  EXPECT_EQ(MustParse("4GB/kernel.duration").dim(), Dim::Rate());
  EXPECT_NEAR(Num("4GB / kernel.duration", s), 4e9 / 20e-6, 1);
}

TEST(ExprTest, DimensionsCombine) {
  EXPECT_EQ(MustParse("kernel.bytes / kernel.duration").dim(), Dim::Rate());
  EXPECT_EQ(MustParse("kernel.duration / kernel.duration").dim(), Dim::Number());
  EXPECT_EQ(MustParse("kernel.throughput * kernel.duration").dim(), Dim::Bytes());
  EXPECT_EQ(MustParse("kernel.duration * kernel.duration").dim(), (Dim{2, 0}));
  EXPECT_EQ(MustParse("ratio(kernel.duration, 1ms)").dim(), Dim::Number());
  EXPECT_EQ(MustParse("kernel.bytes / kernel.duration > 100 GB/s").type(), Type::kBool);
  EXPECT_EQ(Dim::Number().ToString(), "number");
  EXPECT_EQ(Dim::Time().ToString(), "time");
  EXPECT_EQ(Dim::Bytes().ToString(), "bytes");
  EXPECT_EQ(Dim::Rate().ToString(), "bytes/time");
  EXPECT_EQ((Dim{2, 0}).ToString(), "time^2");
  EXPECT_EQ((Dim{-1, 0}).ToString(), "1/time");
  EXPECT_EQ((Dim{-3, 2}).ToString(), "bytes^2/time^3");
  EXPECT_EQ((Dim{1, 1}).ToString(), "bytes*time");
}

TEST(ExprTest, TypeErrorsNameTheKindsAndSuggestAUnit) {
  EXPECT_EQ(ErrorOf("kernel.duration > 5"),
            "policy.yaml:7:29: kernel.duration is a time; write 5us (or another unit)");
  EXPECT_NE(ErrorOf("kernel.bytes >= 1").find("kernel.bytes is a byte size; write 1MiB"),
            std::string::npos);
  EXPECT_NE(ErrorOf("kernel.throughput < 2").find("write 2GB/s"), std::string::npos);
  EXPECT_NE(ErrorOf("kernel.duration + 1KB").find("'+' needs values of one kind, but "
                                                  "kernel.duration is a time and 1KB is a byte size"),
            std::string::npos);
  EXPECT_NE(ErrorOf("kernel.name + 1").find("'+' needs a number, but kernel.name is a string"),
            std::string::npos);
  EXPECT_NE(ErrorOf("true < false").find("'<' needs numbers"), std::string::npos);
  EXPECT_NE(ErrorOf("kernel.name == 3").find("compares kernel.name (a string) with 3 (a number)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("min(kernel.duration, kernel.bytes)").find("min() needs values of one kind"),
            std::string::npos);
  EXPECT_NE(ErrorOf("abs(trace.available)").find("abs() needs a number"), std::string::npos);
  EXPECT_NE(ErrorOf("-kernel.name").find("'-' needs a number"), std::string::npos);
}

TEST(ExprTest, StringsCompareWithEqualityOnly) {
  MapScope s = FullScope();
  EXPECT_TRUE(IsTrue("kernel.regime == \"memory-bound\"", s));
  EXPECT_TRUE(IsTrue("kernel.regime != \"compute-bound\"", s));
  EXPECT_TRUE(IsTrue("\"a\\\"b\" == \"a\\\"b\"", s));
  EXPECT_TRUE(IsTrue("trace.available == true", s));
  EXPECT_NE(ErrorOf("kernel.name >= \"a\"").find("strings can only be compared with == and !="),
            std::string::npos);
}

TEST(ExprTest, ThreeValuedLogic) {
  MapScope s;  // nothing known
  s.values["trace.available"] = Value::Bool(false);
  EXPECT_EQ(KindOf("trace.gpu_idle_pct > 0.5", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("trace.gpu_idle_pct > 0.5 and true", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("trace.gpu_idle_pct > 0.5 or false", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("not (trace.gpu_idle_pct > 0.5)", s), Value::Kind::kUnknown);
  EXPECT_FALSE(IsTrue("trace.gpu_idle_pct > 0.5 and false", s));
  EXPECT_EQ(KindOf("trace.gpu_idle_pct > 0.5 and false", s), Value::Kind::kBool);
  EXPECT_EQ(KindOf("false and trace.gpu_idle_pct > 0.5", s), Value::Kind::kBool);
  EXPECT_TRUE(IsTrue("trace.gpu_idle_pct > 0.5 or true", s));
  EXPECT_TRUE(IsTrue("true or trace.gpu_idle_pct > 0.5", s));
  EXPECT_FALSE(IsTrue("trace.available and trace.gpu_idle_pct > 0.5", s));
  EXPECT_EQ(KindOf("trace.available and trace.gpu_idle_pct > 0.5", s), Value::Kind::kBool);
  EXPECT_EQ(KindOf("trace.gpu_idle_pct + 1", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("kernel.name == \"x\"", s), Value::Kind::kUnknown);
}

// A lower bound (the bytes of a trace's copies when some copies state no
// size): a comparison is settled only when every value the bound allows
// agrees, arithmetic keeps what it still bounds from below, and it prints
// as "≥ 976 KiB".
TEST(ExprTest, ALowerBoundSettlesOnlyWhatItBounds) {
  MapScope s = FullScope();
  s.values["kernel.bytes"] = Value::AtLeast(1000.0 * 1024, Dim::Bytes());
  EXPECT_TRUE(IsTrue("kernel.bytes > 512 KiB", s));
  EXPECT_TRUE(IsTrue("kernel.bytes >= 1000 KiB", s));
  EXPECT_EQ(KindOf("kernel.bytes > 2 MiB", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("kernel.bytes < 2 MiB", s), Value::Kind::kUnknown);
  EXPECT_FALSE(IsTrue("kernel.bytes < 512 KiB", s));
  EXPECT_EQ(KindOf("kernel.bytes < 512 KiB", s), Value::Kind::kBool);
  EXPECT_EQ(KindOf("kernel.bytes <= 1000 KiB", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("kernel.bytes == 1000 KiB", s), Value::Kind::kUnknown);
  EXPECT_TRUE(IsTrue("kernel.bytes != 1 KiB", s));
  EXPECT_TRUE(IsTrue("512 KiB < kernel.bytes", s));
  // Arithmetic: still a lower bound, or unknown where it is not.
  const Value sum = Evaluate(MustParse("kernel.bytes + 24 KiB"), s);
  EXPECT_TRUE(sum.at_least);
  EXPECT_EQ(sum.number, 1024.0 * 1024);
  EXPECT_TRUE(Evaluate(MustParse("kernel.bytes / kernel.duration"), s).at_least);
  EXPECT_TRUE(Evaluate(MustParse("max(kernel.bytes, 1 KiB)"), s).at_least);
  EXPECT_TRUE(Evaluate(MustParse("kernel.bytes * 2"), s).at_least);
  EXPECT_EQ(KindOf("-kernel.bytes", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("2 MiB - kernel.bytes", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("min(kernel.bytes, 2 MiB)", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("kernel.duration / kernel.bytes", s), Value::Kind::kUnknown);
  EXPECT_EQ(Num("min(kernel.bytes, 1 KiB)", s), 1024);
  EXPECT_FALSE(Evaluate(MustParse("min(kernel.bytes, 1 KiB)"), s).at_least);
  EXPECT_EQ(FormatValue(Evaluate(MustParse("kernel.bytes"), s)), "≥ 1000 KiB");
  // Printed rounded down: 1,048,575 B is not "≥ 1.00 MiB".
  s.values["kernel.bytes"] = Value::AtLeast(1048575, Dim::Bytes());
  EXPECT_EQ(FormatValue(Evaluate(MustParse("kernel.bytes"), s)), "≥ 1020 KiB");
  EXPECT_EQ(KindOf("kernel.bytes >= 1 MiB", s), Value::Kind::kUnknown);
  // A bound of another dimension is lowered before it is rounded.
  EXPECT_EQ(FormatValue(Value::AtLeast(0.99999e-3, Dim::Time())), "≥ 995 us");
  EXPECT_EQ(FormatValue(Value::AtLeast(1000)), "≥ 1000");
  s.values["kernel.bytes"] = Value::AtLeast(1000.0 * 1024, Dim::Bytes());
  Result<Template> t = ParseTemplate("3 copies ({kernel.bytes})", TestSchema(), kPos);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(Render(*t, s), "3 copies (≥ 1000 KiB)");
}

TEST(ExprTest, DivisionByZeroAndOverflowAreUnknown) {
  MapScope s = FullScope();
  s.values["device.sms"] = Value::Number(0);
  EXPECT_EQ(KindOf("kernel.grid_blocks / device.sms", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("ratio(kernel.grid_blocks, device.sms)", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("1 / 0 > 1", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("1e300 * 1e300", s), Value::Kind::kUnknown);
  EXPECT_TRUE(IsTrue("1 / 0 > 1 or kernel.grid_blocks > 1", s));
}

TEST(ExprTest, ScopeValuesOfTheWrongKindAreUnknown) {
  MapScope s;
  s.values["device.sms"] = Value::String("108");
  s.values["kernel.grid_blocks"] = Value::Number(std::nan(""));
  s.values["trace.available"] = Value::Number(1);
  s.values["kernel.name"] = Value::Bool(true);
  EXPECT_EQ(KindOf("device.sms", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("kernel.grid_blocks", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("trace.available", s), Value::Kind::kUnknown);
  EXPECT_EQ(KindOf("kernel.name", s), Value::Kind::kUnknown);
}

TEST(ExprTest, ScopeDimensionIsTheSchemas) {
  MapScope s;
  s.values["kernel.duration"] = Value::Number(3e-6);  // engine forgot the dim
  EXPECT_EQ(Evaluate(MustParse("kernel.duration"), s).dim, Dim::Time());
}

TEST(ExprTest, Functions) {
  MapScope s = FullScope();
  EXPECT_EQ(Num("min(3, 1, 2)", s), 1);
  EXPECT_EQ(Num("max(3, 1, 2)", s), 3);
  EXPECT_EQ(Num("abs(-4)", s), 4);
  EXPECT_DOUBLE_EQ(Num("ratio(kernel.duration, 40us)", s), 0.5);
  EXPECT_DOUBLE_EQ(Num("share(kernel.duration)", s), 0.4);
  EXPECT_EQ(Num("count(kernel)", s), 12);
  EXPECT_DOUBLE_EQ(Num("(device.sms - kernel.grid_blocks) / device.sms", s), 68.0 / 108);
  EXPECT_TRUE(IsTrue("kernel.grid_blocks < device.sms and share(kernel.duration) > 10%", s));
  EXPECT_EQ(MustParse("max(kernel.duration, 1us)").dim(), Dim::Time());
  EXPECT_EQ(KindOf("share(kernel.bytes)", s), Value::Kind::kUnknown);  // scope has none
  EXPECT_EQ(KindOf("min(1, workload.cv, trace.gpu_idle_pct + 1)", MapScope()),
            Value::Kind::kUnknown);
}

TEST(ExprTest, FunctionErrors) {
  EXPECT_NE(ErrorOf("min(1)").find("min() takes at least 2 arguments, got 1"), std::string::npos);
  EXPECT_NE(ErrorOf("abs(1, 2)").find("abs() takes 1 argument, got 2"), std::string::npos);
  EXPECT_NE(ErrorOf("abs()").find("abs() takes 1 argument, got 0"), std::string::npos);
  EXPECT_NE(ErrorOf("sqrt(4)").find("unknown function 'sqrt'"), std::string::npos);
  EXPECT_NE(ErrorOf("device.sms(4)").find("'device.sms' is a name, not a function"),
            std::string::npos);
  EXPECT_NE(ErrorOf("share(kernel.duratoin)").find("did you mean 'kernel.duration'?"),
            std::string::npos);
  EXPECT_NE(ErrorOf("count(3)").find("count() takes one name"), std::string::npos);
  EXPECT_NE(ErrorOf("max(1, 2").find("'(' of max() is never closed"), std::string::npos);
}

TEST(ExprTest, UnknownNameListsTheNames) {
  const std::string e = ErrorOf("device.smz > 1");
  EXPECT_EQ(e.rfind("policy.yaml:7:11: unknown name 'device.smz' (did you mean 'device.sms'?); "
                    "names: device.sms, kernel, kernel.bytes, ",
                    0),
            0u)
      << e;
  Result<Expr> none = ParseExpr("x", Schema(), kPos);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no names are available here"), std::string::npos);
}

TEST(ExprTest, ErrorPositionsCountLinesAndCharacters) {
  // The base position is that of the first character; columns count
  // characters (the micro sign is one), lines restart at column 1.
  EXPECT_EQ(ErrorOf("5\xC2\xB5s > 3 $").rfind("policy.yaml:7:19: unexpected character '$'", 0), 0u);
  EXPECT_EQ(ErrorOf("true and\n  false and\n   device.sms").rfind("policy.yaml:9:4: 'and' needs", 0),
            0u);
  EXPECT_EQ(ErrorOf("\n\n(").rfind("policy.yaml:9:1: '(' is never closed", 0), 0u);
  EXPECT_NE(ErrorOf("1 +").find("policy.yaml:7:13: '+' at the end needs a value"),
            std::string::npos);
  EXPECT_NE(ErrorOf("1 + * 2").find("policy.yaml:7:15: expected a value, found '*'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("\x01").find("unexpected character U+0001"), std::string::npos);
  // A character beyond ASCII is named whole, not by its first byte.
  EXPECT_NE(ErrorOf("a \u2265 1").find("unexpected character '\u2265' (U+2265)"), std::string::npos)
      << ErrorOf("a \u2265 1");
  EXPECT_NE(ErrorOf("a \u202E 1").find("unexpected character U+202E"), std::string::npos);
  EXPECT_NE(ErrorOf("a \xE2 1").find("unexpected character byte \\xE2"), std::string::npos);
}

TEST(ExprTest, LexicalErrors) {
  EXPECT_NE(ErrorOf("1e").find("digits must follow the exponent"), std::string::npos);
  EXPECT_NE(ErrorOf("1.").find("a digit must follow '.'"), std::string::npos);
  EXPECT_NE(ErrorOf(".5").find("write 0.5"), std::string::npos);
  EXPECT_NE(ErrorOf("5em").find("unknown unit 'em'"), std::string::npos);
  EXPECT_NE(ErrorOf("% 2").find("'%' follows a number"), std::string::npos);
  EXPECT_NE(ErrorOf("1 || 2").find("write 'or'"), std::string::npos);
  EXPECT_NE(ErrorOf("!true").find("write 'not'"), std::string::npos);
  EXPECT_NE(ErrorOf("kernel. x").find("after '.'"), std::string::npos);
  EXPECT_NE(ErrorOf("\"a\\n\"").find("escapes only"), std::string::npos);
  EXPECT_NE(ErrorOf("1e308 GB").find("out of range"), std::string::npos);
  EXPECT_NE(ErrorOf("{x}").find("braces only delimit placeholders"), std::string::npos);
}

TEST(ExprTest, ConditionMustBeBoolean) {
  const SourcePos pos{"p.yaml", 3, 9};
  EXPECT_TRUE(ParseCondition("kernel.duration > 5us", TestSchema(), pos).ok());
  Result<Expr> e = ParseCondition("  kernel.duration", TestSchema(), pos);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "p.yaml:3:11: a condition must be true or false, but this expression is a time "
            "(compare it with a value)");
  EXPECT_FALSE(ParseCondition("kernel.name", TestSchema(), pos).ok());
}

TEST(ExprTest, LimitsAreErrorsNotCrashes) {
  MapScope none;
  // Nesting: 64 levels parse, 65 do not.
  std::string ok = std::string(64, '(') + "1" + std::string(64, ')');
  EXPECT_EQ(Num(ok, none), 1);
  std::string deep = std::string(65, '(') + "1" + std::string(65, ')');
  EXPECT_NE(ErrorOf(deep).find("policy.yaml:7:75: the expression nests deeper than 64 levels"),
            std::string::npos);
  EXPECT_NE(ErrorOf(std::string(100, '-') + "1").find("nests deeper"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string(100000, '(')).find("the limit is 4096"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 80; ++i) nots += "not ";
  EXPECT_NE(ErrorOf(nots + "true").find("nests deeper"), std::string::npos);
  // A long flat chain is fine up to the length limit.
  std::string sum = "1";
  while (sum.size() + 2 <= kMaxExprLength) sum += "+1";
  EXPECT_EQ(Num(sum, none), static_cast<double>((sum.size() + 1) / 2));
  EXPECT_NE(ErrorOf(sum + "+1").find("bytes long; the limit is 4096"), std::string::npos);
}

TEST(ExprTest, NamesUsedIncludesAggregates) {
  Expr e = MustParse("kernel.grid_blocks < device.sms and share(kernel.duration) > 10% and "
                     "count(kernel) > 1 and kernel.grid_blocks > 0");
  EXPECT_EQ(NamesUsed(e), (std::set<std::string>{"kernel", "device.sms", "kernel.duration",
                                                 "kernel.grid_blocks"}));
  EXPECT_TRUE(NamesUsed(MustParse("1 + 2 > 2")).empty());
  EXPECT_TRUE(NamesUsed(Expr()).empty());
  EXPECT_EQ(Evaluate(Expr(), MapScope()).kind, Value::Kind::kUnknown);
}

TEST(ExprTest, ExprIsCopyableAndKeepsItsText) {
  Expr a = MustParse("device.sms * 2");
  Expr b = a;
  EXPECT_EQ(b.text(), "device.sms * 2");
  EXPECT_EQ(b.type(), Type::kNumber);
  EXPECT_EQ(Num("device.sms * 2", FullScope()), 216);
}

TEST(ExprTest, FormatValueByDimension) {
  EXPECT_EQ(FormatValue(Value()), "?");
  EXPECT_EQ(FormatValue(Value::Bool(true)), "true");
  EXPECT_EQ(FormatValue(Value::Bool(false)), "false");
  EXPECT_EQ(FormatValue(Value::String("gemm")), "gemm");
  EXPECT_EQ(FormatValue(Value::Number(12.3e-6, Dim::Time())), "12.3 us");
  EXPECT_EQ(FormatValue(Value::Number(4.0 * 1048576, Dim::Bytes())), "4.00 MiB");
  EXPECT_EQ(FormatValue(Value::Number(1e30, Dim::Bytes())), "1e+30 B");
  EXPECT_EQ(FormatValue(Value::Number(900e9, Dim::Rate())), "900 GB/s");
  EXPECT_EQ(FormatValue(Value::Number(108)), "108");
  EXPECT_EQ(FormatValue(Value::Number(0.629629)), "0.6296");
  EXPECT_EQ(FormatValue(Value::Number(2e-12, Dim{2, 0})), "2e-12 s^2");
  EXPECT_EQ(FormatValue(Value::Number(std::nan(""))), "?");
}

TEST(TemplateTest, RendersPlaceholdersByDimension) {
  Result<Template> t = ParseTemplate(
      "{kernel.name} launches {kernel.grid_blocks} blocks on {device.sms} SMs, "
      "{kernel.duration} per call, {kernel.bytes / kernel.duration} ({share(kernel.duration)})",
      TestSchema(), kPos);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(Render(*t, FullScope()),
            "gemm<128> launches 40 blocks on 108 SMs, 20.0 us per call, 209.7 GB/s (0.4)");
}

TEST(TemplateTest, BracesEscapeAndUnknownIsQuestionMark) {
  Result<Template> t = ParseTemplate("{{literal}} {trace.gpu_idle_pct} }}{{", TestSchema(), kPos);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(Render(*t, MapScope()), "{literal} ? }{");
  Result<Template> plain = ParseTemplate("no placeholders", TestSchema(), kPos);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Render(*plain, MapScope()), "no placeholders");
  Result<Template> with_string = ParseTemplate("{kernel.regime == \"a}b\"}", TestSchema(), kPos);
  ASSERT_TRUE(with_string.ok()) << with_string.error().message;
  EXPECT_EQ(Render(*with_string, FullScope()), "false");
}

TEST(TemplateTest, ErrorsPointIntoTheTemplate) {
  auto error = [](const std::string& text) {
    Result<Template> t = ParseTemplate(text, TestSchema(), kPos);
    EXPECT_FALSE(t.ok()) << text;
    return t.ok() ? std::string() : t.error().message;
  };
  EXPECT_EQ(error("blocks: {kernel.grid_blockz}"),
            "policy.yaml:7:20: unknown name 'kernel.grid_blockz' (did you mean "
            "'kernel.grid_blocks'?); names: device.sms, kernel, kernel.bytes, kernel.duration, "
            "kernel.grid_blocks, kernel.name, kernel.regime, kernel.throughput, trace.available, "
            "trace.gpu_idle_pct, workload.cv");
  EXPECT_EQ(error("line one\n  {device.sms + 1us}").rfind("policy.yaml:8:15: '+' needs values of one kind", 0), 0u);
  EXPECT_NE(error("open {device.sms").find("policy.yaml:7:16: '{' is never closed"),
            std::string::npos);
  EXPECT_NE(error("a } b").find("policy.yaml:7:13: a single '}'"), std::string::npos);
  EXPECT_NE(error("x {  } y").find("policy.yaml:7:13: empty placeholder"), std::string::npos);
  EXPECT_NE(error(std::string(kMaxTemplateLength + 1, 'a')).find("the limit is 16384"),
            std::string::npos);
}

}  // namespace
}  // namespace gpugate::rules
