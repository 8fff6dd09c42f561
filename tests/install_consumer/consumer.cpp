// Reads a gpugate results file with the installed library, compares it with
// a copy whose first workload is 40% slower, and checks the library's
// verdicts: that workload a regression, the others not, exit code 1.
#include <cstdio>
#include <string>

#include <gpugate/compare/compare.h>
#include <gpugate/config/policy.h>
#include <gpugate/model/results_json.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer RESULTS.json\n");
    return 2;
  }
  gpugate::Result<gpugate::Results> base = gpugate::ReadResultsFile(argv[1]);
  if (!base.ok()) {
    std::fprintf(stderr, "consumer: %s\n", base.error().message.c_str());
    return 2;
  }
  if (base->workloads.size() < 2) {
    std::fprintf(stderr, "consumer: need at least 2 workloads\n");
    return 2;
  }
  gpugate::Results head = *base;
  for (auto& round : head.workloads[0].rounds)
    for (double& t : round) t *= 1.4;
  gpugate::CompareOptions options;
  options.today = "2026-11-24";
  gpugate::Verdicts v = gpugate::Compare({*base}, head, gpugate::DefaultPolicy(), options);
  int bad = 0;
  for (const auto& m : v.metrics) {
    if (m.metric != "time" || m.workload == gpugate::kCommonWorkload) continue;
    const bool slowed = m.workload == head.workloads[0].name;
    const bool regression = m.verdict == gpugate::Verdict::kRegression;
    std::printf("%-24s %s\n", m.workload.c_str(), gpugate::ToString(m.verdict));
    if (slowed != regression) ++bad;
  }
  const int code = gpugate::ExitCodeFor(v);
  std::printf("exit code %d, %s\n", code, bad == 0 && code == 1 ? "as expected" : "NOT as expected");
  return bad == 0 && code == 1 ? 0 : 1;
}
