// Per-kernel comparison of real Kineto traces: a trace against itself is
// unchanged kernel by kernel, a copy with one kernel twice as slow in every
// instance flags that kernel only, and kernels launched on one side only are
// listed as new / vanished in the verdicts and every report (names escaped).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "cli/run_binary.h"
#include "compare/compare.h"
#include "report/json.h"
#include "trace/to_results.h"
#include "trace/trace_test_data.h"
#include "util/fs.h"

namespace gpugate {
namespace {

using testing::TraceDataPath;

constexpr const char* kSlowKernel = "void cudnn::ops::nchwToNhwcKernel";  // 12 instances
constexpr const char* kRenamedKernel = "void at::native::elementwise_kernel<128";

std::string ReadTrace(const std::string& name) {
  Result<std::string> text = ReadFile(TraceDataPath(name));
  EXPECT_TRUE(text.ok());
  return text.ok() ? *text : "";
}

// The trace with every instance of the kernels whose name starts with
// `prefix` edited: duration times `factor`, and the name replaced by
// `rename` when it is not empty.
std::string EditKernels(const std::string& trace, const std::string& prefix, double factor,
                        const std::string& rename = "") {
  rapidjson::Document doc;
  doc.Parse(trace.c_str(), trace.size());
  EXPECT_FALSE(doc.HasParseError());
  int edited = 0;
  for (auto& e : doc["traceEvents"].GetArray()) {
    if (!e.IsObject() || !e.HasMember("cat") || std::string(e["cat"].GetString()) != "kernel") continue;
    if (std::string(e["name"].GetString()).rfind(prefix, 0) != 0) continue;
    e["dur"].SetDouble(e["dur"].GetDouble() * factor);
    if (!rename.empty()) e["name"].SetString(rename.c_str(), doc.GetAllocator());
    ++edited;
  }
  EXPECT_GT(edited, 1);
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  doc.Accept(w);
  return std::string(out.GetString(), out.GetSize());
}

Verdicts CompareTraces(const std::string& base_text, const std::string& cur_text) {
  Result<Results> base = TraceTextToResults(base_text, "base.json");
  Result<Results> cur = TraceTextToResults(cur_text, "cur.json");
  EXPECT_TRUE(base.ok() && cur.ok());
  CompareOptions o;
  o.today = "2026-11-25";
  return Compare({*base}, *cur, DefaultPolicy(), o);
}

// What a kernel that did not change reads: unchanged, or, when the trace's
// clock (whole microseconds) is too coarse for its length to be shown within
// the threshold, inconclusive at exactly 0.0% with the clock said.
void ExpectUnchangedOrClockLimited(const MetricVerdict& m, const std::string& where) {
  if (m.verdict == Verdict::kUnchanged) return;
  EXPECT_EQ(m.verdict, Verdict::kInconclusive) << where << " " << m.metric << ": " << m.sentence;
  EXPECT_DOUBLE_EQ(m.ratio.value_or(0), 1.0) << where << " " << m.metric;
  EXPECT_NE(m.sentence.find("half a step of the trace's clock (1 us)"), std::string::npos)
      << where << " " << m.metric << ": " << m.sentence;
}

int CountKernels(const Verdicts& v, Verdict verdict) {
  int n = 0;
  for (const MetricVerdict& m : v.metrics) n += m.metric.rfind("kernel:", 0) == 0 && m.verdict == verdict;
  return n;
}

// A synthetic Kineto trace on a whole-microsecond clock: kernel k ("k<k>")
// with the calls `calls_us[k]` (durations in microseconds, rounded to whole
// ones, at least 1), one after another from `start_us` on. With `whole`
// false, durations are written in nanoseconds (three decimals).
std::string WholeMicrosecondTrace(const std::vector<std::vector<double>>& calls_us, int64_t start_us = 0,
                                  bool whole = true) {
  std::string t = R"({"traceEvents":[)";
  double ts = static_cast<double>(start_us);
  bool first = true;
  char buf[64];
  for (size_t k = 0; k < calls_us.size(); ++k)
    for (double dur : calls_us[k]) {
      const double d = whole ? static_cast<double>(std::max<int64_t>(1, std::llround(dur)))
                             : std::max(0.001, std::round(dur * 1000) / 1000);
      std::snprintf(buf, sizeof buf, R"(,"ts":%.3f,"dur":%.3f)", ts, d);
      t += std::string(first ? "" : ",") + R"({"ph":"X","cat":"kernel","name":"k)" + std::to_string(k) +
           R"(","pid":0,"tid":7)" + buf + R"(,"args":{"device":0,"stream":7}})";
      first = false;
      ts += d + 2;
    }
  return t + "]}";
}

