// Unit tests of the suite configuration: parameter expansion, defaults merge,
// sizes and durations, name globs, tag filters and shard selection.
#include "config/suite.h"
#include "harness/ab.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "config/yaml_util.h"
#include "cupti/profile.h"
#include "util/fs.h"

namespace gpugate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

Suite LoadOk(const std::string& text, const std::string& name = "suite.yaml") {
  Result<Suite> suite = LoadSuiteFromString(text, name);
  EXPECT_TRUE(suite.ok()) << (suite.ok() ? "" : suite.error().message);
  return suite.ok() ? std::move(suite).value() : Suite{};
}

std::string LoadError(const std::string& text, const std::string& name = "suite.yaml") {
  Result<Suite> suite = LoadSuiteFromString(text, name);
  if (suite.ok()) return "<loaded without error>";
  EXPECT_EQ(suite.error().code, ExitCode::kInputError);
  return suite.error().message;
}

std::vector<std::string> Names(const std::vector<WorkloadSpec>& w) {
  std::vector<std::string> out;
  for (const auto& s : w) out.push_back(s.name);
  return out;
}

// ---- loading and expansion ------------------------------------------------

TEST(SuiteLoadTest, CartesianProductInDeclaredOrderLastParamFastest) {
  Suite suite = LoadOk(R"(version: 1
workloads:
  - name: sgemm_{variant}/{n}
    kernel: sgemm_blocked
    params:
      n: [256, 1Ki]
      variant: [a, b, c]
)");
  EXPECT_THAT(Names(suite.workloads),
              ElementsAre("sgemm_a/256", "sgemm_b/256", "sgemm_c/256", "sgemm_a/1Ki",
                          "sgemm_b/1Ki", "sgemm_c/1Ki"));
  const WorkloadSpec& w = suite.workloads[4];
  EXPECT_EQ(w.template_name, "sgemm_{variant}/{n}");
  EXPECT_THAT(w.params, ElementsAre(Pair("n", "1Ki"), Pair("variant", "b")));
  // Only values that read as sizes become sizes.
  EXPECT_EQ(w.sizes.size(), 1u);
  EXPECT_EQ(w.sizes.at("n"), 1024);
  EXPECT_EQ(suite.workloads[0].sizes.at("n"), 256);
}

TEST(SuiteLoadTest, ParamsKeepDeclaredOrderNotAlphabetical) {
  Suite suite = LoadOk(R"(version: 1
workloads:
  - name: w/{z}/{a}
    kind: synthetic
    params: {z: [1, 2], a: x}
)");
  EXPECT_THAT(Names(suite.workloads), ElementsAre("w/1/x", "w/2/x"));
  EXPECT_THAT(suite.workloads[0].params, ElementsAre(Pair("z", "1"), Pair("a", "x")));
  EXPECT_TRUE(suite.workloads[0].sizes.empty());  // sizes only for builtin kernels
}

TEST(SuiteLoadTest, SubstitutesParamsInArgvEnvAndCwd) {
  Suite suite = LoadOk(R"(version: 1
workloads:
  - name: sleep/{t}
    kind: command
    params: {t: ["0.01", "0.02"]}
    argv: [/bin/sleep, "{t}", "${HOME}", "{unknown}"]
    env: {DELAY: "t={t}", FIXED: plain}
    cwd: /tmp/run-{t}
)");
  ASSERT_EQ(suite.workloads.size(), 2u);
  const WorkloadSpec& w = suite.workloads[1];
  EXPECT_EQ(w.kind, WorkloadKind::kCommand);
  EXPECT_EQ(w.name, "sleep/0.02");
  // Braces that are not parameters stay as written (shell text, awk, ...).
  EXPECT_THAT(w.argv, ElementsAre("/bin/sleep", "0.02", "${HOME}", "{unknown}"));
  EXPECT_THAT(w.env, ElementsAre(Pair("DELAY", "t=0.02"), Pair("FIXED", "plain")));
  EXPECT_EQ(w.cwd, "/tmp/run-0.02");
  EXPECT_FALSE(w.shell);
  EXPECT_EQ(w.profile, "none");
}

TEST(SuiteLoadTest, RelativeCwdIsResolvedAgainstTheSuiteFolder) {
  const std::string text = R"(version: 1
workloads:
  - {name: a, kind: command, argv: [/bin/true], cwd: work}
  - {name: b, kind: command, argv: [/bin/true], cwd: /abs/dir}
)";
  // Resolved to an absolute path at load time.
  const std::string cwd = std::filesystem::current_path().string();
  Suite nested = LoadOk(text, "ci/suites/gpu.yaml");
  EXPECT_EQ(nested.workloads[0].cwd, cwd + "/ci/suites/work");
  EXPECT_EQ(nested.workloads[1].cwd, "/abs/dir");
  Suite here = LoadOk(text, "gpu.yaml");
  EXPECT_EQ(here.workloads[0].cwd, cwd + "/work");
  Suite absolute = LoadOk(text, "/etc/gpugate/../suites/gpu.yaml");
  EXPECT_EQ(absolute.workloads[0].cwd, "/etc/suites/work");
  // A cwd in the build folder keeps its {bin} until the folder is known
  // (gpugate run --bin, ab --base/--head); it was taken for a relative path.
  Suite bin = LoadOk(R"(version: 1
workloads:
  - {name: a, kind: command, argv: [/bin/true], cwd: "{bin}"}
  - {name: b, kind: command, argv: [/bin/true], cwd: "{bin}/data"}
)", "ci/suites/gpu.yaml");
  EXPECT_EQ(bin.workloads[0].cwd, "{bin}");
  EXPECT_EQ(WithBinDir(bin.workloads[0], "/abs/build").cwd, "/abs/build");
  EXPECT_EQ(WithBinDir(bin.workloads[1], "/abs/build").cwd, "/abs/build/data");
}

TEST(SuiteLoadTest, ShellTrueTakesOneCommandLine) {
  Suite suite = LoadOk(R"(version: 1
workloads:
  - name: list
    kind: command
    shell: true
    argv: ["ls | wc -l"]
  - name: single-string
    kind: command
    shell: true
    argv: "echo hi"
)");
  EXPECT_TRUE(suite.workloads[0].shell);
  EXPECT_THAT(suite.workloads[0].argv, ElementsAre("ls | wc -l"));
  EXPECT_THAT(suite.workloads[1].argv, ElementsAre("echo hi"));
}

TEST(SuiteLoadTest, DefaultsMergeOverBuiltInsAndWorkloadsOverrideDefaults) {
  Suite suite = LoadOk(R"(version: 1
defaults:
  warmup: 2
  min_samples: 6
  max_time: 10s
  target_rel_ci: 2%
workloads:
  - name: inherits
    kernel: copy
  - name: overrides
    kernel: triad
    warmup: 0
    rounds: 3
    min_time: 0
    timeout: 1m
    target_rel_ci: 0.005
)");
  const Sampling built_in;
  EXPECT_EQ(suite.defaults.warmup, 2);
  EXPECT_EQ(suite.defaults.max_samples, built_in.max_samples);

  const Sampling& a = suite.workloads[0].sampling;
  EXPECT_EQ(a.warmup, 2);
  EXPECT_EQ(a.min_samples, 6);
  EXPECT_EQ(a.max_samples, built_in.max_samples);
  EXPECT_DOUBLE_EQ(a.min_time, built_in.min_time);
  EXPECT_DOUBLE_EQ(a.max_time, 10.0);
  EXPECT_DOUBLE_EQ(a.target_rel_ci, 0.02);
  EXPECT_EQ(a.rounds, built_in.rounds);
  EXPECT_DOUBLE_EQ(a.timeout, built_in.timeout);

  const Sampling& b = suite.workloads[1].sampling;
  EXPECT_EQ(b.warmup, 0);
  EXPECT_EQ(b.min_samples, 6);  // still from defaults
  EXPECT_EQ(b.rounds, 3);
  EXPECT_DOUBLE_EQ(b.min_time, 0.0);
  EXPECT_DOUBLE_EQ(b.max_time, 10.0);
  EXPECT_DOUBLE_EQ(b.timeout, 60.0);
  EXPECT_DOUBLE_EQ(b.target_rel_ci, 0.005);
}

