// The command table. A new subcommand is one row here and one file in src/cli/.
#include "cli/command.h"

namespace gpugate {

// Defined in src/cli/<name>.cc.
int RunCommand(const CommandSpec&, const Args&);
int ValidateCommand(const CommandSpec&, const Args&);
int AnalyzeCommand(const CommandSpec&, const Args&);
int CompareCommand(const CommandSpec&, const Args&);
int GateCommand(const CommandSpec&, const Args&);
int PolicyCommand(const CommandSpec&, const Args&);
int AbCommand(const CommandSpec&, const Args&);
int BaselineCommand(const CommandSpec&, const Args&);
int HistoryCommand(const CommandSpec&, const Args&);
int MergeCommand(const CommandSpec&, const Args&);
int MetricsCommand(const CommandSpec&, const Args&);
int CalibrateCommand(const CommandSpec&, const Args&);
int InspectCommand(const CommandSpec&, const Args&);
int DashboardCommand(const CommandSpec&, const Args&);

const std::vector<CommandSpec>& CommandTable() {
  static const std::vector<CommandSpec> kCommands = {
      {"run", "gpugate run SUITE.yaml -o RESULTS.json [options]",
       "Run the suite's workloads and write results JSON.", RunCommand},
      {"validate", "gpugate validate SUITE.yaml [--filter GLOB] [--tag TAG]",
       "Check a suite file and print the expanded workloads.", ValidateCommand},
      {"compare", "gpugate compare BASELINE CURRENT [CURRENT...] [--policy P] [--junit F] [--markdown F] [--json F] [--html F] [--github]",
       "Compare a baseline with one or more current runs (gpugate, Google Benchmark, nvbench, pytest-benchmark, custom benchmark JSON or trace files) and gate.", CompareCommand},
      {"gate", "gpugate gate SUITE.yaml --baseline B [--policy P] [report options]",
       "Run, compare with a baseline, confirm doubtful results by re-running, and gate.", GateCommand},
      {"policy", "gpugate policy check POLICY.yaml",
       "Check a policy file and print its thresholds, rules and waivers.", PolicyCommand},
      {"analyze", "gpugate analyze TRACE [--policy P] [--json F] [--markdown F] [--html F] [--flame F.html|F.folded] [--flame-view all|cpu|gpu] [--timeline F.json] [--memory F.csv|F.json|F.svg] [--top N] [--device D]\n"
                  "       gpugate analyze DIR|TRACE... [--jobs N] [--straggler-threshold PCT] [--baseline DIR|TRACE]... [--json F] [--markdown F] [--html F]",
       "Kernel, idle, launch and memory breakdown of a Chrome/Kineto trace, and what the policy's rules find in it; with several traces (one per rank), stragglers, load imbalance, overlap and NCCL collectives across ranks.", AnalyzeCommand},
      {"ab", "gpugate ab SUITE.yaml --base DIR --head DIR [--rounds N] [--seed S] [--policy P] [report options]",
       "Interleaved A/B of two builds on this machine, judged on paired rounds.", AbCommand},
      {"baseline", "gpugate baseline update|show|prune ...",
       "Keep baseline histories: append a run (keep K), list runs, prune.", BaselineCommand},
      {"history", "gpugate history BASELINE [--metric time] [--json F]",
       "Find step changes over the runs of a baseline history (E-divisive means).", HistoryCommand},
      {"dashboard", "gpugate dashboard BASELINES... -o SITE/ [--metric time] [--title T]",
       "Write a static site over baseline histories: each suite and runner class, each workload's trend, its change points and their commits.",
       DashboardCommand},
      {"merge", "gpugate merge A.json B.json ... -o ALL.json",
       "Join the shards of one run (gpugate run --shard i/N) into one results file.", MergeCommand},
      {"metrics", "gpugate metrics --chip CHIP [METRIC...] [--json F] | gpugate metrics --list-chips",
       "Hardware-counter metrics of a GPU chip without a GPU: list them, check names, count replay passes.",
       MetricsCommand},
      {"calibrate", "gpugate calibrate [-o PROFILE.json] [--cpu [--threads N]] [--device N]",
       "Measure this device's bandwidth, FLOP/s and launch overhead into a device profile.", CalibrateCommand},
      {"inspect", "gpugate inspect FILE [--json F] [--ptxas-log LOG]",
       "Static per-kernel metrics (registers, stack, shared memory, SASS size and hash, theoretical occupancy; spills from a ptxas log) of a cubin, fatbin, object, library or executable, without a GPU.",
       InspectCommand},
  };
  return kCommands;
}

}  // namespace gpugate
