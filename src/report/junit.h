// JUnit XML report in the Apache Ant schema that CI report readers follow
// (tests/data/junit/JUnit.xsd): one <testsuite name="gpugate"> inside
// <testsuites>, one <testcase classname="gpugate.<metric>" name="<workload>">
// per workload x metric.
//
// Mapping: a workload that failed to run is an <error type="current_failed">
// (the outcome `error`); a regression whose severity is `fail` and that is
// not waived is a <failure type="regression">; inconclusive results are a
// <failure type="inconclusive"> when the overall outcome is `inconclusive`
// because of them (on_inconclusive: fail, require_detectable) and otherwise
// <skipped> (not judged: never a pass); incomparable results likewise a
// <failure type="incomparable"> under on_incomparable: fail; skipped, new and
// removed results are <skipped> (they compared nothing). Everything else
// (regressions that warn, are waived or off; improvements; unchanged) passes. Messages are the short notes; failure and error bodies carry
// the numbers and the full sentence. The schema allows neither <properties>
// nor <system-out> inside a testcase, so the ratio, interval, p-values,
// threshold and minimum detectable effect of each testcase are suite-level
// <property name="<metric> <workload>"> entries and a line each in the
// suite's <system-out>, which also carries the notes of passing results
// (warn-only or waived regressions). Suite properties carry
// the outcome (gpugate.outcome, machine spelling), the headline, what the
// comparison could have seen and the policy's require_detectable.
#pragma once

#include <string>

#include "model/verdicts.h"
#include "report/options.h"

namespace gpugate {

/// Renders the verdicts as JUnit XML (UTF-8). Uses `options.timestamp` and
/// `options.hostname`; testcase times are 0 (the verdicts carry no run time).
/// Untrusted text is escaped with EscapeXml/EscapeXmlText. Pure: no I/O.
std::string RenderJunit(const Verdicts& verdicts, const ReportOptions& options = {});

}  // namespace gpugate