TEST(SuiteLoadTest, CrossFieldCheckPointsAtTheWorkloadThatBreaksIt) {
  // Defaults are consistent; the second workload lowers max_samples below them.
  std::string error = LoadError(R"(version: 1
defaults: {min_samples: 20, max_samples: 40}
workloads:
  - name: fine
    kernel: copy
  - name: broken
    kernel: copy
    max_samples: 8
)");
  EXPECT_EQ(error, "suite.yaml:8:18: max_samples (8) is less than min_samples (20)");
}

TEST(SuiteLoadTest, ReadsBenchmarkProgramWorkloads) {
  Suite suite = LoadOk(R"(version: 1
defaults:
  warmup: 3
  max_time: 20s
workloads:
  - name: kernels-{n}
    kind: gbench
    argv: ["{bin}/kernels", --benchmark_enable_random_interleaving=true]
    params: {n: [8, 64]}
    filter: "BM_Sort/{n}"
    repetitions: 3
    min_time: 50ms
    env: {OMP_NUM_THREADS: "1"}
  - name: gpu
    kind: nvbench
    argv: [./nvbench_prog]
    benchmarks: [copy, triad]
    axes: ["Elements=[1024,4096]"]
    rounds: 7
)");
  ASSERT_EQ(suite.workloads.size(), 3u);
  const WorkloadSpec& g = suite.workloads[1];
  EXPECT_EQ(g.kind, WorkloadKind::kGbench);
  EXPECT_EQ(g.name, "kernels-64");
  EXPECT_EQ(g.filter, "BM_Sort/64");
  EXPECT_EQ(g.repetitions, 3);
  ASSERT_TRUE(g.program_min_time);
  EXPECT_DOUBLE_EQ(*g.program_min_time, 0.05);
  EXPECT_EQ(g.sampling.rounds, kProgramDefaultRounds);  // not set anywhere
  EXPECT_DOUBLE_EQ(g.sampling.max_time, 20.0);          // the suite's budget
  EXPECT_EQ(g.env.at("OMP_NUM_THREADS"), "1");
  EXPECT_TRUE(IsBenchmarkProgram(g.kind));
  const WorkloadSpec& n = suite.workloads[2];
  EXPECT_EQ(n.kind, WorkloadKind::kNvbench);
  EXPECT_THAT(n.benchmarks, ElementsAre("copy", "triad"));
  EXPECT_THAT(n.axes, ElementsAre("Elements=[1024,4096]"));
  EXPECT_EQ(n.sampling.rounds, 7);
  EXPECT_FALSE(n.program_min_time);
  EXPECT_STREQ(ToString(n.kind), "nvbench");
}

