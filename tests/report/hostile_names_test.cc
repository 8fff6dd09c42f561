// Untrusted names (workloads, kernels, labels, sentences) carrying markup,
// control codes and command syntax must come out inert in every format.
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <string>
#include <vector>

#include "report/console.h"
#include "report/github.h"
#include "report/html.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "report/registry.h"
#include "report/report_fixtures.h"
#include "report/report_test_util.h"

namespace gpugate {
namespace {

using namespace std::string_literals;
using testing_fixtures::HaveTool;
using testing_fixtures::Metric;
using testing_fixtures::ReadText;
using testing_fixtures::RunShell;
using testing_fixtures::TempPath;
using testing_fixtures::WithStats;
using testing_fixtures::WriteText;

// Pipes, backticks, HTML, an entity, a CDATA end, a newline, ANSI colour, NUL
// and other control characters, a URL-encoded newline, a workflow command and
// Markdown emphasis/link syntax.
const std::string kHostile =
    "evil|name`code`<script>alert(1)</script>&amp;]]>\nline2\x1b[31mred\x1b[0m\x00\x01\x07"
    "%0A::error::boom *b* _i_ [x](y) #h"s;
// Invalid UTF-8 bytes.
const std::string kBadUtf8 = "bad\xff\xfe" "bytes";

Verdicts HostileVerdicts() {
  Verdicts v;
  v.tool_version = "0.1.0";
  v.baseline_label = "base " + kHostile;
  v.current_label = "head " + kHostile;
  v.policy_name = "policy " + kHostile;
  v.outcome = Outcome::kFail;
  auto reg = WithStats(Metric(kHostile, "time", Verdict::kRegression), 1.2, 1.1, 1.3, 0.001,
                       0.002, 1e-3, 1.2e-3);
  reg.reason = Reason::kSignificantAboveThreshold;
  reg.sentence = "sentence " + kHostile;
  v.metrics.push_back(reg);
  auto kernel = WithStats(Metric("w", "kernel:" + kHostile, Verdict::kRegression), 1.2, 1.1, 1.3,
                          0.001, 0.002, 1e-3, 1.2e-3);
  kernel.waived = true;
  kernel.waiver_reason = "waiver " + kHostile;
  v.metrics.push_back(kernel);
  auto inc = Metric(kHostile, "time", Verdict::kInconclusive);
  inc.sentence = kHostile;
  v.metrics.push_back(inc);
  auto skipped = Metric(kBadUtf8, "time", Verdict::kSkipped);
  skipped.sentence = kBadUtf8;
  v.metrics.push_back(skipped);
  auto unchanged = Metric(kHostile, "time", Verdict::kUnchanged);
  unchanged.ratio = 1.0;
  v.metrics.push_back(unchanged);
  // A workload that failed: its sentence (the cause) is shown as it is.
  auto failed = Metric(kHostile, "time", Verdict::kSkipped);
  failed.reason = Reason::kCurrentFailed;
  failed.sentence = "failed: " + kHostile;
  v.metrics.push_back(failed);
  // A custom benchmark's unit is untrusted text too (its values are shown in
  // the regressions table; severity off keeps it out of the annotations).
  auto custom = WithStats(Metric("custom", "value", Verdict::kRegression), 1.2, 1.1, 1.3, 0.001,
                          0.002, 70, 84);
  custom.unit = "unit " + kHostile;
  custom.severity = Severity::kOff;
  v.metrics.push_back(custom);
  v.env_differences.push_back({"gpu.name " + kHostile, kHostile, kBadUtf8});
  v.environment_matches = false;
  Suggestion hostile;
  hostile.workload = kHostile;
  hostile.kernel = "kernel " + kHostile;
  hostile.rule = "rule " + kHostile;
  hostile.priority = 1;
  hostile.message = hostile.evidence = hostile.hint = kHostile;
  hostile.estimated_speedup = 0.25;
  v.suggestions.push_back(hostile);
  v.warnings.push_back("warning " + kHostile);
  // Kernel names listed on their own, and a roofline with hostile names.
  v.new_kernels.push_back({kHostile, "kernel " + kHostile});
  v.vanished_kernels.push_back({"w", kBadUtf8});
  v.device_profile = "device " + kHostile;
  v.roofline.push_back({kHostile, "kernel " + kHostile, "memory-bound", 0.5, 0.8, 1e-3});
  return v;
}

bool HasRawControl(const std::string& s, bool allow_esc = false) {
  for (unsigned char c : s) {
    if (c == '\n' || c == '\t') continue;
    if (c == 0x1b && allow_esc) continue;
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

size_t CountOf(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

TEST(ReportHostile, MarkdownEscapesEverything) {
  const std::string md = RenderMarkdown(HostileVerdicts());
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("evil\\|name\\`code\\`&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;"
                    "\\]\\]&gt; line2\uFFFD\\[31mred\uFFFD\\[0m\uFFFD\uFFFD\uFFFD%0A::error::boom "
                    "\\*b\\* \\_i\\_ \\[x\\](y) \\#&#8203;h"),
            std::string::npos)
      << md;
  EXPECT_FALSE(HasRawControl(md));
  EXPECT_NE(md.find("bad\uFFFD\uFFFDbytes"), std::string::npos);
  // No name breaks a table row: every row line starts and ends with a pipe,
  // and every row of a table has as many unescaped pipes as its header.
  size_t header_pipes = 0;
  for (const std::string& line : Lines(md)) {
    if (line.empty() || line[0] != '|') {
      header_pipes = 0;
      continue;
    }
    EXPECT_EQ(line.back(), '|') << line;
    size_t pipes = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\') {
        ++i;
      } else if (line[i] == '|') {
        ++pipes;
      }
    }
    if (header_pipes == 0) header_pipes = pipes;
    EXPECT_EQ(pipes, header_pipes) << line;
  }
}

TEST(ReportHostile, UnitsAreEscapedWhereValuesAreShown) {
  const std::string md = RenderMarkdown(HostileVerdicts());
  EXPECT_NE(md.find("70 unit evil\\|name\\`code\\`&lt;script&gt;"), std::string::npos) << md;
  const std::string html = RenderHtml(HostileVerdicts());
  EXPECT_NE(html.find("70 unit evil|name`code`&lt;script&gt;"), std::string::npos) << html;
}

TEST(ReportHostile, MarkdownRendersAsTablesWithCmarkGfm) {
  if (!HaveTool("cmark-gfm")) GTEST_SKIP() << "cmark-gfm is not installed";
  const std::string in = TempPath(".md"), out = TempPath(".html");
  WriteText(in, RenderMarkdown(HostileVerdicts()));
  // --unsafe passes raw HTML through, so any unescaped tag would show up.
  ASSERT_EQ(RunShell("cmark-gfm --unsafe -e table '" + in + "' > '" + out + "'"), 0);
  const std::string html = ReadText(out);
  EXPECT_EQ(html.find("<script>"), std::string::npos) << html;
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << html;
  EXPECT_EQ(html.find("<em>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<a href"), std::string::npos) << html;
  // Each table row has as many cells as its table has header cells.
  size_t pos = 0;
  int tables = 0;
  while ((pos = html.find("<table>", pos)) != std::string::npos) {
    const size_t end = html.find("</table>", pos);
    ASSERT_NE(end, std::string::npos);
    const std::string table = html.substr(pos, end - pos);
    const size_t columns = CountOf(table, "<th>") + CountOf(table, "<th ");
    ASSERT_GT(columns, 0u);
    const size_t rows = CountOf(table, "<tr>") - 1;
    EXPECT_EQ(CountOf(table, "<td"), columns * rows) << table;
    ++tables;
    pos = end;
  }
  // failed, regressions, inconclusive, other, unchanged, environment
  // differences, new and vanished kernels, roofline
  EXPECT_EQ(tables, 8);
  std::remove(in.c_str());
  std::remove(out.c_str());
}

TEST(ReportHostile, JunitIsWellFormedAndValid) {
  const std::string xml = RenderJunit(HostileVerdicts());
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_NE(xml.find("&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;]]&gt;"), std::string::npos);
  EXPECT_NE(xml.find("name=\"evil|name`code`&lt;script&gt;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("]]&gt;&#10;line2\uFFFD[31mred"), std::string::npos) << xml;
  EXPECT_FALSE(HasRawControl(xml));
  if (!HaveTool("xmllint")) GTEST_SKIP() << "xmllint is not installed";
  const std::string path = TempPath(".xml");
  WriteText(path, xml);
  const std::string xsd = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/junit/JUnit.xsd";
  EXPECT_EQ(RunShell("xmllint --noout --schema '" + xsd + "' '" + path + "' 2>/dev/null"), 0) << xml;
  std::remove(path.c_str());
}

TEST(ReportHostile, HtmlEscapesEverything) {
  const std::string html = RenderHtml(HostileVerdicts());
  // The one script is gpugate's own (sort, filter, search), and no name is in it.
  const size_t script = html.find("<script>");
  ASSERT_NE(script, std::string::npos);
  EXPECT_EQ(html.find("<script", script + 1), std::string::npos);
  EXPECT_EQ(html.compare(script, 20, "<script>\n(function ("), 0);
  const size_t end = html.find("</script>", script);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(html.substr(script, end - script).find("evil"), std::string::npos);
  EXPECT_EQ(html.find("</script>", end + 1), std::string::npos);
  EXPECT_NE(html.find("evil|name`code`&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;]]&gt;\n"
                      "line2\uFFFD[31mred"),
            std::string::npos);
  EXPECT_FALSE(HasRawControl(html));
  EXPECT_NE(html.find("bad\uFFFD\uFFFDbytes"), std::string::npos);
}

TEST(ReportHostile, ConsoleCannotEmitControlSequences) {
  const std::string plain = RenderConsole(HostileVerdicts());
  EXPECT_FALSE(HasRawControl(plain)) << plain;
  EXPECT_NE(plain.find("evil|name`code`<script>alert(1)</script>&amp;]]>\\x0aline2\\x1b[31mred"
                       "\\x1b[0m\\x00\\x01\\x07%0A::error::boom"),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("bad\\xff\\xfebytes"), std::string::npos);
  // With colours on, the only escape sequences are gpugate's own.
  ReportOptions color;
  color.color = true;
  const std::string colored = RenderConsole(HostileVerdicts(), color);
  EXPECT_EQ(colored.find("\x1b[31m"), std::string::npos);
  EXPECT_NE(colored.find("\x1b[1;31m"), std::string::npos);
  EXPECT_FALSE(HasRawControl(colored, /*allow_esc=*/true));
}

TEST(ReportHostile, GithubAnnotationsStayOneCommandPerLine) {
  const std::string text = RenderGithubAnnotations(HostileVerdicts());
  EXPECT_FALSE(HasRawControl(text));
  const std::vector<std::string> lines = Lines(text);
  // failed workload, failing regression, waived regression, inconclusive,
  // environment, warning
  ASSERT_EQ(lines.size(), 6u) << text;
  for (const std::string& line : lines) {
    EXPECT_TRUE(line.rfind("::error title=", 0) == 0 || line.rfind("::warning title=", 0) == 0 ||
                line.rfind("::notice title=", 0) == 0)
        << line;
    // The first "::" after the command name ends the properties, so the
    // title must hold no raw ':' or ',' from the name.
    const size_t props_end = line.find("::", 2);
    ASSERT_NE(props_end, std::string::npos);
    const std::string title = line.substr(line.find("title=") + 6, props_end - line.find("title=") - 6);
    EXPECT_EQ(title.find_first_of(":,"), std::string::npos) << "title not escaped: " << line;
    EXPECT_NE(title.find("gpugate"), std::string::npos) << line;
  }
  EXPECT_EQ(lines[0].rfind("::error title=gpugate workload failed%3A evil|name`code`<script>", 0),
            0u)
      << lines[0];
  EXPECT_NE(lines[0].find("]]>%0Aline2red%250A::error::boom"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("::error title=gpugate regression%3A evil|name`code`<script>", 0), 0u)
      << lines[1];
  EXPECT_NE(lines[1].find("%250A%3A%3Aerror%3A%3Aboom *b* _i_ [x](y) #h (time)::+20.0%25 "),
            std::string::npos)
      << lines[1];
  // Warnings: the run-wide ones first, then the waived regression.
  EXPECT_EQ(lines[2].rfind("::warning title=gpugate environment mismatch::", 0), 0u) << lines[2];
  const auto waived = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("waived (waiver evil|name`code`<script>alert(1)</script>&amp;]]>%0Aline2") != std::string::npos;
  });
  ASSERT_NE(waived, lines.end()) << text;
  EXPECT_GT(waived - lines.begin(), 2) << text;
  EXPECT_EQ(waived->rfind("::warning title=gpugate regression", 0), 0u) << *waived;
}

TEST(ReportHostile, JsonRoundTripsHostileText) {
  const Verdicts v = HostileVerdicts();
  const std::string json = RenderJson(v);
  EXPECT_FALSE(HasRawControl(json));
  EXPECT_NE(json.find("\\u001B[31mred"), std::string::npos);
  Result<Verdicts> back = VerdictsFromJson(json, "hostile.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->metrics.size(), v.metrics.size());
  EXPECT_EQ(back->metrics[0].workload, kHostile);
  EXPECT_EQ(back->metrics[1].metric, "kernel:" + kHostile);
  EXPECT_EQ(back->baseline_label, v.baseline_label);
  EXPECT_EQ(back->suggestions[0].hint, kHostile);
  // Invalid UTF-8 cannot be represented in JSON: each bad byte is U+FFFD.
  EXPECT_EQ(back->metrics[3].workload, "bad\uFFFD\uFFFDbytes");
}

TEST(ReportHostile, EveryRegisteredFormatDropsRawControlBytes) {
  for (const ReportFormat& f : ReportFormats()) {
    EXPECT_FALSE(HasRawControl(f.render(HostileVerdicts(), ReportOptions{}))) << f.name;
  }
}

}  // namespace
}  // namespace gpugate
