// The last line of defence against workflow-command injection on GitHub
// Actions. The runner reads every line a step prints, on stdout and stderr,
// and executes as a workflow command any line whose first non-blank
// characters are "::" and any line that contains "##[" (the legacy form).
// gpugate prints names that come from pull requests (workloads, benchmarks,
// kernels); the text layer escapes them field by field (EscapeTerminal, the
// format escapes), and this guard checks the whole console stream line by
// line, so text can never become a command however it was assembled.
//
// A line that would be a command gets a zero-width space (U+200B) inside the
// "::" or "##[": it looks the same in the log and executes nothing. gpugate's
// own commands (annotations) are written with WriteWorkflowCommands, which
// bypasses the guard.
#pragma once

#include <streambuf>
#include <string>
#include <string_view>

namespace gpugate {

/// A streaming filter over console bytes. Lines end at LF or CR (the runner
/// splits at both). Holds back at most two bytes that might begin a command
/// together with the next chunk.
class WorkflowCommandGuard {
 public:
  /// Appends the guarded form of `chunk` to `out`.
  void Feed(std::string_view chunk, std::string& out);
  /// Appends the bytes held back (at the end of the output).
  void Finish(std::string& out);
  /// Number of lines that were changed so far.
  long changed_lines() const { return changed_lines_; }

 private:
  void Release(std::string& out);
  bool line_blank_ = true;  // no printable ASCII on this line yet
  bool pending_colon_ = false;
  int pending_hashes_ = 0;
  long changed_lines_ = 0;
};

/// `text` with every line that would be a workflow command made inert.
std::string GuardWorkflowCommands(std::string_view text);

/// A streambuf that passes everything through a WorkflowCommandGuard to
/// another streambuf (std::cout's and std::cerr's, see below). Failures of
/// the target propagate: xsputn and overflow report what the target did not
/// take, sync returns -1 when the target's sync fails, so the ostream on top
/// gets badbit and a write error is never lost behind the guard.
class GuardedStreambuf final : public std::streambuf {
 public:
  explicit GuardedStreambuf(std::streambuf* target) : target_(target) {}

  /// Writes the held-back bytes and syncs the target: before an own
  /// workflow command and at exit. False when the target failed.
  bool Drain();
  std::streambuf* target() const { return target_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Put(const std::string& out);
  std::streambuf* target_;
  WorkflowCommandGuard guard_;
  bool failed_ = false;  // the target refused bytes once: later syncs fail too
};

/// When GITHUB_ACTIONS is "true", routes std::cout and std::cerr through a
/// WorkflowCommandGuard each (C stdio is not used for console text). Call
/// once, first thing in main. Returns whether the guard was installed.
bool InstallWorkflowCommandGuard();

/// Writes the bytes the installed guards hold back (at most two per stream)
/// and syncs the streams below them. Returns false when standard output
/// failed. For the end of main, before standard output is checked; a no-op
/// returning true when no guard is installed.
bool DrainWorkflowCommandGuard();

/// Writes gpugate's own workflow commands (complete lines built by
/// report/github.h, their parameters escaped there) to stdout, or to stderr
/// with `to_stderr` (stdout carries a report), past the guard, after
/// flushing what was printed before them.
void WriteWorkflowCommands(std::string_view lines, bool to_stderr = false);

}  // namespace gpugate
