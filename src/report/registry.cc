// The table of report formats (see registry.h).
#include "report/registry.h"

#include "report/console.h"
#include "report/github.h"
#include "report/html.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/markdown.h"

namespace gpugate {

const std::vector<ReportFormat>& ReportFormats() {
  static const std::vector<ReportFormat> kFormats = {
      {"console", "txt", "aligned table for a terminal (colour on request)", &RenderConsole},
      {"markdown", "md", "GitHub-flavoured Markdown for PR comments", &RenderMarkdown},
      {"junit", "xml", "JUnit XML (Apache Ant schema) for CI test reports", &RenderJunit},
      {"json", "json", "verdicts JSON, gpugate/verdicts/v2", &RenderJson},
      {"html", "html", "self-contained HTML page", &RenderHtml},
      {"github-summary", "summary.md", "Markdown for $GITHUB_STEP_SUMMARY",
       &RenderGithubStepSummary},
      {"pr-comment", "comment.md", "Markdown fitted to one pull-request comment",
       &RenderGithubComment},
      {"github-output", "output.txt", "name=value lines for $GITHUB_OUTPUT", &RenderGithubOutput},
      {"github-annotations", "annotations.txt", "::error/::warning workflow commands",
       &RenderGithubAnnotations},
  };
  return kFormats;
}

const ReportFormat* FindReportFormat(std::string_view name) {
  for (const ReportFormat& f : ReportFormats()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::vector<std::string> ReportFormatNames() {
  std::vector<std::string> names;
  for (const ReportFormat& f : ReportFormats()) names.push_back(f.name);
  return names;
}

}  // namespace gpugate
