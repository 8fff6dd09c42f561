// Report I/O for compare, gate and ab.
#include "cli/reports.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ctime>
#include <iostream>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "cli/progress.h"
#include "report/github.h"
#include "report/markdown.h"
#include "report/registry.h"
#include "util/text/workflow_guard.h"
#include "util/file_write.h"

namespace gpugate {

namespace {

std::string UtcTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::string HostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// Each part is written even when another failed (the annotations carry a
// regression however the step summary fared); the first failure is returned.
// `stdout_taken`: a report went to standard output, so the annotations go to
// standard error, which the runner reads for workflow commands too, and the
// report stays one document.
Status EmitGithub(const Verdicts& verdicts, const ReportOptions& options, bool stdout_taken) {
  const char* actions = std::getenv("GITHUB_ACTIONS");
  if (actions == nullptr || std::string(actions) != "true") {
    std::cerr << "gpugate: note: --github ignored: GITHUB_ACTIONS is not set\n";
    return Status::Ok();
  }
  Status failed = Status::Ok();
  ReportOptions annotated = options;
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary) {
    // What an earlier call in this step wrote counts against GitHub's limit.
    ReportOptions fitted = options;
    std::error_code ec;
    const std::uintmax_t held = std::filesystem::file_size(summary, ec);
    fitted.step_summary_held = ec ? 0 : static_cast<size_t>(held);
    const std::string text = RenderGithubStepSummary(verdicts, fitted);
    annotated.step_summary_whole = !text.empty() && text == RenderMarkdown(verdicts);
    if (text.empty()) {
      ReportWarning("the step summary ($GITHUB_STEP_SUMMARY) already holds " + std::to_string(held) +
                    " bytes: the room left under GitHub's limit holds neither this report nor a "
                    "shortened one, so it is not added (the --markdown and --json reports list every row)");
    } else {
      // After text that does not end its line, the report's heading would
      // not start one.
      std::string block = text;
      if (held > 0) {
        std::ifstream in(summary, std::ios::binary);
        char last = '\n';
        if (in.seekg(-1, std::ios::end)) in.get(last);
        if (last != '\n') block = "\n" + block;
      }
      if (Status st = AppendToFileLocked(summary, block, "GITHUB_STEP_SUMMARY"); !st.ok()) failed = st;
    }
  }
  if (const char* output = std::getenv("GITHUB_OUTPUT"); output && *output) {
    if (Status st = AppendToFileLocked(output, RenderGithubOutput(verdicts, options), "GITHUB_OUTPUT");
        !st.ok() && failed.ok())
      failed = st;
  }
  WriteWorkflowCommands(RenderGithubAnnotations(verdicts, annotated), stdout_taken);
  return failed;
}

}  // namespace

Status EmitReports(const Verdicts& verdicts, const boost::program_options::variables_map& vm,
                   bool quiet, const std::map<std::string, ReportOptions::Source>& sources) {
  ReportOptions options;
  options.sources = sources;
  options.color = StdoutWantsColor();
  options.timestamp = UtcTimestamp();
  options.hostname = HostName();
  options.verbose = vm.count("verbose") > 0;

  // All or none: a report that could not be written leaves no other saying
  // pass.
  static const char* kFileFormats[] = {"junit", "markdown", "pr-comment", "json", "html"};
  // A results file on stdout (`gate -o -`, `ab --base-results -`) takes it
  // as much as a report does: the console report then goes to stderr, and
  // so do the annotations.
  bool console_taken = false, results_on_stdout = false;
  for (const char* name : {"output", "base-results", "head-results"})
    if (vm.count(name))
      if (const auto* path = boost::any_cast<std::string>(&vm[name].value()); path && IsStdoutPath(*path))
        results_on_stdout = true;
  std::vector<std::pair<std::string, std::string>> files;
  for (const char* name : kFileFormats) {
    if (!vm.count(name)) continue;
    const ReportFormat* format = FindReportFormat(name);
    GPUGATE_CHECK(format != nullptr);
    const std::string path = vm[name].as<std::string>();
    ReportOptions file_options = options;
    file_options.color = false;
    files.emplace_back(path, format->render(verdicts, file_options));
    console_taken |= IsStdoutPath(path);
  }
  // The console on standard output is one of them: written before any file
  // is renamed into place, so a full device there leaves no report saying
  // pass behind a command that failed (a reader that went away is no
  // failure). On standard error (results took standard output) it is a
  // message like any other, written after them and never a failure.
  const ReportFormat* console = FindReportFormat("console");
  GPUGATE_CHECK(console != nullptr);
  const bool console_out = !quiet && !console_taken;
  if (console_out && !results_on_stdout) {
    std::cout.flush();
    files.emplace_back("-", console->render(verdicts, options));
  }
  if (Status st = WriteFilesAtomic(files); !st.ok()) return st;
  if (console_out && results_on_stdout) {
    ReportOptions err_options = options;
    err_options.color = StreamWantsColor(STDERR_FILENO);  // the stream it goes to
    std::cerr << console->render(verdicts, err_options);
    std::cerr.flush();
  }
  if (vm.count("github")) return EmitGithub(verdicts, options, console_taken || results_on_stdout);
  return Status::Ok();
}

}  // namespace gpugate
