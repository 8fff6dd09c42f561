// Golden-file tests: every registered report format rendered from fixed
// verdicts must match tests/data/golden/<fixture>.<extension> byte for byte.
// Run with GPUGATE_UPDATE_GOLDEN=1 to rewrite the files after an intended
// change, then review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "report/console.h"
#include "report/registry.h"
#include "report/report_fixtures.h"
#include "util/fs.h"

namespace gpugate {
namespace {

using testing_fixtures::ErrorVerdicts;
using testing_fixtures::MismatchVerdicts;
using testing_fixtures::MixedVerdicts;
using testing_fixtures::NotJudgedVerdicts;
using testing_fixtures::PassVerdicts;
using testing_fixtures::RequireDetectableVerdicts;

struct Fixture {
  const char* name;
  std::function<Verdicts()> make;
};

const std::vector<Fixture>& Fixtures() {
  static const std::vector<Fixture> kFixtures = {
      {"mixed", MixedVerdicts},
      {"mismatch", MismatchVerdicts},
      {"pass", PassVerdicts},
      {"not_judged", NotJudgedVerdicts},
      {"error", ErrorVerdicts},
      {"require_detectable", RequireDetectableVerdicts}};
  return kFixtures;
}

ReportOptions GoldenOptions() {
  ReportOptions o;
  o.timestamp = "2026-03-04T05:06:07";
  o.hostname = "ci-runner-7";
  return o;
}

bool UpdateGolden() {
  const char* v = std::getenv("GPUGATE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

// Compares with the golden file, or rewrites it when asked to.
void CheckGolden(const std::string& file, const std::string& actual) {
  const std::string path = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/golden/" + file;
  if (UpdateGolden()) {
    const Status s = WriteFileAtomic(path, actual);
    ASSERT_TRUE(s.ok()) << s.error().message;
    std::printf("rewrote %s\n", path.c_str());
    return;
  }
  Result<std::string> expected = ReadFile(path);
  ASSERT_TRUE(expected.ok()) << expected.error().message
                             << " (run with GPUGATE_UPDATE_GOLDEN=1 to create it)";
  EXPECT_EQ(actual, expected.value()) << "golden file " << path
                                      << " differs; GPUGATE_UPDATE_GOLDEN=1 rewrites it";
}

TEST(ReportGolden, EveryFormatMatchesItsGoldenFiles) {
  ASSERT_GE(ReportFormats().size(), 8u);
  for (const Fixture& fx : Fixtures()) {
    const Verdicts v = fx.make();
    for (const ReportFormat& f : ReportFormats()) {
      SCOPED_TRACE(std::string(fx.name) + " / " + f.name);
      CheckGolden(std::string(fx.name) + "." + f.extension, f.render(v, GoldenOptions()));
    }
  }
}

TEST(ReportGolden, ConsoleColourAndVerboseVariants) {
  ReportOptions o = GoldenOptions();
  o.color = true;
  CheckGolden("mixed.color.txt", RenderConsole(MixedVerdicts(), o));
  o.color = false;
  o.verbose = true;
  CheckGolden("mixed.verbose.txt", RenderConsole(MixedVerdicts(), o));
}

TEST(ReportGolden, RenderingIsDeterministic) {
  for (const ReportFormat& f : ReportFormats()) {
    EXPECT_EQ(f.render(MixedVerdicts(), GoldenOptions()),
              f.render(MixedVerdicts(), GoldenOptions()))
        << f.name;
  }
}

TEST(ReportRegistry, FindsFormatsByName) {
  ASSERT_NE(FindReportFormat("junit"), nullptr);
  EXPECT_STREQ(FindReportFormat("junit")->extension, "xml");
  EXPECT_EQ(FindReportFormat("junitt"), nullptr);
  const std::vector<std::string> names = ReportFormatNames();
  EXPECT_EQ(names.size(), ReportFormats().size());
  EXPECT_EQ(names.front(), "console");
}

}  // namespace
}  // namespace gpugate
