// Console report: one aligned table (verdict, workload, metric, change with
// its interval, p and adjusted p, note), regressions first, then environment
// differences, suggestions, warnings and a closing summary line.
#pragma once

#include <string>

#include "model/verdicts.h"
#include "report/options.h"

namespace gpugate {

/// Renders the verdicts for a terminal. ANSI colours only when
/// `options.color` is set; untrusted text goes through EscapeTerminal, so no
/// name can emit control sequences or extra lines. Unchanged results are one
/// count line unless `options.verbose`. Pure: no I/O.
std::string RenderConsole(const Verdicts& verdicts, const ReportOptions& options = {});

}  // namespace gpugate