// Expects a regression on every kernel "k<k>" of `v` for which `slowed(k)`
// holds, and on no other kernel; returns how many kernels regressed.
template <typename Slowed>
int ExpectRegressionsOn(const Verdicts& v, Slowed slowed) {
  int regressions = 0;
  for (const MetricVerdict& m : v.metrics) {
    if (m.metric.rfind("kernel:k", 0) != 0) continue;
    if (slowed(std::stoi(m.metric.substr(8)))) {
      EXPECT_EQ(m.verdict, Verdict::kRegression) << m.metric << ": " << m.sentence;
    } else {
      EXPECT_NE(m.verdict, Verdict::kRegression) << m.metric << ": " << m.sentence;
    }
    regressions += m.verdict == Verdict::kRegression;
  }
  return regressions;
}

// SplitMix64 uniforms in [0, 1): the same draws on every platform.
class Uniform {
 public:
  explicit Uniform(uint64_t seed) : state_(seed) {}
  double operator()() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
  }

 private:
  uint64_t state_;
};

// One run of kernels of the given lengths (us): each kernel's run speed
// within +-1%, 30 calls within +-3% of it; kernel `slower` `factor` times as
// slow.
std::vector<std::vector<double>> NoisyRun(const std::vector<double>& lengths, Uniform& uniform,
                                          size_t slower = SIZE_MAX, double factor = 1.0) {
  std::vector<std::vector<double>> calls(lengths.size());
  for (size_t k = 0; k < lengths.size(); ++k) {
    const double run = (1.0 + 0.02 * (uniform() - 0.5)) * (k == slower ? factor : 1.0);
    for (int c = 0; c < 30; ++c) calls[k].push_back(lengths[k] * run * (1.0 + 0.06 * (uniform() - 0.5)));
  }
  return calls;
}

// 62 kernel lengths, log-uniform between `lo` and `hi` us.
std::vector<double> KernelLengths(Uniform& uniform, double lo, double hi) {
  std::vector<double> lengths;
  for (int k = 0; k < 62; ++k) lengths.push_back(std::exp(std::log(lo) + uniform() * std::log(hi / lo)));
  return lengths;
}

TEST(KernelCompareTest, TraceAgainstItselfIsUnchangedKernelByKernel) {
  for (const char* name : {"kineto_simple_add_a100.json", "kineto_ns_resolution_rank0.json.gz"}) {
    Result<Results> r = TraceToResults(TraceDataPath(name));
    ASSERT_TRUE(r.ok()) << r.error().message;
    Verdicts v = Compare({*r}, *r, DefaultPolicy(), {});
    int kernels = 0;
    for (const MetricVerdict& m : v.metrics) {
      if (m.metric.rfind("kernel:", 0) != 0) continue;
      ++kernels;
      ExpectUnchangedOrClockLimited(m, name);
      EXPECT_DOUBLE_EQ(m.ratio.value_or(0), 1.0);
      EXPECT_NE(m.sentence.find("median per call per run"), std::string::npos) << m.sentence;
    }
    EXPECT_GE(kernels, 10) << name;
    EXPECT_TRUE(v.new_kernels.empty());
    EXPECT_TRUE(v.vanished_kernels.empty());
  }
}

TEST(KernelCompareTest, OneKernelTwiceAsSlowIsFlaggedAlone) {
  const std::string base = ReadTrace("kineto_simple_add_a100.json");
  Verdicts v = CompareTraces(base, EditKernels(base, kSlowKernel, 2.0));
  int regressions = 0;
  for (const MetricVerdict& m : v.metrics) {
    if (m.metric.rfind("kernel:", 0) != 0) continue;
    if (m.metric.rfind(std::string("kernel:") + kSlowKernel, 0) == 0) {
      EXPECT_EQ(m.verdict, Verdict::kRegression) << m.sentence;
      EXPECT_NEAR(m.ratio.value_or(0), 2.0, 1e-9);
      EXPECT_EQ(m.baseline_n, 12);
      EXPECT_EQ(m.current_n, 12);
      ++regressions;
    } else {
      ExpectUnchangedOrClockLimited(m, "copy");
    }
  }
  EXPECT_EQ(regressions, 1);
  EXPECT_EQ(v.outcome, Outcome::kFail);
}

