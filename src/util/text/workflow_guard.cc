// Line-level guard against GitHub workflow-command injection (see
// workflow_guard.h).
#include "util/text/workflow_guard.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <streambuf>

namespace gpugate {
namespace {

constexpr char kZeroWidthSpace[] = "\xE2\x80\x8B";

// A printable ASCII byte other than the space ends the blank start of a line.
// Bytes >= 0x80 may be part of a Unicode blank (NBSP, ideographic space...),
// so they do not: "::" after them is treated as a line start too.
bool EndsBlankStart(unsigned char b) { return b > 0x20 && b < 0x7F; }

}  // namespace

void WorkflowCommandGuard::Release(std::string& out) {
  if (pending_colon_) out += ':';
  out.append(static_cast<size_t>(pending_hashes_), '#');
  pending_colon_ = false;
  pending_hashes_ = 0;
}

void WorkflowCommandGuard::Feed(std::string_view chunk, std::string& out) {
  out.reserve(out.size() + chunk.size());
  for (char ch : chunk) {
    const auto b = static_cast<unsigned char>(ch);
    if (pending_colon_) {
      pending_colon_ = false;
      out += ':';
      if (b == ':') {
        out += kZeroWidthSpace;  // ":" ZWSP ":" -- no longer "::"
        out += ':';
        ++changed_lines_;
        line_blank_ = false;
        continue;
      }
    }
    if (b == '#') {
      ++pending_hashes_;
      line_blank_ = false;
      continue;
    }
    if (pending_hashes_ > 0) {
      if (b == '[' && pending_hashes_ >= 2) {
        // "##[" -> "#" ZWSP "#[" (keeping any extra '#' before them).
        out.append(static_cast<size_t>(pending_hashes_ - 1), '#');
        out += kZeroWidthSpace;
        out += '#';
        ++changed_lines_;
      } else {
        out.append(static_cast<size_t>(pending_hashes_), '#');
      }
      pending_hashes_ = 0;
    }
    if (b == '\n' || b == '\r') {
      out += ch;
      line_blank_ = true;
      continue;
    }
    if (b == ':' && line_blank_) {
      pending_colon_ = true;
      line_blank_ = false;
      continue;
    }
    if (EndsBlankStart(b)) line_blank_ = false;
    out += ch;
  }
}

void WorkflowCommandGuard::Finish(std::string& out) { Release(out); }

std::string GuardWorkflowCommands(std::string_view text) {
  WorkflowCommandGuard guard;
  std::string out;
  guard.Feed(text, out);
  guard.Finish(out);
  return out;
}

bool GuardedStreambuf::Drain() {
  std::string out;
  guard_.Finish(out);
  bool ok = Put(out);
  return target_->pubsync() == 0 && ok && !failed_;
}

GuardedStreambuf::int_type GuardedStreambuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
}

std::streamsize GuardedStreambuf::xsputn(const char* s, std::streamsize n) {
  std::string out;
  guard_.Feed(std::string_view(s, static_cast<size_t>(n)), out);
  return Put(out) ? n : 0;
}

int GuardedStreambuf::sync() { return target_->pubsync() == 0 && !failed_ ? 0 : -1; }

bool GuardedStreambuf::Put(const std::string& out) {
  if (out.empty()) return true;
  bool ok = target_->sputn(out.data(), static_cast<std::streamsize>(out.size())) ==
            static_cast<std::streamsize>(out.size());
  failed_ |= !ok;
  return ok;
}

namespace {

// Installed once and never destroyed: std::cout and std::cerr are used until
// the very end of the process.
GuardedStreambuf* g_out = nullptr;
GuardedStreambuf* g_err = nullptr;

void DrainAtExit() {
  if (g_out) g_out->Drain();
  if (g_err) g_err->Drain();
}

}  // namespace

bool DrainWorkflowCommandGuard() {
  bool ok = true;
  if (g_out) ok = g_out->Drain();
  if (g_err) g_err->Drain();
  return ok;
}

bool InstallWorkflowCommandGuard() {
  const char* actions = std::getenv("GITHUB_ACTIONS");
  if (g_out || !actions || std::strcmp(actions, "true") != 0) return false;
  g_out = new GuardedStreambuf(std::cout.rdbuf());
  g_err = new GuardedStreambuf(std::cerr.rdbuf());
  std::cout.rdbuf(g_out);
  std::cerr.rdbuf(g_err);
  std::atexit(DrainAtExit);
  return true;
}

void WriteWorkflowCommands(std::string_view lines, bool to_stderr) {
  // What was printed before goes first, on both streams.
  std::cerr.flush();
  std::cout.flush();
  GuardedStreambuf* guard = to_stderr ? g_err : g_out;
  std::ostream& stream = to_stderr ? std::cerr : std::cout;
  if (guard) {
    guard->Drain();
    guard->target()->sputn(lines.data(), static_cast<std::streamsize>(lines.size()));
    guard->target()->pubsync();
  } else {
    stream.write(lines.data(), static_cast<std::streamsize>(lines.size()));
    stream.flush();
  }
}

}  // namespace gpugate
