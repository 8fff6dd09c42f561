// Options and the final step shared by the comparing commands (compare, gate).
#pragma once

#include <boost/program_options.hpp>

#include "config/policy.h"
#include "ingest/format.h"
#include "model/verdicts.h"
#include "util/result.h"

namespace gpugate {

/// --policy, --allow-env-mismatch, --bigger-is-better, --verbose, --quiet and
/// the report flags.
void AddCompareOptions(boost::program_options::options_description& options);

/// --bigger-is-better: what benchmark files do not say about themselves.
void AddIngestOptions(boost::program_options::options_description& options);
IngestOptions IngestOptionsFrom(const boost::program_options::variables_map& vm);

/// The policy named by --policy, or the built-in default.
Result<Policy> PolicyFromOptions(const boost::program_options::variables_map& vm);

/// Writes the reports and returns the exit code the verdicts call for.
int FinishComparison(const Verdicts& verdicts, const boost::program_options::variables_map& vm);

}  // namespace gpugate