TEST(SuiteLoadTest, RejectsWhatABenchmarkProgramCannotDo) {
  EXPECT_EQ(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: gbench\n    argv: [k]\n    warmup: 2\n"),
            "suite.yaml:6:5: key 'warmup' does not apply to a gbench workload: the program decides its "
            "own iterations and samples; a process is one round (set 'rounds')");
  EXPECT_EQ(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: gbench\n    argv: [k]\n    shell: true\n"),
            "suite.yaml:6:5: key 'shell' applies only to kind command workloads, but this workload is kind gbench");
  EXPECT_EQ(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: nvbench\n    argv: [k]\n    filter: x\n"),
            "suite.yaml:6:5: key 'filter' applies only to kind gbench workloads, but this workload is kind nvbench");
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: gbench\n    argv: [k, --benchmark_out=x.json]\n"),
              HasSubstr("argv must not set --benchmark_out: gpugate writes the program's JSON itself"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: gbench\n    argv: [k]\n    repetitions: 0\n"),
              HasSubstr("suite.yaml:6:18:"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: nvbench\n    argv: [k]\n    min_time: 1s\n"),
              HasSubstr("suite.yaml:6:5: key 'min_time' does not apply to an nvbench workload"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: nvbench\n    argv: [k]\n    axes: [Elements]\n"),
              HasSubstr("'axes' entries are nvbench --axis values"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: gbench\n"),
              HasSubstr("missing required key 'argv' for a gbench workload"));
  // A key that does not apply is named as such before any rule between keys.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: gbench\n    argv: [k]\n    max_samples: 3\n"),
              HasSubstr("suite.yaml:6:5: key 'max_samples' does not apply to a gbench workload"));
}

TEST(SuiteLoadTest, KeysThatWouldDoNothingOrBreakTheRunAreErrors) {
  // l2 sets the GPU's cache: nothing on the CPU backend.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: k\n    kernel: copy\n    backend: cpu\n    l2: hot\n"),
              HasSubstr("suite.yaml:6:5: 'l2' does not apply to backend: cpu"));
  // A key twice in env or params: the second is named, with the first.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    env: {A: first, A: second}\n"),
              HasSubstr("suite.yaml:6:21: duplicate key 'A' (first at 6:11)"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c{n}\n    kernel: copy\n    params: {n: [1], n: [2]}\n"),
              HasSubstr("suite.yaml:5:22: duplicate key 'n' (first at 5:14)"));
  // A NUL byte would cut an argument or a variable short.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k, \"a\\0b\"]\n"),
              HasSubstr("suite.yaml:5:15: 'argv[1]' holds a NUL byte"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    env: {A: \"a\\0b\"}\n"),
              HasSubstr("'env.A' holds a NUL byte"));
  // An error in a list is at its element.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: k\n    kernel: copy\n    tags:\n      - ok\n      - fine\n"
                        "      - \"bad tag\"\n"),
              HasSubstr("suite.yaml:8:9: tag 'bad tag' must not contain spaces"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: gbench\n    argv:\n      - k\n"
                        "      - --benchmark_out=x.json\n"),
              HasSubstr("suite.yaml:7:9: argv must not set --benchmark_out"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: n\n    kind: nvbench\n    argv: [k]\n"
                        "    axes: [\"A=[1]\", B]\n"),
              HasSubstr("suite.yaml:6:21: 'axes' entries are nvbench --axis values"));
  // A NUL byte is named where it stands; an integer too large for any range
  // gets the range, not "must be an integer".
  EXPECT_EQ(LoadError(std::string("version: 1\nworkloads:\n  - name: q\0x\n    kernel: copy\n", 53)),
            "suite.yaml:3:12: a NUL byte, which YAML text cannot hold (binary data?)");
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: q\n    kernel: copy\n    rounds: 99999999999999999999\n"),
              HasSubstr("suite.yaml:5:13: 'rounds' must be between 1 and 10000, got '99999999999999999999'"));
  // Merge keys are named as such, in a known mapping and in an open one.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    <<: {kernel: copy}\n"),
              HasSubstr("suite.yaml:4:5: merge keys (<<) are not supported"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n    env: {<<: {A: \"1\"}}\n"),
              HasSubstr("suite.yaml:6:11: merge keys (<<) are not supported"));
  // Names that would look alike in every report: a blank at an end, an
  // invisible character, a no-break space in a tag.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - {name: \"a \", kernel: copy}\n"),
              HasSubstr("suite.yaml:3:12: workload name must be printable text: a space at its end"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - {name: \"q\\u200Bq\", kernel: copy}\n"),
              HasSubstr("invisible character U+200B at byte 1"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - {name: a, kernel: copy, tags: [\"a\\u00a0b\"]}\n"),
              HasSubstr("a tag must be printable text: a blank U+00A0 at byte 1"));
  // A parameter value brings a NUL byte into a path; more invisible
  // characters; synthetic samples too slow for a results file.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    cwd: \"/tmp{v}\"\n    params: {v: [\"a\\0b\"]}\n"),
              HasSubstr("suite.yaml:3:5: workload 'c': cwd holds a NUL byte"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - {name: \"x\\u3164y\", kernel: copy}\n"),
              HasSubstr("invisible character U+3164"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: s\n    kind: synthetic\n    synthetic: {median: 1h, slowdown: 1e6}\n"),
              HasSubstr("synthetic samples would take 1e6 s or more"));
  // A min_time the timeout cuts short fails the workload every time.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    min_time: 70s\n    max_time: 100s\n"),
              HasSubstr("suite.yaml:6:15: min_time (70s) is not below timeout (60s)"));
  // Synthetic draws must stay times a results file can hold.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: s\n    kind: synthetic\n    synthetic: {cv: 1e300}\n"),
              HasSubstr("'synthetic.cv' must be from 0 to 100%"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: s\n    kind: synthetic\n    synthetic: {median: 1e-300s}\n"),
              HasSubstr("synthetic samples would be faster than 1 ns"));
}

TEST(SuiteLoadTest, RoundsThatAreProcessesOrExecutionsAreNotBoundBySamples) {
  // A round of a benchmark program is a process, of measure: instructions an
  // execution, of a command with results a run of the program: max_samples
  // (which does not apply to them) does not bound them, in defaults either.
  for (const std::string& workload :
       {std::string("    kind: gbench\n    argv: [k]\n"), std::string("    kind: nvbench\n    argv: [k]\n"),
        std::string("    kind: command\n    argv: [k]\n    measure: instructions\n"),
        std::string("    kind: command\n    argv: [k]\n    results: r.json\n")}) {
    Suite suite = LoadOk("version: 1\ndefaults:\n  max_samples: 100\nworkloads:\n  - name: g\n" +
                         workload + "    rounds: 300\n");
    ASSERT_EQ(suite.workloads.size(), 1u) << workload;
    EXPECT_EQ(suite.workloads[0].sampling.rounds, 300) << workload;
  }
  // Defaults that only benchmark programs use are not held to the rules
  // about samples; a workload of samples that uses them is, at their key.
  Suite programs = LoadOk("version: 1\ndefaults: {max_samples: 5, min_samples: 2}\nworkloads:\n"
                          "  - name: g\n    kind: gbench\n    argv: [k]\n    rounds: 50\n");
  EXPECT_EQ(programs.workloads[0].sampling.rounds, 50);
  EXPECT_THAT(LoadError("version: 1\ndefaults: {max_samples: 5, min_samples: 2}\nworkloads:\n"
                        "  - name: k\n    kernel: copy\n"),
              HasSubstr("suite.yaml:2:25: rounds (20) exceeds max_samples (5)"));
  // Rounds of samples still need a sample each.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    rounds: 300\n"),
              HasSubstr("suite.yaml:6:13: rounds (300) exceeds max_samples (200)"));
}

TEST(SuiteLoadTest, MeasureInstructionsOnACommand) {
  Suite suite = LoadOk("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                       "    measure: instructions\n    cache_sim: true\n");
  ASSERT_EQ(suite.workloads.size(), 1u);
  EXPECT_EQ(suite.workloads[0].measure, "instructions");
  EXPECT_TRUE(suite.workloads[0].cache_sim);
  EXPECT_EQ(suite.workloads[0].sampling.rounds, kInstructionDefaultRounds);
  EXPECT_EQ(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n    cache_sim: true\n"),
            "suite.yaml:6:5: 'cache_sim' applies only with measure: instructions");
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    measure: instructions\n    min_time: 1s\n"),
              HasSubstr("suite.yaml:7:5: key 'min_time' does not apply with measure: instructions"));
  // Every execution is made: max_time, which the lane never read, is refused.
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    measure: instructions\n    max_time: 0.6s\n"),
              HasSubstr("suite.yaml:7:5: key 'max_time' does not apply with measure: instructions"));
  // A benchmark program's max_time bounds its processes and is not held to
  // a min_time it cannot have.
  Suite programs = LoadOk("version: 1\nworkloads:\n  - name: n\n    kind: nvbench\n    argv: [k]\n    max_time: 0.1s\n"
                          "  - name: r\n    kind: command\n    argv: [k]\n    results: r.json\n    max_time: 0.1s\n");
  ASSERT_EQ(programs.workloads.size(), 2u);
  EXPECT_DOUBLE_EQ(programs.workloads[0].sampling.max_time, 0.1);
  EXPECT_DOUBLE_EQ(programs.workloads[1].sampling.max_time, 0.1);
  // Where rounds are samples, the rule holds for what `defaults` set too.
  EXPECT_THAT(LoadError("version: 1\ndefaults: {min_time: 1s, max_time: 0.5s}\nworkloads:\n"
                        "  - name: c\n    kind: command\n    argv: [k]\n"),
              HasSubstr("suite.yaml:2:36: max_time (0.5s) is less than min_time (1s)"));
  EXPECT_THAT(LoadError("version: 1\ndefaults: {max_time: 0.2s}\nworkloads:\n"
                        "  - name: c\n    kind: command\n    argv: [k]\n"),
              HasSubstr("suite.yaml:2:22: max_time (0.2s) is less than min_time (0.5s)"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n    measure: cycles\n"),
              HasSubstr("suite.yaml:6:14:"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: g\n    kind: gbench\n    argv: [k]\n    measure: instructions\n"),
              HasSubstr("suite.yaml:6:5: 'measure' is not built for kind gbench: the program sizes its iterations by time"));
}

TEST(SuiteLoadTest, CommandWithAResultsFile) {
  Suite suite = LoadOk("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                       "    results: out/{v}.json\n    params: {v: [a]}\n    bigger_is_better: true\n");
  ASSERT_EQ(suite.workloads.size(), 1u);
  EXPECT_EQ(suite.workloads[0].results, "out/a.json");
  EXPECT_TRUE(suite.workloads[0].bigger_is_better);
  EXPECT_EQ(suite.workloads[0].sampling.rounds, kProgramDefaultRounds);
  EXPECT_TRUE(ReportsBenchmarks(suite.workloads[0]));
  EXPECT_EQ(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n    bigger_is_better: true\n"),
            "suite.yaml:6:5: 'bigger_is_better' applies only with 'results'");
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    results: r.json\n    warmup: 2\n"),
              HasSubstr("suite.yaml:7:5: key 'warmup' does not apply to a command with 'results'"));
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n"
                        "    measure: instructions\n    results: r.json\n"),
              HasSubstr("suite.yaml:7:5: 'results' and measure: instructions do not go together"));
}

