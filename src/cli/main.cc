// gpugate entry point: a thin dispatcher over the command table.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "util/strings.h"
#include "util/text/escape.h"
#include "util/text/workflow_guard.h"

namespace {

void PrintTopHelp(std::ostream& out) {
  out << "usage: gpugate COMMAND [options]\n\n"
         "Performance regression gate for GPU and CPU workloads.\n\ncommands:\n";
  for (const auto& c : gpugate::CommandTable()) {
    std::string name = c.name;
    out << "  " << name << std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') << c.summary
        << "\n";
  }
  out << "\n'gpugate COMMAND --help' shows a command's options.\n"
         "exit codes: 0 pass, 1 regression, 2 usage/config/input error, 3 workload or tool "
         "failure, 4 inconclusive\n";
}

}  // namespace

int main(int argc, char** argv) {
  gpugate::InstallWorkflowCommandGuard();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintTopHelp(std::cerr);
    return 2;
  }
  const std::string& cmd = args[0];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    PrintTopHelp(std::cout);
    return 0;
  }
  if (cmd == "--version" || cmd == "-V") {
    std::cout << "gpugate " << gpugate::Version() << "\n";
    return 0;
  }
  std::vector<std::string> names;
  for (const auto& c : gpugate::CommandTable()) {
    if (cmd == c.name) {
      try {
        return c.run(c, std::vector<std::string>(args.begin() + 1, args.end()));
      } catch (const std::exception& e) {
        std::cerr << "gpugate: error: internal: " << gpugate::EscapeTerminalLines(e.what()) << "\n";
        return 3;
      }
    }
    names.push_back(c.name);
  }
  std::cerr << "gpugate: error: unknown command '" << gpugate::EscapeTerminal(cmd) << "'"
            << gpugate::DidYouMean(cmd, names)
            << "\nsee 'gpugate --help'\n";
  return 2;
}
