// Options and the final step shared by the comparing commands (compare, gate).
#pragma once

#include <boost/program_options.hpp>

#include <map>
#include <string>
#include <vector>

#include "config/policy.h"
#include "config/suite.h"
#include "ingest/format.h"
#include "model/verdicts.h"
#include "report/options.h"
#include "util/result.h"

namespace gpugate {

/// --policy, --allow-env-mismatch, --bigger-is-better, --verbose, --quiet and
/// the report flags.
void AddCompareOptions(boost::program_options::options_description& options);

/// --bigger-is-better: what benchmark files do not say about themselves.
/// --bigger-is-better, for custom JSON that a command reads (`applies_to`:
/// "files of", "a --baseline of", ...).
void AddIngestOptions(boost::program_options::options_description& options, const char* applies_to);
IngestOptions IngestOptionsFrom(const boost::program_options::variables_map& vm);

/// The policy named by --policy, or the built-in default.
Result<Policy> PolicyFromOptions(const boost::program_options::variables_map& vm);

/// The threshold rules and waivers of a policy file whose match looks like a
/// mistyped glob: a plain name (no '*', '?', '[') or one with blanks at its
/// ends that names no workload of the verdicts: "team.yaml:7:5: rule (match
/// 'gemm') names no workload of this comparison; ...". A glob that selects
/// nothing is left alone (a policy shared by suites); none for the built-in
/// policy.
std::vector<std::string> PolicyEntriesMatchingNothing(const Policy& policy, const Verdicts& verdicts);

/// Writes the reports and returns the exit code the verdicts call for.
int FinishComparison(const Verdicts& verdicts, const boost::program_options::variables_map& vm,
                     const std::map<std::string, ReportOptions::Source>& sources = {});
/// FinishComparison for a comparison that also wrote results files (`gate
/// -o`, `ab --base-results/--head-results`): the reports and the verdict
/// come first, then every file in `written` that could not be written is
/// reported, and one such failure is a tool error (exit 3, which outranks
/// the verdict's code as a failed workload does; docs/policy.md).
int FinishComparison(const Verdicts& verdicts, const boost::program_options::variables_map& vm,
                     const std::map<std::string, ReportOptions::Source>& sources,
                     const std::vector<Status>& written);
/// Whether a result named `name` is `w`'s: its own, or one of the benchmarks
/// a program or a command with results reports ("w/benchmark").
bool ReportedBy(const WorkloadSpec& w, const std::string& name);

/// Where each workload of `workloads` (and each benchmark a program or a
/// command with results reported, by its name prefix) is declared.
std::map<std::string, ReportOptions::Source> WorkloadSources(const std::vector<WorkloadSpec>& workloads,
                                                             const std::vector<std::string>& reported);

}  // namespace gpugate