TEST(SuiteLoadTest, ProfileCuptiIsAnErrorWhenNotBuilt) {
  if (CuptiProfileBuilt()) GTEST_SKIP() << "this gpugate is built with CUDA: profile: cupti is valid (tests/cupti)";
  EXPECT_EQ(LoadError("version: 1\nworkloads:\n  - name: c\n    kind: command\n    argv: [k]\n    profile: cupti\n"),
            "suite.yaml:6:14: profile 'cupti' is not built in this gpugate: it was built without CUDA, so its "
            "kernels would not be recorded (remove the key, or use profile: none)");
}

TEST(SuiteLoadTest, ReadsBuiltinCommandAndSyntheticFields) {
  Suite suite = LoadOk(R"(version: 1
name: mixed
workloads:
  - name: k
    kernel: reduce
    backend: cuda
    l2: hot
    tags: memory
  - name: c
    kind: command
    argv: [/bin/true]
    profile: none
    tags: [process, smoke, process]
  - name: s
    kind: synthetic
    synthetic:
      median: 250us
      cv: 5%
      round_drift: 0.01
      run_drift: 0.02
      outlier_rate: 0.1
      outlier_scale: 4
      bimodal_ratio: 1.5
      bimodal_weight: 0.25
      slowdown: 1.10
      seed: 42
)");
  EXPECT_EQ(suite.name, "mixed");
  const WorkloadSpec& k = suite.workloads[0];
  EXPECT_EQ(k.kind, WorkloadKind::kBuiltin);
  EXPECT_EQ(k.kernel, "reduce");
  EXPECT_EQ(k.backend, "cuda");
  EXPECT_FALSE(k.l2_cold);
  EXPECT_THAT(k.tags, ElementsAre("memory"));
  EXPECT_EQ(k.location.ToString(), "suite.yaml:4:5");

  const WorkloadSpec& c = suite.workloads[1];
  EXPECT_EQ(c.profile, "none");
  EXPECT_THAT(c.tags, ElementsAre("process", "smoke"));  // duplicates dropped

  const SyntheticSpec& s = suite.workloads[2].synthetic;
  EXPECT_DOUBLE_EQ(s.median, 250e-6);
  EXPECT_DOUBLE_EQ(s.cv, 0.05);
  EXPECT_DOUBLE_EQ(s.round_drift_cv, 0.01);
  EXPECT_DOUBLE_EQ(s.run_drift_cv, 0.02);
  EXPECT_DOUBLE_EQ(s.outlier_rate, 0.1);
  EXPECT_DOUBLE_EQ(s.outlier_scale, 4.0);
  EXPECT_DOUBLE_EQ(s.bimodal_ratio, 1.5);
  EXPECT_DOUBLE_EQ(s.bimodal_weight, 0.25);
  EXPECT_DOUBLE_EQ(s.slowdown, 1.10);
  EXPECT_EQ(s.seed, 42u);
}

TEST(SuiteLoadTest, SuiteNameDefaultsToFileStemAndKindToBuiltin) {
  Suite suite = LoadOk("version: 1\nworkloads: [{name: x, kernel: copy}]\n", "dir/nightly.yaml");
  EXPECT_EQ(suite.name, "nightly");
  EXPECT_EQ(suite.path, "dir/nightly.yaml");
  EXPECT_EQ(suite.version, 1);
  EXPECT_EQ(suite.workloads[0].kind, WorkloadKind::kBuiltin);
  EXPECT_EQ(suite.workloads[0].backend, "auto");
  EXPECT_TRUE(suite.workloads[0].l2_cold);
}

// The file's name stands in for `name:`: it is checked like a written name,
// so run does not write a results file that baseline update then refuses.
TEST(SuiteLoadTest, SuiteNameFromTheFileIsCheckedLikeAWrittenName) {
  const std::string text = "version: 1\nworkloads: [{name: x, kernel: copy}]\n";
  EXPECT_EQ(LoadError(text, "dir/esc\x1b[31mred.yaml"),
            "dir/esc\x1b[31mred.yaml:1:1: the suite is named after its file, 'esc\\x1b[31mred', which must be "
            "printable text: control character U+001B at byte 3; rename the file or give the suite a 'name:'");
  // A written name replaces it.
  EXPECT_EQ(LoadOk("name: nightly\n" + text, "dir/esc\x1b[31mred.yaml").name, "nightly");
}

TEST(SuiteLoadTest, DuplicateAcrossTemplatesNamesBothPlaces) {
  std::string error = LoadError(R"(version: 1
workloads:
  - name: copy/{n}
    kernel: copy
    params: {n: [1Mi, 2Mi]}
  - name: copy/2Mi
    kernel: copy
)");
  EXPECT_EQ(error, "suite.yaml:6:11: duplicate workload name 'copy/2Mi' (also at suite.yaml:3:11)");
}

TEST(SuiteLoadTest, DuplicateWithinOneTemplateNamesTheMissingPlaceholder) {
  std::string error = LoadError(R"(version: 1
workloads:
  - name: saxpy
    kernel: saxpy
    params: {n: [1Mi, 2Mi]}
)");
  // At the second value, citing the first: the name is one field for both.
  EXPECT_EQ(error, "suite.yaml:5:23: duplicate workload name 'saxpy' after expansion (also at "
                   "suite.yaml:5:18); parameter 'n' has 2 values, so the name needs {n}");
}

// The same value twice gives one name twice: the error is at the repeated
// value and cites the first, never the name field citing itself.
TEST(SuiteLoadTest, DuplicateFromARepeatedValueCitesTheOtherValue) {
  std::string error = LoadError("version: 1\nworkloads:\n  - name: t/{a}/{n}\n    kind: synthetic\n"
                                "    params:\n      a: [x, y]\n      n: [1, 2,\n          1]\n");
  EXPECT_EQ(error, "suite.yaml:8:11: duplicate workload name 't/x/1' after expansion (also at suite.yaml:7:11)");
}

TEST(SuiteLoadTest, UnknownPlaceholderSuggestsAParam) {
  std::string error = LoadError(R"(version: 1
workloads:
  - name: copy/{nn}
    kernel: copy
    params: {n: 1Mi}
)");
  EXPECT_EQ(error,
            "suite.yaml:3:11: unknown placeholder '{nn}' in name 'copy/{nn}' (did you mean 'n'?)");
}

TEST(SuiteLoadTest, RejectsExplosiveExpansion) {
  std::string values = "[";
  for (int i = 0; i < 100; ++i) values += (i ? "," : "") + std::to_string(i);
  values += "]";
  std::string error = LoadError("version: 1\nworkloads:\n  - name: w/{a}/{b}/{c}\n"
                                "    kind: synthetic\n    params: {a: " + values +
                                ", b: " + values + ", c: " + values + "}\n");
  EXPECT_THAT(error, HasSubstr("expand to more than 100000 workloads"));
}

TEST(SuiteLoadTest, MissingFileIsAnInputError) {
  Result<Suite> suite = LoadSuiteFile("/nonexistent/dir/suite.yaml");
  ASSERT_FALSE(suite.ok());
  EXPECT_EQ(suite.error().code, ExitCode::kInputError);
  EXPECT_THAT(suite.error().message, HasSubstr("/nonexistent/dir/suite.yaml"));
}

