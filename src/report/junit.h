// JUnit XML report in the Apache Ant schema that CI report readers follow
// (tests/data/junit/JUnit.xsd): one <testsuite name="gpugate"> inside
// <testsuites>, one <testcase classname="gpugate.<metric>" name="<workload>">
// per workload x metric.
//
// Mapping: a regression whose severity is `fail` and that is not waived is a
// <failure type="regression">; skipped and incomparable results are
// <skipped>; inconclusive results are a <failure type="inconclusive"> only
// when the overall outcome is `inconclusive` (the policy asked for
// certainty), otherwise they pass. Everything else passes. The schema allows
// neither <properties> nor <system-out> inside a testcase, so the ratio,
// interval, p-values and threshold of each testcase are suite-level
// <property name="<metric> <workload>"> entries and a line each in the
// suite's <system-out>, which also carries the notes of passing results
// (warn-only or waived regressions, new, removed).
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
