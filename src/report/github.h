// GitHub Actions output for `--github`: the step-summary Markdown, the
// $GITHUB_OUTPUT lines and workflow-command annotations. Pure functions that
// return text; the CLI appends it to $GITHUB_STEP_SUMMARY / $GITHUB_OUTPUT or
// prints the annotations to stdout.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "model/verdicts.h"
#include "report/options.h"

namespace gpugate {

/// GitHub rejects a step summary larger than 1 MiB; RenderGithubStepSummary
/// stays below this many bytes.
inline constexpr size_t kGithubStepSummaryLimit = 1000 * 1000;

/// Markdown for $GITHUB_STEP_SUMMARY: the Markdown report, fitted by
/// RenderMarkdownFitted into kGithubStepSummaryLimit bytes less what the
/// file already holds (options.step_summary_held); empty when less than
/// kMinFittedMarkdownBytes would be left.
std::string RenderGithubStepSummary(const Verdicts& verdicts, const ReportOptions& options = {});

/// GitHub takes a comment of at most 65,536 characters; RenderGithubComment
/// stays below this many bytes (a character is at least one byte), with room
/// for the marker line the action puts first.
inline constexpr size_t kGithubCommentLimit = 60000;

/// Markdown for one pull-request comment (`--pr-comment`): the Markdown
/// report, fitted into kGithubCommentLimit bytes by RenderMarkdownFitted.
std::string RenderGithubComment(const Verdicts& verdicts, const ReportOptions& options = {});

/// One $GITHUB_OUTPUT entry: "name=value\n", or the multiline form
/// "name<<DELIM\nvalue\nDELIM\n" when the value contains CR or LF, with a
/// delimiter that does not occur in the value. `name` must be a plain
/// identifier (letters, digits, '_', '-').
std::string GithubOutputEntry(std::string_view name, std::string_view value);

/// $GITHUB_OUTPUT lines: outcome=pass|fail|inconclusive|error|not_judged
/// (never pass when nothing was decided) and verdict (the same value, its
/// older name); counts of metrics as in the verdicts JSON: regressions,
/// failing (regressions that fail the gate), errors (results of workloads
/// that failed to run), improvements, inconclusive, unchanged, new, removed,
/// skipped, incomparable, undetectable (workloads too noisy for the policy's
/// require_detectable); mde_min and mde_max (fractions; empty when nothing
/// was tested); summary (the report's headline).
std::string RenderGithubOutput(const Verdicts& verdicts, const ReportOptions& options = {});

/// Workflow commands, one per line: `::error title=...::...` for each
/// workload that failed to run and each regression that fails the gate,
/// `::warning` for warn-only and waived regressions, for each warning and
/// for an environment mismatch, and one line about inconclusive results
/// (`::warning` "not judged" when nothing was decided, `::error` when the
/// outcome is inconclusive, else `::notice`). Titles and messages are escaped with
/// EscapeGithubAnnotationProperty / EscapeGithubAnnotationMessage.
std::string RenderGithubAnnotations(const Verdicts& verdicts, const ReportOptions& options = {});

}  // namespace gpugate