TEST(SuiteLoadTest, ExampleSuitesLoad) {
  for (const char* name : {"cpu", "synthetic", "command"}) {
    std::string path = std::string(GPUGATE_SOURCE_DIR) + "/examples/" + name + ".yaml";
    Result<Suite> suite = LoadSuiteFile(path);
    ASSERT_TRUE(suite.ok()) << suite.error().message;
    EXPECT_GE(suite->workloads.size(), 3u) << path;
  }
}

TEST(SuiteLoadTest, EveryTruncationOfAnExampleLoadsOrFailsWithAPosition) {
  // Cutting a valid file at every byte yields all kinds of broken YAML; none
  // may throw or crash, and every failure must carry "file:line:col: ".
  Result<std::string> text = ReadFile(std::string(GPUGATE_SOURCE_DIR) + "/examples/command.yaml");
  ASSERT_TRUE(text.ok()) << text.error().message;
  const std::regex positioned(R"(^cut\.yaml:[0-9]+:[0-9]+: .+)");
  int failures = 0;
  for (size_t len = 0; len <= text->size(); ++len) {
    Result<Suite> suite = LoadSuiteFromString(text->substr(0, len), "cut.yaml");
    if (suite.ok()) continue;
    ++failures;
    EXPECT_EQ(suite.error().code, ExitCode::kInputError);
    EXPECT_TRUE(std::regex_match(suite.error().message, positioned))
        << "cut at " << len << ": " << suite.error().message;
  }
  EXPECT_GT(failures, 100);
}

TEST(SuiteLoadTest, SourceLocationFormat) {
  EXPECT_EQ((SourceLocation{"a.yaml", 12, 5}.ToString()), "a.yaml:12:5");
  EXPECT_EQ((SourceLocation{"a.yaml", 0, 0}.ToString()), "a.yaml");
}

TEST(SuiteLoadTest, BuiltinKernelNamesAreTheSixKernels) {
  EXPECT_THAT(BuiltinKernelNames(),
              ElementsAre("copy", "triad", "saxpy", "reduce", "sgemm_naive", "sgemm_blocked"));
}

// ---- sizes ----------------------------------------------------------------

