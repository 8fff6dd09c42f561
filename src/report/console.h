// Console report: one aligned table (verdict, workload, metric, change with
// its interval, p and adjusted p, what it could have seen, a short note),
// failed workloads and regressions first, then environment differences,
// suggestions, warnings, what the comparison could have seen and a closing
// summary line that never says pass when nothing was decided.
#pragma once

#include <string>

#include "model/verdicts.h"
#include "report/options.h"

namespace gpugate {

/// Renders the verdicts for a terminal. ANSI colours only when
/// `options.color` is set; untrusted text goes through EscapeTerminal, so no
/// name can emit control sequences or extra lines. Unchanged results are one
/// count line unless `options.verbose`, which also prints each result's full
/// sentence under its row. Pure: no I/O.
std::string RenderConsole(const Verdicts& verdicts, const ReportOptions& options = {});

}  // namespace gpugate
