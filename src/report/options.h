// Options every reporter accepts. Reporters are pure functions of the
// verdicts and these options; whatever depends on the machine or the clock
// (a TTY, NO_COLOR, the time, the host name) is decided by the caller.
#pragma once

#include <map>
#include <optional>

#include <string>

namespace gpugate {

struct ReportOptions {
  /// Console: ANSI colours. The CLI sets it when stdout is a TTY and NO_COLOR
  /// is unset; reporters never look at the environment themselves.
  bool color = false;
  /// Console: list unchanged results row by row instead of one count line,
  /// and print each result's full sentence under its row.
  bool verbose = false;
  /// JUnit `timestamp` (UTC, "YYYY-MM-DDTHH:MM:SS", what the Ant schema
  /// accepts). Empty writes "1970-01-01T00:00:00".
  std::string timestamp;
  /// JUnit `hostname`; empty writes "localhost" as the schema recommends.
  std::string hostname;
  /// Where each workload is declared (suite file and line), when the
  /// command ran a suite (gate, ab): GitHub annotations point at it.
  struct Source {
    std::string file;
    int line = 0;
  };
  std::map<std::string, Source> sources;
  /// GitHub step summary: bytes the summary file already holds (an earlier
  /// step's or an earlier call's). GitHub drops a step's whole summary past
  /// 1 MiB, so the report is fitted into what is left.
  size_t step_summary_held = 0;
  /// GitHub annotations: whether this call's step summary holds the whole
  /// report (true), was shortened or left out to fit (false), or was not
  /// written (unset), so that the note past GitHub's 10 annotations of a kind
  /// sends the reader where every one of them is.
  std::optional<bool> step_summary_whole;
};

}  // namespace gpugate