TEST(SuiteSizeTest, ParsesDecimalAndBinarySuffixes) {
  struct Case {
    const char* text;
    int64_t want;
  } cases[] = {
      {"4096", 4096},
      {"0", 0},
      {"1K", 1000},
      {"1k", 1000},
      {"1M", 1000000},
      {"1G", 1000000000},
      {"1T", 1000000000000},
      {"1Ki", 1024},
      {"16Mi", 16777216},
      {"1Gi", 1073741824},
      {"2Ti", 2199023255552},
      {"1.5K", 1500},
      {"1.5Ki", 1536},
      {"0.25Mi", 262144},
      {" 8Mi ", 8388608},
      {"9223372036854775807", 9223372036854775807},
  };
  for (const Case& c : cases) {
    Result<int64_t> r = ParseSize(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
    EXPECT_EQ(*r, c.want) << c.text;
  }
}

TEST(SuiteSizeTest, RejectsNegativeFractionalOverflowAndGarbage) {
  struct Case {
    const char* text;
    const char* why;
  } cases[] = {
      {"", "empty"},
      {"-1", "negative"},
      {"-1Ki", "negative"},
      {"1.5", "not a whole number"},
      {"1.1Ki", "not a whole number"},  // 1126.4
      {"abc", "expected a number"},
      {"1X", "unknown suffix 'X'"},
      {"1Kb", "unknown suffix 'Kb'"},
      {"1Mii", "unknown suffix"},
      {"1.", "expected digits after '.'"},
      {".5K", "expected a number"},
      {"9223372036854775808", "too large"},
      {"8388608Ti", "too large"},  // exactly 2^63
      {"99999999999999999999999", "too large"},
  };
  for (const Case& c : cases) {
    Result<int64_t> r = ParseSize(c.text);
    ASSERT_FALSE(r.ok()) << c.text << " parsed as " << *r;
    EXPECT_EQ(r.error().code, ExitCode::kInputError);
    EXPECT_THAT(r.error().message, HasSubstr(c.why)) << c.text;
  }
}

// ---- durations ------------------------------------------------------------

TEST(SuiteDurationTest, ParsesUnitsToSeconds) {
  struct Case {
    const char* text;
    double want;
  } cases[] = {
      {"500ms", 0.5}, {"2s", 2.0},     {"1m", 60.0},      {"1.5m", 90.0},     {"1h", 3600.0},
      {"100us", 1e-4}, {"250ns", 2.5e-7}, {"1.5", 1.5},   {"0", 0.0},         {"1e-3", 1e-3},
      {"30 s", 30.0}, {"2min", 120.0}, {"5\xC2\xB5s", 5e-6},
      {"5\xCE\xBCs", 5e-6},  // the Greek mu, as the rule language reads it
  };
  for (const Case& c : cases) {
    Result<double> r = ParseDuration(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
    EXPECT_DOUBLE_EQ(*r, c.want) << c.text;
  }
}

TEST(SuiteDurationTest, RejectsBadDurations) {
  struct Case {
    const char* text;
    const char* why;
  } cases[] = {
      {"", "empty"},
      {"-1s", "negative"},
      {"5 parsecs", "unknown unit 'parsecs'"},
      {"1x", "unknown unit 'x'"},
      {"ms", "expected a number"},
      {"inf", "expected a number"},
      {"nan", "expected a number"},
      {"1e999", "the number is out of range"},
      {"1e400", "the number is out of range (a duration must be below 1e9 s)"},
      {"1e-400", "the number is too small to tell from 0"},
      {"5ps", "(use ns, us or \xC2\xB5s, ms, s, m or h)"},
      {"1e9", "must be below 1e9 s"},
      {"1e306h", "must be below 1e9 s"},
      {"20000000m", "must be below 1e9 s"},
  };
  for (const Case& c : cases) {
    Result<double> r = ParseDuration(c.text);
    ASSERT_FALSE(r.ok()) << c.text << " parsed as " << *r;
    EXPECT_EQ(r.error().code, ExitCode::kInputError);
    EXPECT_THAT(r.error().message, HasSubstr(c.why)) << c.text;
  }
}

TEST(SuiteDurationTest, FractionsTakePlainNumbersOrPercent) {
  EXPECT_DOUBLE_EQ(*ParseFraction("0.01"), 0.01);
  EXPECT_DOUBLE_EQ(*ParseFraction("1%"), 0.01);
  EXPECT_DOUBLE_EQ(*ParseFraction("2.5 %"), 0.025);
  EXPECT_FALSE(ParseFraction("one percent").ok());
  EXPECT_FALSE(ParseFraction("%").ok());
}

// ---- globs and filters ----------------------------------------------------

TEST(SuiteGlobTest, MatchesWildcardsAndClasses) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*", "saxpy/1Mi"));
  EXPECT_TRUE(GlobMatch("saxpy/*", "saxpy/1Mi"));
  EXPECT_TRUE(GlobMatch("*/1Mi", "saxpy/1Mi"));
  EXPECT_TRUE(GlobMatch("s*y/*i", "saxpy/1Mi"));
  EXPECT_TRUE(GlobMatch("sgemm_*", "sgemm_blocked"));
  EXPECT_TRUE(GlobMatch("copy?", "copy2"));
  EXPECT_TRUE(GlobMatch("copy[123]", "copy2"));
  EXPECT_TRUE(GlobMatch("copy[a-c]", "copyb"));
  EXPECT_TRUE(GlobMatch("copy[!a-c]", "copyd"));
  EXPECT_TRUE(GlobMatch("copy[^a-c]", "copyd"));
  EXPECT_TRUE(GlobMatch("a[]]b", "a]b"));
  EXPECT_TRUE(GlobMatch("a\\*b", "a*b"));
  EXPECT_TRUE(GlobMatch("a[b", "a[b"));  // unclosed class is literal
  EXPECT_TRUE(GlobMatch("**a**", "bab"));

  EXPECT_FALSE(GlobMatch("saxpy", "saxpy/1Mi"));  // whole-name match
  EXPECT_FALSE(GlobMatch("saxpy/*", "triad/1Mi"));
  EXPECT_FALSE(GlobMatch("copy?", "copy"));
  EXPECT_FALSE(GlobMatch("copy[123]", "copy4"));
  EXPECT_FALSE(GlobMatch("copy[!a-c]", "copyb"));
  EXPECT_FALSE(GlobMatch("a\\*b", "axb"));
  EXPECT_FALSE(GlobMatch("*a", "ab"));
  EXPECT_FALSE(GlobMatch("", "a"));
}

// `?` and a class match one character, however many bytes it takes.
TEST(SuiteGlobTest, MatchesCharactersNotBytes) {
  EXPECT_TRUE(GlobMatch("io/r?ad", "io/r\xC3\xA9" "ad"));         // é, 2 bytes
  EXPECT_TRUE(GlobMatch("io/r[\xC3\xA9]ad", "io/r\xC3\xA9" "ad"));
  EXPECT_TRUE(GlobMatch("io/r[!x]ad", "io/r\xC3\xA9" "ad"));
  EXPECT_FALSE(GlobMatch("io/r[!\xC3\xA9]ad", "io/r\xC3\xA9" "ad"));
  EXPECT_FALSE(GlobMatch("io/r??ad", "io/r\xC3\xA9" "ad"));       // one character, not two bytes
  EXPECT_TRUE(GlobMatch("k?", "k\xE2\x89\xA5"));                 // ≥, 3 bytes
  EXPECT_TRUE(GlobMatch("?/x", "\xF0\x9F\x9A\x80/x"));          // an emoji, 4 bytes
  // Ranges are ranges of code points: à (U+00E0) to ÿ (U+00FF).
  EXPECT_TRUE(GlobMatch("caf[\xC3\xA0-\xC3\xBF]", "caf\xC3\xA9"));
  EXPECT_FALSE(GlobMatch("caf[\xC3\xA0-\xC3\xBF]", "cafe"));
  EXPECT_FALSE(GlobMatch("caf[a-z]", "caf\xC3\xA9"));
  EXPECT_TRUE(GlobMatch("a\\\xC3\xA9", "a\xC3\xA9"));            // an escaped é is a literal é
  EXPECT_TRUE(GlobMatch("*\xC3\xA9?", "x\xC3\xA9\xC3\xA9\xC3\xA9"));
  // A letter and a combining mark are two characters.
  EXPECT_TRUE(GlobMatch("cafe?", "cafe\xCC\x81"));
  // A byte of invalid UTF-8 is one character, equal only to itself.
  EXPECT_TRUE(GlobMatch("a?b", "a\xFF" "b"));
  EXPECT_TRUE(GlobMatch("a\xFF" "b", "a\xFF" "b"));
  EXPECT_FALSE(GlobMatch("a\xC3\xBF" "b", "a\xFF" "b"));  // ÿ is U+00FF, not the byte 0xFF
  EXPECT_TRUE(GlobMatch("a??b", "a\xC3\xFF" "b"));         // a lead byte without its continuation
}

// Stars backtrack one character at a time: a pattern of many stars against
// a long text that never matches ends in pattern x text steps.
TEST(SuiteGlobTest, ManyStarsStayPolynomial) {
  std::string pattern;
  for (int i = 0; i < 40; ++i) pattern += "*\xC3\xA9";
  pattern += "x";
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "\xC3\xA9";
  EXPECT_FALSE(GlobMatch(pattern, text));
  EXPECT_TRUE(GlobMatch(pattern.substr(0, pattern.size() - 1), text));
}

std::vector<WorkloadSpec> Workloads(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& named_tags) {
  std::vector<WorkloadSpec> out;
  for (const auto& [name, tags] : named_tags) {
    WorkloadSpec w;
    w.name = name;
    w.tags = tags;
    out.push_back(w);
  }
  return out;
}

TEST(SuiteFilterTest, GlobsAnyTagsAnyBothMustHold) {
  std::vector<WorkloadSpec> all = Workloads({{"copy/1Mi", {"memory"}},
                                             {"triad/1Mi", {"memory", "stream"}},
                                             {"sgemm_naive/512", {"compute"}},
                                             {"sgemm_blocked/512", {"compute"}},
                                             {"untagged", {}}});
  EXPECT_EQ(Names(FilterWorkloads(all, {}, {})), Names(all));
  EXPECT_THAT(Names(FilterWorkloads(all, {"sgemm_*"}, {})),
              ElementsAre("sgemm_naive/512", "sgemm_blocked/512"));
  EXPECT_THAT(Names(FilterWorkloads(all, {"copy/*", "*naive*"}, {})),
              ElementsAre("copy/1Mi", "sgemm_naive/512"));
  EXPECT_THAT(Names(FilterWorkloads(all, {}, {"memory"})), ElementsAre("copy/1Mi", "triad/1Mi"));
  EXPECT_THAT(Names(FilterWorkloads(all, {}, {"stream", "compute"})),
              ElementsAre("triad/1Mi", "sgemm_naive/512", "sgemm_blocked/512"));
  EXPECT_THAT(Names(FilterWorkloads(all, {"*/1Mi", "sgemm_naive*"}, {"memory"})),
              ElementsAre("copy/1Mi", "triad/1Mi"));
  EXPECT_TRUE(FilterWorkloads(all, {"nothing*"}, {}).empty());
  EXPECT_TRUE(FilterWorkloads(all, {}, {"gpu"}).empty());
}

// ---- shards ---------------------------------------------------------------

TEST(SuiteShardTest, ParsesIndexOverCount) {
  Result<std::pair<int, int>> s = ParseShard("2/4");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->first, 2);
  EXPECT_EQ(s->second, 4);
  EXPECT_TRUE(ParseShard("1/1").ok());
  EXPECT_TRUE(ParseShard("4096/4096").ok());
  for (const char* bad : {"0/4", "5/4", "1/0", "2", "a/b", "-1/2", "1/2/3", "/2", "1/", " 1/2",
                          "1/4097", "1/2147483647", "1/99999999999999999999"}) {
    Result<std::pair<int, int>> r = ParseShard(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ExitCode::kInputError);
    EXPECT_THAT(r.error().message, HasSubstr("expected i/N")) << bad;
  }
}

