// Writing the reports a comparison asked for (--junit, --markdown, --json,
// --html, --github) and the console table. Renderers are pure (src/report/);
// this is the I/O edge.
#pragma once

#include <map>
#include <string>

#include "report/options.h"

#include <boost/program_options.hpp>

#include "model/verdicts.h"
#include "util/result.h"

namespace gpugate {

/// Prints the console report to stdout (unless `quiet`), writes each
/// requested report file atomically, and with --github (when GITHUB_ACTIONS
/// is set) appends the step summary, writes outputs and prints annotations.
Status EmitReports(const Verdicts& verdicts, const boost::program_options::variables_map& vm,
                   bool quiet, const std::map<std::string, ReportOptions::Source>& sources = {});

}  // namespace gpugate
