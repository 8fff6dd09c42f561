// The command table: one row per subcommand. It drives dispatch, the top-level
// --help and "did you mean" for typos (ninja's kTools). Each subcommand lives
// in its own file (src/cli/<name>.cc) and parses its own options with
// Boost.Program_options through ParseCommandLine below.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace gpugate {

using Args = std::vector<std::string>;

struct CommandSpec {
  const char* name;      ///< "run"
  const char* usage;     ///< "gpugate run SUITE -o RESULTS [options]"
  const char* summary;   ///< one line for the command list
  int (*run)(const CommandSpec& self, const Args& args);
};

/// All subcommands, in the order --help lists them.
const std::vector<CommandSpec>& CommandTable();

/// Parses `args` for a subcommand. Adds --help. Returns an exit code when the
/// command should end now (help printed: 0; usage error printed: 2), or
/// nullopt to continue with `vm` filled.
std::optional<int> ParseCommandLine(const CommandSpec& self, const Args& args,
                                    boost::program_options::options_description& options,
                                    const boost::program_options::positional_options_description& positional,
                                    boost::program_options::variables_map& vm);

/// Prints "gpugate: error: <message>" to stderr and returns its exit code.
int ReportError(const Error& error);
/// Prints "gpugate: warning: <message>" to stderr.
void ReportWarning(const std::string& message);

/// Report flags shared by compare, gate and ab:
/// --junit F --markdown F --json F --html F --github.
void AddReportOptions(boost::program_options::options_description& options);

/// Checks the files a command will write (-o/--output, the report options,
/// ab's --base-results and --head-results), before any work: each must be a
/// file that can be created or replaced (its folder exists and is writable;
/// not a folder), none may be one of `inputs` or of the command's input
/// options (suite, baseline, current, policy, device-profile, inputs,
/// results, trace, inspect's file and ptxas-log, baselines: writing would
/// destroy it) or a .json inside an input folder (a baselines folder's
/// history), and no two may be the same file, however spelled. An empty
/// name is refused. Devices and FIFOs (/dev/null) are written in place and
/// exempt. Errors are input errors naming the option.
Status CheckOutputPaths(const boost::program_options::variables_map& vm,
                        std::vector<std::string> inputs = {});

/// Checks a folder a command writes files into (dashboard's --output),
/// before any work: a non-empty name that is not stdout, and either a folder
/// that can be written in or a missing one whose nearest existing parent is
/// a writable folder (it is created). Errors are input errors naming the
/// option.
Status CheckOutputFolder(const std::string& option, const std::string& path);

/// The gpugate version string ("0.1.0").
const char* Version();

}  // namespace gpugate