TEST(SuiteShardTest, ShardsAreDisjointCoverTheSuiteAndKeepOrder) {
  std::vector<WorkloadSpec> all;
  for (int i = 0; i < 60; ++i) {
    WorkloadSpec w;
    w.name = "w" + std::to_string(i);
    all.push_back(w);
  }
  for (int count : {1, 2, 3, 7}) {
    std::multiset<std::string> seen;
    for (int index = 1; index <= count; ++index) {
      std::vector<WorkloadSpec> shard = SelectShard(all, index, count);
      // Order preserved: positions in the suite increase within a shard.
      std::vector<size_t> positions;
      for (const auto& w : shard) {
        positions.push_back(std::stoul(w.name.substr(1)));
        seen.insert(w.name);
      }
      EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end()));
      if (count > 1) {
        EXPECT_LT(shard.size(), all.size()) << index << "/" << count;
      }
    }
    EXPECT_EQ(seen.size(), all.size()) << "count " << count;
    for (const auto& w : all) EXPECT_EQ(seen.count(w.name), 1u) << w.name << " count " << count;
  }
}

TEST(SuiteShardTest, AssignmentFollowsFnv1a64OfTheName) {
  // Reference hashes computed once with Python (FNV-1a 64, offset basis
  // 0xcbf29ce484222325, prime 0x100000001b3); FNV-1a("a") = 0xaf63dc4c8601ec8c
  // is the published test vector. Shard = hash % N + 1:
  //   a -> %3 = 1, copy -> 2, triad -> 1, saxpy/1Mi -> 1, sgemm_blocked/512 -> 2
  std::vector<WorkloadSpec> all = Workloads(
      {{"a", {}}, {"copy", {}}, {"triad", {}}, {"saxpy/1Mi", {}}, {"sgemm_blocked/512", {}}});
  EXPECT_THAT(Names(SelectShard(all, 1, 3)), ElementsAre());
  EXPECT_THAT(Names(SelectShard(all, 2, 3)), ElementsAre("a", "triad", "saxpy/1Mi"));
  EXPECT_THAT(Names(SelectShard(all, 3, 3)), ElementsAre("copy", "sgemm_blocked/512"));
  // %4: a -> 0, copy -> 0, triad -> 3, saxpy/1Mi -> 2, sgemm_blocked/512 -> 0
  EXPECT_THAT(Names(SelectShard(all, 1, 4)), ElementsAre("a", "copy", "sgemm_blocked/512"));
  EXPECT_THAT(Names(SelectShard(all, 3, 4)), ElementsAre("saxpy/1Mi"));
  EXPECT_THAT(Names(SelectShard(all, 4, 4)), ElementsAre("triad"));
}

// A parameter with several values that only the name reads makes copies of
// one workload: a warning at the parameter, with the near miss when a text
// holds one. Read anywhere (argv, env, a builtin's n), it is quiet.
TEST(SuiteParamsTest, AParameterOnlyTheNameReadsIsAWarningAtTheParameter) {
  Suite typo = LoadOk("version: 1\nworkloads:\n"
                      "  - name: sleep/{t}\n    kind: command\n    argv: [/bin/sleep, '{T}']\n"
                      "    params: {t: ['1', '2']}\n");
  ASSERT_EQ(typo.workloads.size(), 2u);
  ASSERT_EQ(typo.warnings.size(), 1u);
  EXPECT_EQ(typo.warnings[0].rfind("suite.yaml:6:14: parameter 't' has 2 values but only the name reads it", 0), 0u)
      << typo.warnings[0];
  EXPECT_NE(typo.warnings[0].find("did you mean {t} where the workload has {T}?"), std::string::npos);

  Suite label = LoadOk("version: 1\nworkloads:\n"
                       "  - {name: 'c/{v}/{n}', kernel: copy, params: {n: [1Ki, 2Ki], v: [a, b]}}\n"
                       "  - {name: 's/{i}', kind: synthetic, synthetic: {median: 1ms}, params: {i: [1, 2, 3]}}\n");
  ASSERT_EQ(label.warnings.size(), 2u);
  EXPECT_NE(label.warnings[0].find("parameter 'v' has 2 values"), std::string::npos) << label.warnings[0];
  EXPECT_NE(label.warnings[0].find("kernel 'copy' reads only n"), std::string::npos) << label.warnings[0];
  EXPECT_NE(label.warnings[1].find("a synthetic workload reads no parameter"), std::string::npos);

  Suite read = LoadOk("version: 1\nworkloads:\n"
                      "  - {name: 'e/{x}', kind: command, argv: [/bin/true], env: {X: '{x}'}, params: {x: [1, 2]}}\n"
                      "  - {name: 'one/{y}', kind: command, argv: [/bin/true], params: {y: [only]}}\n"
                      "  - {name: 'c/{n}', kernel: copy, params: {n: [1Ki, 2Ki]}}\n");
  EXPECT_TRUE(read.warnings.empty()) << read.warnings[0];
}

// The unread-parameter warning points at the alias that brought the params
// in, never suggests renaming {bin}, and sees two equal sizes of n.
TEST(SuiteParamsTest, TheUnreadParameterWarningFollowsAliasesAndSizes) {
  Suite aliased = LoadOk("version: 1\nworkloads:\n"
                         "  - {name: 'a/{u}', kind: command, argv: [/bin/true], params: &p {u: [1, 2]}}\n"
                         "  - name: b/{u}\n    kind: command\n    argv: [/bin/false]\n    params:\n      *p\n");
  ASSERT_EQ(aliased.warnings.size(), 2u);
  EXPECT_EQ(aliased.warnings[0].rfind("suite.yaml:3:67: parameter 'u'", 0), 0u) << aliased.warnings[0];
  EXPECT_EQ(aliased.warnings[1].rfind("suite.yaml:8:7: parameter 'u'", 0), 0u) << aliased.warnings[1];

  Suite bin = LoadOk("version: 1\nworkloads:\n"
                     "  - {name: 'g/{pin}', kind: command, argv: ['{bin}/prog'], params: {pin: [1, 2]}}\n");
  ASSERT_EQ(bin.warnings.size(), 1u);
  EXPECT_EQ(bin.warnings[0].find("did you mean"), std::string::npos) << bin.warnings[0];

  Suite sizes = LoadOk("version: 1\nworkloads:\n  - {name: 'c/{n}', kernel: copy, params: {n: [1Ki, 1024]}}\n");
  ASSERT_EQ(sizes.warnings.size(), 1u);
  EXPECT_NE(sizes.warnings[0].find("values of 'n' that are the same size ('1Ki' and '1024' are 1024): 1 workload "
                                   "of 'c/{n}' repeats"),
            std::string::npos)
      << sizes.warnings[0];
  Suite groups = LoadOk("version: 1\nworkloads:\n"
                        "  - {name: 'c/{n}', kernel: copy, params: {n: [4096, 4Ki, 4.096K, 0.5Ki, 512, 2Ki]}}\n");
  ASSERT_EQ(groups.warnings.size(), 1u);  // one warning for the parameter, every group in it
  EXPECT_NE(groups.warnings[0].find("('0.5Ki' and '512' are 512; '4096', '4Ki' and '4.096K' are 4096): 3 workloads"),
            std::string::npos)
      << groups.warnings[0];
  std::string many = "[";
  for (int i = 0; i < 300; ++i) many += (i ? ", " : "") + std::string(static_cast<size_t>(i), '0') + "64";
  many += ", 1, 01, 2, 02, 3, 03, 4, 04, 5, 05, 6, 06]";
  Suite bounded = LoadOk("version: 1\nworkloads:\n  - {name: 'c/{n}', kernel: copy, params: {n: " + many + "}}\n",
                         "suite.yaml");
  ASSERT_EQ(bounded.warnings.size(), 1u);
  EXPECT_LT(bounded.warnings[0].size(), 1000u) << bounded.warnings[0];
  EXPECT_NE(bounded.warnings[0].find("and 2 more groups"), std::string::npos) << bounded.warnings[0];
}

