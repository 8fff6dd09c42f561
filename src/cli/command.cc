// Shared command-line plumbing: option parsing, errors, version.
#include "cli/command.h"

#include <iostream>

#include "util/strings.h"
#include "util/text/escape.h"

namespace po = boost::program_options;

namespace gpugate {

const char* Version() { return GPUGATE_VERSION; }

namespace {

// A message's later lines are indented (those that are not already), so that
// no line of it can pass for a line of gpugate's own output ("PASS: ...",
// "gpugate: error: ...") when it quotes a file name holding a line feed.
std::string MessageLines(const std::string& message) {
  const std::string text = EscapeTerminalLines(message);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\t' &&
        text[i + 1] != '\n')
      out += "  ";
  }
  return out;
}

}  // namespace

int ReportError(const Error& error) {
  std::cerr << "gpugate: error: " << MessageLines(error.message) << "\n";
  return static_cast<int>(error.code);
}

void ReportWarning(const std::string& message) {
  std::cerr << "gpugate: warning: " << MessageLines(message) << "\n";
}

std::optional<int> ParseCommandLine(const CommandSpec& self, const Args& args,
                                    po::options_description& options,
                                    const po::positional_options_description& positional,
                                    po::variables_map& vm) {
  options.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << self.usage << "\n\n" << self.summary << "\n\n" << options << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    std::vector<std::string> names;
    for (const auto& opt : options.options()) names.push_back("--" + opt->long_name());
    std::string bad = e.get_option_name();
    std::cerr << "gpugate: error: " << self.name << ": unknown option '" << EscapeTerminal(bad) << "'"
              << DidYouMean(bad, names) << "\n"
              << "usage: " << self.usage << " (see 'gpugate " << self.name << " --help')\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "gpugate: error: " << self.name << ": " << EscapeTerminalLines(e.what()) << "\n"
              << "usage: " << self.usage << " (see 'gpugate " << self.name << " --help')\n";
    return 2;
  }
  return std::nullopt;
}

void AddReportOptions(po::options_description& options) {
  options.add_options()
      ("junit", po::value<std::string>(), "write JUnit XML to this file ('-' = stdout)")
      ("markdown", po::value<std::string>(), "write a Markdown report to this file ('-' = stdout)")
      ("json", po::value<std::string>(), "write gpugate/verdicts/v1 JSON to this file ('-' = stdout)")
      ("html", po::value<std::string>(), "write a self-contained HTML report to this file")
      ("github", "on GitHub Actions: step summary, outputs and ::error annotations");
}

}  // namespace gpugate
