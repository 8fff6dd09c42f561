// `gpugate policy check FILE`: parse a policy and print what it says.
#include <iostream>

#include "cli/command.h"
#include "config/policy.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

void PrintPolicy(const Policy& p) {
  std::cout << "policy '" << EscapeTerminal(p.name) << "' (version " << p.version << ")\n"
            << "  threshold " << FormatThreshold(p.defaults.threshold)
            << ", FDR q = " << p.defaults.fdr_q
            << ", confidence " << FormatThreshold(p.defaults.confidence) << ", on_inconclusive "
            << ToString(p.defaults.on_inconclusive) << "\n"
            << "  on_incomparable " << ToString(p.defaults.on_incomparable) << ", no_replication "
            << (p.defaults.threshold_without_replication ? "threshold" : "inconclusive")
            << ", require_detectable "
            << (p.defaults.require_detectable ? FormatThreshold(*p.defaults.require_detectable)
                                              : std::string("off"))
            << "\n";
  for (const auto& [metric, t] : p.defaults.metric_thresholds)
    std::cout << "  threshold for " << EscapeTerminal(metric) << ": " << FormatThreshold(t)
              << "\n";
  for (size_t i = 0; i < p.rules.size(); ++i) {
    const auto& r = p.rules[i];
    std::cout << "  rule " << i + 1 << " (line " << r.location.line << "): match '" << EscapeTerminal(r.match)
              << "' metric '" << EscapeTerminal(r.metric) << "'";
    if (r.threshold) std::cout << " threshold " << FormatThreshold(*r.threshold);
    if (r.lower_is_better)
      std::cout << (*r.lower_is_better ? " lower_is_better" : " higher_is_better");
    if (r.severity) std::cout << " severity " << ToString(*r.severity);
    std::cout << "\n";
  }
  for (const ExprRule& r : p.expr_rules) {
    std::cout << "  rule " << EscapeTerminal(r.id) << " (" << ToString(r.scope) << ", "
              << ToString(r.priority) << " " << ToString(r.emit) << "): when "
              << EscapeTerminal(r.when.text());
    if (r.speedup) std::cout << "; speedup " << EscapeTerminal(r.speedup->text());
    std::cout << "\n";
  }
  for (const auto& w : p.waivers)
    std::cout << "  waiver " << w.location.line << ": match '" << EscapeTerminal(w.match)
              << "' metric '" << EscapeTerminal(w.metric) << "' until " << w.until << ": "
              << EscapeTerminal(w.reason) << "\n";
}

}  // namespace

int PolicyCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("action", po::value<std::string>()->required(), "check")
      ("file", po::value<std::string>(), "policy file (YAML)");
  po::positional_options_description positional;
  positional.add("action", 1).add("file", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  // The action first: `gpugate policy FILE` gave a file where the action goes.
  const std::string action = vm["action"].as<std::string>();
  if (action != "check")
    return ReportError(InputError("policy: unknown action " + QuoteInput(action) +
                                  " (expected 'check'; usage: " + self.usage + ")"));
  if (!vm.count("file"))
    return ReportError(InputError("policy check: missing the FILE argument (usage: " + std::string(self.usage) + ")"));
  Result<Policy> policy = LoadPolicyFile(vm["file"].as<std::string>());
  if (!policy.ok()) return ReportError(policy.error());
  PrintPolicy(*policy);
  return 0;
}

}  // namespace gpugate
