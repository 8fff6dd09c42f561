// Metric planning through the CUPTI Profiler Host API, called for real: it
// needs libcupti but no GPU and no driver. Skips (with the reason) only when
// this build has no CUDA or the host API cannot initialise.
#include "metrics/metric_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpugate {
namespace {

// The seven-metric set docs/gpu-metrics.md reports pass counts for.
const std::vector<std::string> kSevenMetrics = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__inst_executed.sum",
    "l1tex__t_bytes.sum",
    "lts__t_bytes.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
};

// Skips the test unless the host API answers; returns the chip list.
#define REQUIRE_HOST_API(chips)                                                          \
  if (auto reason = MetricPlanningUnavailableReason()) GTEST_SKIP() << *reason;          \
  Result<std::vector<std::string>> chips = SupportedMetricChips();                       \
  if (!chips.ok()) GTEST_SKIP() << "CUPTI host API unavailable: " << chips.error().message

std::unique_ptr<MetricCatalog> OpenOrFail(const std::string& chip) {
  Result<std::unique_ptr<MetricCatalog>> c = MetricCatalog::Open(chip);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? std::move(*c) : nullptr;
}

TEST(MetricCatalogTest, ListsChipsIncludingAmpereAndHopper) {
  REQUIRE_HOST_API(chips);
  EXPECT_FALSE(chips->empty());
  EXPECT_NE(std::find(chips->begin(), chips->end(), "GA100"), chips->end());
  EXPECT_NE(std::find(chips->begin(), chips->end(), "GH100"), chips->end());
}

TEST(MetricCatalogTest, BaseMetricsAreSortedAndTyped) {
  REQUIRE_HOST_API(chips);
  auto catalog = OpenOrFail("GH100");
  ASSERT_NE(catalog, nullptr);
  Result<std::vector<BaseMetric>> base = catalog->BaseMetrics();
  ASSERT_TRUE(base.ok()) << base.error().message;
  ASSERT_GT(base->size(), 100u);
  EXPECT_TRUE(std::is_sorted(base->begin(), base->end(),
                             [](const BaseMetric& a, const BaseMetric& b) { return a.name < b.name; }));
  auto dram = std::find_if(base->begin(), base->end(), [](const BaseMetric& m) { return m.name == "dram__bytes_read"; });
  ASSERT_NE(dram, base->end());
  EXPECT_EQ(dram->type, "counter");
  auto sm = std::find_if(base->begin(), base->end(), [](const BaseMetric& m) { return m.name == "sm__throughput"; });
  ASSERT_NE(sm, base->end());
  EXPECT_EQ(sm->type, "throughput");
}

TEST(MetricCatalogTest, KnownMetricValidates) {
  REQUIRE_HOST_API(chips);
  auto catalog = OpenOrFail("GA100");
  ASSERT_NE(catalog, nullptr);
  for (const std::string& m : kSevenMetrics) {
    Status st = catalog->Check(m);
    EXPECT_TRUE(st.ok()) << m << ": " << (st.ok() ? "" : st.error().message);
  }
}

TEST(MetricCatalogTest, InventedMetricIsRejectedWithChipAndSuggestion) {
  REQUIRE_HOST_API(chips);
  auto catalog = OpenOrFail("GH100");
  ASSERT_NE(catalog, nullptr);
  Status st = catalog->Check("dram__bytes_raed.sum");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ExitCode::kInputError);
  EXPECT_NE(st.error().message.find("unknown metric 'dram__bytes_raed.sum' for chip GH100"), std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("did you mean 'dram__bytes_read.sum'?"), std::string::npos)
      << st.error().message;
  // The text of cuptiGetResultString, not a bare number.
  EXPECT_NE(st.error().message.find("CUPTI_ERROR_"), std::string::npos) << st.error().message;

  Status far = catalog->Check("no_such_unit__nothing_like_it.sum");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().message.find("did you mean"), std::string::npos) << far.error().message;
}

TEST(MetricCatalogTest, ABaseNameWithoutRollupIsRejected) {
  REQUIRE_HOST_API(chips);
  auto catalog = OpenOrFail("GA100");
  ASSERT_NE(catalog, nullptr);
  Status st = catalog->Check("dram__bytes_read");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("did you mean 'dram__bytes_read.sum'?"), std::string::npos)
      << st.error().message;
}

TEST(MetricCatalogTest, ClusterCounterExistsOnHopperNotOnAmpere) {
  REQUIRE_HOST_API(chips);
  auto hopper = OpenOrFail("GH100");
  auto ampere = OpenOrFail("GA100");
  ASSERT_NE(hopper, nullptr);
  ASSERT_NE(ampere, nullptr);
  EXPECT_TRUE(hopper->Check("gpc__cgas_launched.sum").ok());
  Status st = ampere->Check("gpc__cgas_launched.sum");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("for chip GA100"), std::string::npos) << st.error().message;
}

