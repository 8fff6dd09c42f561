// `gpugate inspect FILE [--json OUT]`: static per-kernel metrics of a cubin,
// fatbin, object, static or shared library or executable. docs/inspect.md.
#include "static/inspect.h"

#include <iostream>

#include "cli/command.h"
#include "static/inspect_render.h"
#include "util/file_write.h"
#include "util/fs.h"

namespace po = boost::program_options;

namespace gpugate {

int InspectCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()("file", po::value<std::string>()->required(),
                        "cubin, fatbin, object (.o), static library (.a), shared library or executable")(
      "json", po::value<std::string>(), "write gpugate/inspect/v1 JSON to this file ('-' = stdout)")(
      "ptxas-log", po::value<std::string>(),
      "add spill stores/loads from the ptxas -v / --resource-usage log of the same build");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  // --json is neither the file nor the log read, nor a folder, before any work.
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());

  Result<InspectReport> report = InspectFile(vm["file"].as<std::string>());
  if (!report.ok()) return ReportError(report.error());
  AddOccupancy(&*report);
  if (vm.count("ptxas-log")) {
    const std::string log_path = vm["ptxas-log"].as<std::string>();
    Result<std::string> text = ReadFile(log_path, InputKind::kData);
    if (!text.ok()) return ReportError(text.error());
    Result<std::vector<PtxasKernel>> log = ParsePtxasLog(*text, log_path);
    if (!log.ok()) return ReportError(log.error());
    if (Status st = AddPtxasLog(&*report, *log, log_path); !st.ok()) return ReportError(st.error());
  }
  const bool json_to_stdout = vm.count("json") && IsStdoutPath(vm["json"].as<std::string>());
  // The table and the JSON as one: a table that cannot be written (a full
  // device) leaves no JSON file behind a command that failed.
  std::vector<std::pair<std::string, std::string>> outputs;
  if (!json_to_stdout) outputs.emplace_back("-", RenderInspectTable(*report));
  if (vm.count("json")) outputs.emplace_back(vm["json"].as<std::string>(), InspectToJson(*report));
  if (Status st = WriteFilesAtomic(outputs); !st.ok()) return ReportError(st.error());
  return 0;
}

}  // namespace gpugate