// UTF-16 and UTF-32 suites are decoded before parsing: positions count
// characters of the text, not bytes of yaml-cpp's UTF-8.
TEST(SuiteLoadTest, AUtf16SuiteHasCharacterColumns) {
  const std::string utf8 = "version: 1\nworkloads:\n  - {name: \"\u65e5\u672c\u8a9e\", kind: synthetic, warmpu: 1}\n";
  std::u16string wide = u"\uFEFF";
  for (size_t i = 0; i < utf8.size();) {  // decode the BMP text above
    const unsigned char c = static_cast<unsigned char>(utf8[i]);
    char16_t cp = c;
    size_t n = 1;
    if (c >= 0xE0) {
      cp = static_cast<char16_t>(((c & 0x0F) << 12) | ((utf8[i + 1] & 0x3F) << 6) | (utf8[i + 2] & 0x3F));
      n = 3;
    }
    wide += cp;
    i += n;
  }
  for (bool little : {true, false}) {
    std::string bytes;
    for (char16_t u : wide) {
      const char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xFF);
      bytes += little ? std::string{lo, hi} : std::string{hi, lo};
    }
    EXPECT_THAT(LoadError(bytes), HasSubstr("suite.yaml:3:36: unknown key 'warmpu'")) << little;  // not :42
  }
  const std::string broken("\xFF\xFEv\0e\0\x00\xD8", 8);  // a lone high surrogate at byte 6
  EXPECT_THAT(LoadError(broken), HasSubstr("invalid UTF-16 text at byte 6"));
  EXPECT_THAT(LoadError(std::string("\xEF\xBB\xBFversion: 1\nname: \"a\0b\"\n", 26)),
              HasSubstr("suite.yaml:2:9: a NUL byte"));
}

// ---- bounded expansion ----------------------------------------------------

// skip_unchanged: true is one list of the suite's static workloads, shared by
// every workload that says so: 20 x 20 workloads hold it once, not 20 x 20
// copies of 20 names.
TEST(SuiteSkipUnchangedTest, TrueSharesOneListOfTheStaticWorkloads) {
  const std::string values = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]";
  Suite suite = LoadOk("version: 1\nworkloads:\n"
                       "  - {name: 's/{a}', kind: static, file: k.cubin, params: {a: " + values + "}}\n"
                       "  - {name: 't/{a}/{b}', kernel: copy, skip_unchanged: true, params: {a: " + values +
                       ", b: " + values + "}}\n"
                       "  - {name: u, kernel: copy, skip_unchanged: [s/3, s/7]}\n");
  ASSERT_EQ(suite.workloads.size(), 20u + 400u + 1u);
  const WorkloadSpec& first = suite.workloads[20];
  ASSERT_TRUE(first.skip_unchanged_all);
  EXPECT_TRUE(first.skip_unchanged.empty());
  EXPECT_EQ(SkipUnchangedNames(first).size(), 20u);
  EXPECT_EQ(SkipUnchangedNames(first)[19], "s/19");
  for (size_t i = 20; i < 420; ++i) {
    EXPECT_EQ(suite.workloads[i].skip_unchanged_all.get(), first.skip_unchanged_all.get()) << i;
    EXPECT_TRUE(SkipsWhenUnchanged(suite.workloads[i]));
  }
  const WorkloadSpec& listed = suite.workloads.back();
  EXPECT_FALSE(listed.skip_unchanged_all);
  EXPECT_THAT(SkipUnchangedNames(listed), ElementsAre("s/3", "s/7"));
  EXPECT_FALSE(SkipsWhenUnchanged(suite.workloads[0]));
}

// A placeholder written ten times copies its value ten times into each
// workload: the bound counts the longest value at every placeholder and
// refuses at `params` before anything is expanded.
TEST(SuiteParamsTest, ExpansionTextIsBoundedBeforeAnythingIsCopied) {
  std::string values = "[";
  for (int i = 0; i < 1000; ++i) values += (i ? ", " : "") + std::to_string(i);
  values += "]";
  const std::string text = "version: 1\nworkloads:\n  - name: w/{q}\n    kind: command\n"
                           "    argv: [/bin/echo, \"{p}{p}{p}{p}{p}{p}{p}{p}{p}{p}\"]\n"
                           "    params:\n      p: \"" + std::string(30000, 'x') + "\"\n      q: " + values + "\n";
  const std::string error = LoadError(text);
  EXPECT_THAT(error, HasSubstr("suite.yaml:6:5: params expand 'w/{q}' to 1000 workloads of "));
  EXPECT_THAT(error, HasSubstr("bytes each (argv, env, names..., each string with its own storage): more than 256 MiB in the suite"));
  // The same values with one placeholder are 30 MB: loaded.
  std::string once = text;
  once.replace(once.find("{p}{p}{p}{p}{p}{p}{p}{p}{p}{p}"), 30, "{p}");
  EXPECT_EQ(LoadOk(once).workloads.size(), 1000u);
  // One workload alone: 30 KB of placeholders, each 30 KB, would be 900 MB;
  // the bound is counted without making it.
  std::string repeated;
  for (int i = 0; i < 10000; ++i) repeated += "{p}";
  EXPECT_THAT(LoadError("version: 1\nworkloads:\n  - name: w\n    kind: command\n    argv: [/bin/echo, \"" +
                        repeated + "\"]\n    params:\n      p: \"" + std::string(30000, 'x') + "\"\n"),
              HasSubstr("suite.yaml:6:5: params expand 'w' to 1 workload of 300"));
}

// ---- YAML helpers ---------------------------------------------------------

TEST(SuiteYamlReaderTest, TypedAccessNamesFieldAndPosition) {
  YamlReader y("p.yaml");
  Result<YAML::Node> root = y.Parse("a: 3\nbeta: x\nc:\nd: [1, 2]\n");
  ASSERT_TRUE(root.ok());
  ASSERT_TRUE(y.CheckKeys(*root, {"a", "beta", "c", "d"}).ok());
  Status unknown = y.CheckKeys(*root, {"a", "betta", "c", "d"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "p.yaml:2:1: unknown key 'beta' (did you mean 'betta'?)");

  EXPECT_EQ(*y.Int(*y.Find(*root, "a")), 3);
  Result<int64_t> bad = y.Int(*y.Find(*root, "beta"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "p.yaml:2:7: 'beta' must be an integer, got 'x'");
  // A missing value is reported at its key, not at the next token.
  Result<std::string> null_value = y.String(*y.Find(*root, "c"));
  ASSERT_FALSE(null_value.ok());
  EXPECT_EQ(null_value.error().message, "p.yaml:3:1: 'c' must be a string, got nothing");
  Result<std::vector<std::string>> list = y.StringList(*y.Find(*root, "d"), false);
  ASSERT_TRUE(list.ok());
  EXPECT_THAT(*list, ElementsAre("1", "2"));
  Result<YamlField> missing = y.Require(*root, "e");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "p.yaml:1:1: missing required key 'e'");
}

}  // namespace
}  // namespace gpugate