TEST(MetricCatalogTest, PassCountOfSevenMetricsIsAtLeastOne) {
  REQUIRE_HOST_API(chips);
  for (const char* chip : {"GA100", "GH100", "AD102"}) {
    auto catalog = OpenOrFail(chip);
    ASSERT_NE(catalog, nullptr);
    Result<MetricPlan> plan = catalog->Plan(kSevenMetrics);
    ASSERT_TRUE(plan.ok()) << chip << ": " << plan.error().message;
    EXPECT_EQ(plan->chip, chip);
    EXPECT_EQ(plan->metrics, kSevenMetrics);
    EXPECT_GE(plan->passes, 1u) << chip;
    EXPECT_GT(plan->config_image_bytes, 0u) << chip;
  }
}

TEST(MetricCatalogTest, OneCounterNeedsNoMorePassesThanSeven) {
  REQUIRE_HOST_API(chips);
  auto catalog = OpenOrFail("GH100");
  ASSERT_NE(catalog, nullptr);
  Result<MetricPlan> one = catalog->Plan({"dram__bytes_read.sum", "dram__bytes_read.sum"});
  Result<MetricPlan> seven = catalog->Plan(kSevenMetrics);
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_TRUE(seven.ok()) << seven.error().message;
  EXPECT_EQ(one->metrics.size(), 1u);  // duplicates removed
  EXPECT_GE(one->passes, 1u);
  EXPECT_LE(one->passes, seven->passes);
}

TEST(MetricCatalogTest, PlanRejectsAnUnknownName) {
  REQUIRE_HOST_API(chips);
  auto catalog = OpenOrFail("GA100");
  ASSERT_NE(catalog, nullptr);
  Result<MetricPlan> plan = catalog->Plan({"dram__bytes_read.sum", "gpc__cgas_launched.sum"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ExitCode::kInputError);
  EXPECT_NE(plan.error().message.find("gpc__cgas_launched.sum"), std::string::npos);
}

TEST(MetricCatalogTest, UnknownChipIsInputErrorWithSuggestion) {
  REQUIRE_HOST_API(chips);
  Result<std::unique_ptr<MetricCatalog>> c = MetricCatalog::Open("GH101");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ExitCode::kInputError);
  EXPECT_NE(c.error().message.find("unknown chip 'GH101' (did you mean 'GH100'?)"), std::string::npos)
      << c.error().message;
}

TEST(MetricCatalogUnavailableTest, SaysSoWithoutCuda) {
  if (!MetricPlanningUnavailableReason()) GTEST_SKIP() << "this build has CUPTI";
  Result<std::unique_ptr<MetricCatalog>> c = MetricCatalog::Open("GH100");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ExitCode::kInputError);
  EXPECT_NE(c.error().message.find("built without CUDA"), std::string::npos);
}

TEST(MetricNameTest, BaseName) {
  EXPECT_EQ(detail::MetricBaseName("dram__bytes_read.sum"), "dram__bytes_read");
  EXPECT_EQ(detail::MetricBaseName("sm__throughput.avg.pct_of_peak_sustained_elapsed"), "sm__throughput");
  EXPECT_EQ(detail::MetricBaseName("dram__bytes_read"), "dram__bytes_read");
  EXPECT_EQ(detail::MetricBaseName("CTC.TriageCompute.ctc__rx_bytes.sum"), "CTC.TriageCompute.ctc__rx_bytes");
  EXPECT_EQ(detail::MetricBaseName(""), "");
}

TEST(MetricNameTest, Suggestions) {
  const std::vector<std::string> base = {"dram__bytes_read", "dram__bytes_write", "sm__throughput"};
  const std::vector<std::string> counter = {".avg", ".max", ".min", ".sum", ".sum.per_second"};
  // A typo in the base keeps the rest.
  EXPECT_EQ(detail::SuggestMetric("dram__bytes_raed.sum", base, {}), "dram__bytes_read.sum");
  // A known base without a rollup: .sum first.
  EXPECT_EQ(detail::SuggestMetric("dram__bytes_read", base, counter), "dram__bytes_read.sum");
  // A known base with a mistyped rollup.
  EXPECT_EQ(detail::SuggestMetric("dram__bytes_read.sun", base, counter), "dram__bytes_read.sum");
  // Nothing close.
  EXPECT_EQ(detail::SuggestMetric("l1tex__t_bytes.sum", base, {}), "");
  EXPECT_EQ(detail::SuggestMetric("dram__bytes_read.totally_else", base, counter), "");
}

}  // namespace
}  // namespace gpugate
