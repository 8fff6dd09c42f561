// Verdicts JSON (`gpugate/verdicts/v2`): the writer behind `--json` and the
// reader that lets a later step (or another tool run) render the same
// verdicts again. Field reference: docs/verdicts-schema.md.
#pragma once

#include <string>
#include <string_view>

#include "model/verdicts.h"
#include "report/options.h"
#include "util/result.h"

namespace gpugate {

/// Serialises the verdicts (pretty-printed, fixed key order). Doubles are
/// written in shortest round-trip form, absent optionals and non-finite
/// numbers as null, strings as valid UTF-8 (invalid bytes become U+FFFD).
/// A derived "counts" object is added for consumers; the reader ignores it.
/// Pure: no I/O.
std::string RenderJson(const Verdicts& verdicts, const ReportOptions& options = {});

/// Parses verdicts written by RenderJson; `name` is used in messages
/// ("v.json:12:20: metrics[3].verdict: unknown verdict 'regresion' (did you
/// mean 'regression'?)"). Rejects any schema other than
/// "gpugate/verdicts/v2[.minor]"; unknown keys are ignored (minor versions
/// only add fields). RenderJson followed by VerdictsFromJson gives back equal
/// verdicts for valid UTF-8 text and finite numbers. Errors exit with code 2.
Result<Verdicts> VerdictsFromJson(std::string_view text, const std::string& name);

}  // namespace gpugate