TEST(KernelCompareTest, NewAndVanishedKernelsAreListed) {
  const std::string base = ReadTrace("kineto_simple_add_a100.json");
  const std::string renamed = "evil|<b>kernel</b>*";
  Verdicts v = CompareTraces(base, EditKernels(base, kRenamedKernel, 1.0, renamed));
  ASSERT_EQ(v.new_kernels.size(), 1u);
  EXPECT_EQ(v.new_kernels[0].first, "gpu0");
  EXPECT_EQ(v.new_kernels[0].second, renamed);
  ASSERT_EQ(v.vanished_kernels.size(), 1u);
  EXPECT_EQ(v.vanished_kernels[0].second.rfind(kRenamedKernel, 0), 0u);
  EXPECT_EQ(CountKernels(v, Verdict::kNew), 1);
  EXPECT_EQ(CountKernels(v, Verdict::kRemoved), 1);
  // The lists survive the verdicts JSON.
  Result<Verdicts> back = VerdictsFromJson(RenderJson(v, {}), "v.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->new_kernels, v.new_kernels);
  EXPECT_EQ(back->vanished_kernels, v.vanished_kernels);
}

TEST(KernelCompareTest, CliListsNewAndVanishedKernelsInEveryReportEscaped) {
  const std::string dir = testing::MakeTempDir();
  const std::string base = ReadTrace("kineto_simple_add_a100.json");
  testing::WriteAll(dir + "/base.json", base);
  testing::WriteAll(dir + "/cur.json", EditKernels(base, kRenamedKernel, 1.0, "evil|<b>kernel</b>*"));
  auto o = testing::RunGpugate({"compare", dir + "/base.json", dir + "/cur.json", "--markdown", dir + "/r.md",
                                "--html", dir + "/r.html", "--json", dir + "/r.json", "--junit",
                                dir + "/r.xml"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("New and vanished kernels:"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("new: evil|<b>kernel</b>* (gpu0)"), std::string::npos) << o.out;
  const std::string md = testing::ReadAll(dir + "/r.md");
  EXPECT_NE(md.find("New and vanished kernels (2)"), std::string::npos) << md;
  EXPECT_NE(md.find("evil\\|&lt;b&gt;kernel&lt;/b&gt;\\*"), std::string::npos) << md;
  EXPECT_EQ(md.find("<b>kernel"), std::string::npos);
  const std::string html = testing::ReadAll(dir + "/r.html");
  EXPECT_NE(html.find("evil|&lt;b&gt;kernel&lt;/b&gt;*"), std::string::npos);
  EXPECT_EQ(html.find("<b>kernel"), std::string::npos);
  const std::string json = testing::ReadAll(dir + "/r.json");
  EXPECT_NE(json.find("\"new_kernels\""), std::string::npos);
  EXPECT_NE(json.find("\"vanished_kernels\""), std::string::npos);
  const std::string xml = testing::ReadAll(dir + "/r.xml");
  EXPECT_NE(xml.find("[new kernel] evil|&lt;b&gt;kernel&lt;/b&gt;*"), std::string::npos);
  EXPECT_NE(xml.find("[vanished kernel] void at::native::elementwise_kernel"), std::string::npos);
  testing::RemoveTree(dir);
}

TEST(KernelCompareTest, CliTraceAgainstAnIdenticalTraceOfAnotherRunPasses) {
  const std::string dir = testing::MakeTempDir();
  // The file itself is the same run, which compare refuses; a trace of the
  // same content under another name is another profiling session.
  auto self = testing::RunGpugate({"compare", TraceDataPath("kineto_simple_add_a100.json"),
                                   TraceDataPath("kineto_simple_add_a100.json")});
  EXPECT_EQ(self.exit_code, 2) << self.out;
  EXPECT_NE(self.err.find("a run compared with itself cannot show a change"), std::string::npos)
      << self.err;
  testing::WriteAll(dir + "/rerun.json", testing::ReadAll(TraceDataPath("kineto_simple_add_a100.json")));
  auto o = testing::RunGpugate({"compare", TraceDataPath("kineto_simple_add_a100.json"),
                                dir + "/rerun.json", "--json", dir + "/v.json"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  Result<Verdicts> v = VerdictsFromJson(testing::ReadAll(dir + "/v.json"), "v.json");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->outcome, Outcome::kPass);
  int kernels = 0;
  for (const MetricVerdict& m : v->metrics)
    if (m.metric.rfind("kernel:", 0) == 0) {
      ++kernels;
      ExpectUnchangedOrClockLimited(m, "rerun");
    }
  EXPECT_EQ(kernels, 16);
  testing::RemoveTree(dir);
}

// A trace in whole microseconds: many kernels' median calls read the same in
// both runs. Those ties are no draw of the noise; read as such they made the
// rest look Cauchy-tailed, and a kernel twice as slow passed (a real
// ResNet-50 pair from PyTorch 1.9: 23 of 62 kernels tied, +101.6%
// inconclusive, exit 0).
TEST(KernelCompareTest, TiesOfACoarseClockDoNotHideADoubledKernel) {
  auto trace = [](bool slower) {
    std::vector<std::vector<double>> calls(62);
    for (int k = 0; k < 62; ++k) {
      // 23 short kernels read the same whole microseconds in both runs; 38
      // long ones move by up to 2% either way; kernel 61 doubles.
      for (int c = 0; c < 8; ++c) {
        double dur = k < 23 ? 3 + k % 4 : 300 + 5 * k;
        if (slower && k >= 23 && k < 61) dur *= 1.0 + 0.02 * std::sin(1.7 * k + c);
        if (slower && k == 61) dur *= 2;
        calls[k].push_back(dur);
      }
    }
    return WholeMicrosecondTrace(calls);
  };
  const Verdicts v = CompareTraces(trace(false), trace(true));
  EXPECT_EQ(ExpectRegressionsOn(v, [](int k) { return k == 61; }), 1);
  EXPECT_EQ(v.outcome, Outcome::kFail);
}

// Four kernels of one program run twice (the shape of two real PyTorch
// runs): a 2 us kernel ties on the whole-microsecond clock, one long kernel
// moves 0.1% and another 25%, and a jittery one reads 3x slower. Leaving the
// jittery one out, the tie showed no noise and the other two put it at
// 0.1%: it was a regression at p < 1e-4 (and with two ties as well). Ties
// are left out unless at most one other kernel moved, two others cannot
// show the noise between the runs, and the jittery kernel is not judged.
TEST(KernelCompareTest, ATieBesideTwoOthersDoesNotMeasureTheNoise) {
  for (int ties : {1, 2}) {
    auto trace = [ties](bool second) {
      std::vector<std::vector<double>> calls(3 + ties);
      const double mm[] = {2310, 2290, 2305, 2298, 2301, 2296, 2303, 2299, 2300, 2302};
      for (double d : mm) calls[0].push_back(second ? d * 1.001 : d);          // +0.1%
      const double first_clamp[] = {45, 46, 29, 45, 41}, second_clamp[] = {139, 238, 132, 46, 40};
      for (int c = 0; c < 5; ++c) calls[1].push_back(second ? second_clamp[c] : first_clamp[c]);
      for (int c = 0; c < 10; ++c) calls[2].push_back(second ? 5 : 4);        // +25%
      for (int t = 0; t < ties; ++t)
        for (int c = 0; c < 11; ++c) calls[3 + t].push_back(2 + t);           // ties
      return WholeMicrosecondTrace(calls);
    };
    const Verdicts v = CompareTraces(trace(false), trace(true));
    EXPECT_EQ(CountKernels(v, Verdict::kRegression), 0) << ties << " ties";
    const MetricVerdict* jittery = nullptr;
    for (const MetricVerdict& m : v.metrics)
      if (m.metric == "kernel:k1") jittery = &m;
    ASSERT_NE(jittery, nullptr);
    EXPECT_EQ(jittery->verdict, Verdict::kInconclusive) << jittery->sentence;
    EXPECT_EQ(jittery->reason, Reason::kBetweenRunNoiseUnmeasured) << jittery->sentence;
    EXPECT_NE(v.outcome, Outcome::kFail);
    bool said = false;
    for (const std::string& w : v.warnings) said = said || w.find("comparisons were not judged") != std::string::npos;
    EXPECT_TRUE(said) << ties << " ties";
  }
}

// The same two runs with a long kernel whose median call reads the same in
// both though its calls differ (common on whole microseconds): it is no copy
// of a file's kernel, so it counts as moved and the tie is left out as
// before (counted as a copy, the tie measured the noise again and the
// jittery and the +25% kernels were regressions, exit 1). And with 300 ties:
// the leave-one-out is counted on the comparisons that show the noise, not
// on the family (past 256 comparisons the check was skipped and the jittery
// kernel was a regression again).
TEST(KernelCompareTest, ALongKernelReadingTheSameMedianOrManyTiesDoNotMeasureTheNoise) {
  for (int ties : {1, 300}) {
    auto trace = [ties](bool second) {
      std::vector<std::vector<double>> calls(3 + ties);
      const double first[] = {2310, 2290, 2305, 2298, 2301, 2296, 2303, 2299, 2300, 2302};
      const double again[] = {2301, 2299, 2300, 2302, 2300, 2301, 2300, 2301, 2299, 2302};
      for (int c = 0; c < 10; ++c) calls[0].push_back(ties == 1 && second ? again[c] : first[c] * (second ? 1.001 : 1));
      const double first_clamp[] = {45, 46, 29, 45, 41}, second_clamp[] = {139, 238, 132, 46, 40};
      for (int c = 0; c < 5; ++c) calls[1].push_back(second ? second_clamp[c] : first_clamp[c]);
      for (int c = 0; c < 10; ++c) calls[2].push_back(second ? 5 : 4);        // +25%
      for (int t = 0; t < ties; ++t)
        for (int c = 0; c < 11; ++c) calls[3 + t].push_back(2 + t % 3);       // ties
      return WholeMicrosecondTrace(calls);
    };
    const Verdicts v = CompareTraces(trace(false), trace(true));
    EXPECT_EQ(CountKernels(v, Verdict::kRegression), 0) << ties << " ties";
    // The three that moved are not judged (leaving one out, two remain);
    // each tie is, against those three.
    int unmeasured = 0;
    for (const MetricVerdict& m : v.metrics) {
      if (m.metric == "kernel:k0" || m.metric == "kernel:k1" || m.metric == "kernel:k2") {
        EXPECT_EQ(m.verdict, Verdict::kInconclusive) << m.metric << ": " << m.sentence;
        EXPECT_EQ(m.reason, Reason::kBetweenRunNoiseUnmeasured) << m.metric << ": " << m.sentence;
      }
      unmeasured += m.reason == Reason::kBetweenRunNoiseUnmeasured;
    }
    EXPECT_EQ(unmeasured, 3) << ties << " ties";
    EXPECT_NE(v.outcome, Outcome::kFail);
  }
}

// A copy of a whole-microsecond trace of two long and six short kernels with
// one short kernel doubled: the long kernels read exactly alike, so they
// moved no more than the short ones that tie, and the ties are what the runs
// show. Counted as "moved" for not being ties, they had the ties left out,
// too few others remained, and a +100% kernel passed the gate.
TEST(KernelCompareTest, AShortKernelDoubledInACopyIsFlagged) {
  auto trace = [](bool doubled) {
    std::vector<std::vector<double>> calls(8);
    for (int k = 0; k < 8; ++k)
      for (int c = 0; c < 6; ++c) {
        double dur = k < 2 ? 900 + 37 * k + c : 3 + k % 3;
        if (doubled && k == 2) dur *= 2;
        calls[k].push_back(dur);
      }
    return WholeMicrosecondTrace(calls);
  };
  const Verdicts v = CompareTraces(trace(false), trace(true));
  EXPECT_EQ(ExpectRegressionsOn(v, [](int k) { return k == 2; }), 1);
  EXPECT_EQ(v.outcome, Outcome::kFail);
}

// Two traces of 9 kernels, the first m of them twice as slow: while fewer
// than half change, the others measure the noise between the runs and the
// doubled ones are regressions; from half on they are that measure, and the
// reports say why what changed may be left undecided.
TEST(KernelCompareTest, HalfTheKernelsChangedAtOnceIsSaid) {
  auto trace = [](int doubled) {
    std::vector<std::vector<double>> calls(9);
    for (int k = 0; k < 9; ++k)
      for (int c = 0; c < 20; ++c) calls[k].push_back((50 + 30 * k) * (1 + 0.01 * std::sin(3.1 * k + c)) * (k < doubled ? 2 : 1));
    return WholeMicrosecondTrace(calls);
  };
  auto warned = [](const Verdicts& v) {
    for (const std::string& w : v.warnings)
      if (w.find("comparisons moved beyond their threshold (worse)") != std::string::npos) return true;
    return false;
  };
  for (int doubled : {1, 2, 3}) {
    const Verdicts v = CompareTraces(trace(0), trace(doubled));
    EXPECT_EQ(ExpectRegressionsOn(v, [doubled](int k) { return k < doubled; }), doubled);
    EXPECT_FALSE(warned(v)) << doubled;
  }
  for (int doubled : {5, 6, 7}) EXPECT_TRUE(warned(CompareTraces(trace(0), trace(doubled)))) << doubled;
}

// Identical code on a whole-microsecond clock: a kernel of about 4.5 us has a
// median call of 4 or 5 us (+25%) by the draw of one call. Against the noise
// of the long kernels that read as a regression in 17% of such pairs; half
// a clock step each side is now part of each summary's uncertainty.
TEST(KernelCompareTest, AClockStepOfAShortKernelIsNoRegression) {
  Uniform uniform(0);
  int false_regressions = 0;
  for (int pair = 0; pair < 20; ++pair) {
    const std::vector<double> lengths = KernelLengths(uniform, 4, 800);
    const std::string a = WholeMicrosecondTrace(NoisyRun(lengths, uniform));
    const std::string b = WholeMicrosecondTrace(NoisyRun(lengths, uniform));
    const Verdicts v = CompareTraces(a, b);
    for (const MetricVerdict& m : v.metrics)
      if (m.verdict == Verdict::kRegression) {
        ++false_regressions;
        ADD_FAILURE() << "pair " << pair << " " << m.metric << ": " << m.sentence;
      }
  }
  EXPECT_EQ(false_regressions, 0);
  // The longest kernel made twice as slow is still found among the short
  // kernels' one-step flips, which say nothing about the tail of the noise.
  int caught = 0;
  for (int pair = 0; pair < 10; ++pair) {
    const std::vector<double> lengths = KernelLengths(uniform, 4, 800);
    const size_t longest = static_cast<size_t>(std::max_element(lengths.begin(), lengths.end()) - lengths.begin());
    const std::string base = WholeMicrosecondTrace(NoisyRun(lengths, uniform));
    const std::string doubled = WholeMicrosecondTrace(NoisyRun(lengths, uniform, longest, 2.0));
    const Verdicts v = CompareTraces(base, doubled);
    for (const MetricVerdict& m : v.metrics) {
      if (m.metric == "kernel:k" + std::to_string(longest)) caught += m.verdict == Verdict::kRegression;
      else EXPECT_NE(m.verdict, Verdict::kRegression) << m.metric << ": " << m.sentence;
    }
  }
  EXPECT_EQ(caught, 10);
}

// A copy of a whole-microsecond trace with a few long kernels edited: the
// long kernels that tie are what shows the edits (ties are set aside only
// for kernels of 100 us or less, where the clock makes them likely). When
// every tie was set aside, the four edits became the noise and all 62
// kernels read inconclusive: the gate passed.
TEST(KernelCompareTest, KernelsEditedInACopyOfAWholeMicrosecondTraceAreFlagged) {
  auto trace = [](bool edited) {
    std::vector<std::vector<double>> calls(62);
    for (int k = 0; k < 62; ++k) {
      const double length = std::exp(std::log(4.0) + (k + 0.5) / 62.0 * std::log(200.0));
      const double factor = edited && k >= 58 ? 1.2 + 0.05 * (k - 58) : 1.0;
      for (int c = 0; c < 10; ++c) calls[k].push_back(length * factor * (1.0 + 0.02 * ((c * 7 + k) % 5 - 2)));
    }
    return WholeMicrosecondTrace(calls);
  };
  const Verdicts v = CompareTraces(trace(false), trace(true));
  EXPECT_EQ(ExpectRegressionsOn(v, [](int k) { return k >= 58; }), 4);
  EXPECT_EQ(v.outcome, Outcome::kFail);
}

// A history of whole-microsecond traces: a 2 us kernel that read 2 us in
// every run of the history and 3 us in the current one had no spread to
// show its clock, and read +50.0% [+50.0%, +50.0%], a regression. Half a
// step of each run's clock is now part of the comparison, as with one run
// per side.
TEST(KernelCompareTest, AHistoryOfWholeMicrosecondTracesKnowsItsClock) {
  Uniform uniform(7);
  auto history_of = [&](const std::vector<double>& lengths, int runs) {
    std::vector<Results> history;
    for (int r = 0; r < runs; ++r) {
      Result<Results> h = TraceTextToResults(WholeMicrosecondTrace(NoisyRun(lengths, uniform), 10'000'000LL * r),
                                             "t.json");
      EXPECT_TRUE(h.ok());
      if (h.ok()) history.push_back(*h);
    }
    return history;
  };
  auto compare = [](const std::vector<Results>& history, const std::string& current) {
    Result<Results> cur = TraceTextToResults(current, "t.json");
    EXPECT_TRUE(cur.ok());
    CompareOptions o;
    o.today = "2026-11-29";
    return Compare(history, *cur, DefaultPolicy(), o);
  };
  int false_regressions = 0, clock_said = 0;
  for (int c = 0; c < 30; ++c) {
    const std::vector<double> lengths = KernelLengths(uniform, 2, 100);
    const std::vector<Results> history = history_of(lengths, c % 2 == 0 ? 10 : 5);
    const Verdicts v = compare(history, WholeMicrosecondTrace(NoisyRun(lengths, uniform), 999'000'000));
    for (const MetricVerdict& m : v.metrics) {
      if (m.verdict == Verdict::kRegression) {
        ++false_regressions;
        ADD_FAILURE() << "case " << c << " " << m.metric << ": " << m.sentence;
      }
      clock_said += m.sentence.find("half a step of the trace's clock (1 us) in each run") != std::string::npos;
    }
  }
  EXPECT_EQ(false_regressions, 0);
  EXPECT_GT(clock_said, 0);
  // Twice as slow is still caught on kernels the clock resolves.
  int caught = 0;
  for (int c = 0; c < 10; ++c) {
    const std::vector<double> lengths = KernelLengths(uniform, 2, 100);
    const size_t longest = static_cast<size_t>(std::max_element(lengths.begin(), lengths.end()) - lengths.begin());
    const std::vector<Results> history = history_of(lengths, 10);
    const Verdicts v = compare(history, WholeMicrosecondTrace(NoisyRun(lengths, uniform, longest, 2.0), 999'000'000));
    for (const MetricVerdict& m : v.metrics) {
      if (m.metric == "kernel:k" + std::to_string(longest)) {
        caught += m.verdict == Verdict::kRegression;
      } else if (m.metric.rfind("kernel:", 0) == 0) {  // the trace's time did grow
        EXPECT_NE(m.verdict, Verdict::kRegression) << m.metric << ": " << m.sentence;
      }
    }
  }
  EXPECT_EQ(caught, 10);
}

// A kernel whose every call reads 10 us, in a trace whose other kernels
// show a 1 us clock, is on that clock: made twice as slow in every call it
// is a regression, not "+100.0% [-33.1%, +498.2%]" on a 10 us clock's half
// step.
TEST(KernelCompareTest, AKernelOnARoundNumberIsOnItsTracesClock) {
  Uniform uniform(11);
  std::vector<double> lengths;
  for (int k = 0; k < 20; ++k) lengths.push_back(37 + 29 * k);
  auto run = [&](double even_us, int64_t start) {
    std::vector<std::vector<double>> calls = NoisyRun(lengths, uniform);
    calls.push_back(std::vector<double>(30, even_us));  // kernel k20
    return TraceTextToResults(WholeMicrosecondTrace(calls, start), "t.json");
  };
  std::vector<Results> history;
  for (int r = 0; r < 10; ++r) {
    Result<Results> h = run(10, 10'000'000LL * (r + 1));
    ASSERT_TRUE(h.ok());
    history.push_back(*h);
  }
  Result<Results> cur = run(20, 999'000'000);
  ASSERT_TRUE(cur.ok());
  CompareOptions o;
  o.today = "2026-11-29";
  for (const std::vector<Results>& base : {history, std::vector<Results>{history.back()}}) {
    const Verdicts v = Compare(base, *cur, DefaultPolicy(), o);
    bool found = false;
    for (const MetricVerdict& m : v.metrics) {
      if (m.metric != "kernel:k20") continue;
      found = true;
      EXPECT_EQ(m.verdict, Verdict::kRegression) << base.size() << " runs: " << m.sentence;
      EXPECT_EQ(m.sentence.find("clock (10 us)"), std::string::npos) << m.sentence;
    }
    EXPECT_TRUE(found);
  }
}

// Half of a history in whole microseconds, the other half and the current
// run in nanoseconds: the sentence counts the runs on the clock, and the
// advice names the side whose clock is coarse.
TEST(KernelCompareTest, TheSentenceSaysWhichRunsAreOnTheClock) {
  Uniform uniform(5);
  const std::vector<double> lengths = KernelLengths(uniform, 2, 20);
  std::vector<Results> history;
  for (int r = 0; r < 10; ++r) {
    Result<Results> h = TraceTextToResults(
        WholeMicrosecondTrace(NoisyRun(lengths, uniform), 10'000'000LL * (r + 1), r < 5), "t.json");
    ASSERT_TRUE(h.ok());
    history.push_back(*h);
  }
  Result<Results> cur = TraceTextToResults(WholeMicrosecondTrace(NoisyRun(lengths, uniform), 999'000'000, false),
                                           "t.json");
  ASSERT_TRUE(cur.ok());
  CompareOptions o;
  o.today = "2026-11-29";
  const Verdicts v = Compare(history, *cur, DefaultPolicy(), o);
  int counted = 0, advised = 0;
  for (const MetricVerdict& m : v.metrics) {
    if (m.metric.rfind("kernel:", 0) != 0) continue;
    EXPECT_NE(m.verdict, Verdict::kRegression) << m.metric << ": " << m.sentence;
    EXPECT_EQ(m.sentence.find("in each run"), std::string::npos) << m.sentence;
    counted += m.sentence.find("half a step of the trace's clock (1 us) in 5 of the 11 runs") != std::string::npos;
    advised += m.sentence.find("baseline runs with a finer clock would decide") != std::string::npos;
    EXPECT_EQ(m.sentence.find("a current trace with a finer clock"), std::string::npos) << m.sentence;
  }
  EXPECT_GT(counted, 0);
  EXPECT_GT(advised, 0);
}

// A kernel that only one of three history runs launched (the newest, or the
// oldest) is compared as one run per side; its sentence says why, instead
// of asking for the history that exists, and the oldest run's is not "new".
TEST(KernelCompareTest, AKernelInOneRunOfAHistorySaysSo) {
  Uniform uniform(3);
  const std::vector<double> lengths = KernelLengths(uniform, 50, 500);
  std::vector<Results> history;
  for (int r = 0; r < 3; ++r) {
    std::vector<std::vector<double>> calls = NoisyRun(lengths, uniform);
    if (r < 2) calls[5].clear();  // k5 only in the newest run
    if (r > 0) calls[6].clear();  // k6 only in the oldest
    Result<Results> h = TraceTextToResults(WholeMicrosecondTrace(calls, 10'000'000LL * (r + 1)), "t.json");
    ASSERT_TRUE(h.ok());
    history.push_back(*h);
  }
  Result<Results> cur = TraceTextToResults(WholeMicrosecondTrace(NoisyRun(lengths, uniform), 999'000'000), "t.json");
  ASSERT_TRUE(cur.ok());
  CompareOptions o;
  o.today = "2026-11-29";
  const Verdicts v = Compare(history, *cur, DefaultPolicy(), o);
  int found = 0;
  for (const MetricVerdict& m : v.metrics) {
    if (m.metric == "kernel:k5" || m.metric == "kernel:k6") {
      ++found;
      EXPECT_EQ(m.verdict, Verdict::kInconclusive) << m.sentence;
      EXPECT_NE(m.sentence.find("the baseline history has this kernel in only 1 of its 3 runs"), std::string::npos)
          << m.sentence;
    }
    EXPECT_EQ(m.sentence.find("use a baseline history"), std::string::npos) << m.metric << ": " << m.sentence;
  }
  EXPECT_EQ(found, 2);
  // A kernel launched by an older run of the history is not new.
  EXPECT_TRUE(v.new_kernels.empty());
}

}  // namespace
}  // namespace gpugate
