// The table of report formats. A new format is one renderer, one row here
// and one golden test (tests/report/golden_test.cc renders every row).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/verdicts.h"
#include "report/options.h"

namespace gpugate {

/// A pure renderer: verdicts + options -> bytes.
using RenderFunction = std::string (*)(const Verdicts&, const ReportOptions&);

struct ReportFormat {
  const char* name;         ///< "markdown"; what --format style options and tests use
  const char* extension;    ///< golden-file / default file extension: "md"
  const char* description;  ///< one line for --help
  RenderFunction render;
};

/// Every format, in a fixed order: console, markdown, junit, json, html,
/// github-summary, github-output, github-annotations.
const std::vector<ReportFormat>& ReportFormats();

/// The format with this name, or nullptr.
const ReportFormat* FindReportFormat(std::string_view name);

/// Format names (for "did you mean" and --help).
std::vector<std::string> ReportFormatNames();

}  // namespace gpugate
