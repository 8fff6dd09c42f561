// The console guard: no line that leaves gpugate on GitHub Actions is a
// workflow command unless gpugate wrote it as one.
#include "util/text/workflow_guard.h"

#include <gtest/gtest.h>

#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace gpugate {
namespace {

const std::string kZwsp = "\xE2\x80\x8B";

TEST(WorkflowGuard, LeavesOrdinaryTextAlone) {
  const std::string text = "gpugate: 3 workloads\n  ns::func  1.2 ms\n# heading [x]\nurl http://a:b\n";
  EXPECT_EQ(GuardWorkflowCommands(text), text);
}

TEST(WorkflowGuard, BreaksCommandsAtTheStartOfALine) {
  EXPECT_EQ(GuardWorkflowCommands("::stop-commands::tok\n"), ":" + kZwsp + ":stop-commands::tok\n");
  EXPECT_EQ(GuardWorkflowCommands("ok\n   ::error::x"), "ok\n   :" + kZwsp + ":error::x");
  EXPECT_EQ(GuardWorkflowCommands("a\r::add-mask::x"), "a\r:" + kZwsp + ":add-mask::x");
  // Unicode blanks before the colons (NBSP, ideographic space) count as blank.
  EXPECT_EQ(GuardWorkflowCommands("\xc2\xa0\xe3\x80\x80::x::y"),
            "\xc2\xa0\xe3\x80\x80:" + kZwsp + ":x::y");
  EXPECT_EQ(GuardWorkflowCommands("\t\v::x"), "\t\v:" + kZwsp + ":x");
}

TEST(WorkflowGuard, BreaksLegacyCommandsAnywhere) {
  EXPECT_EQ(GuardWorkflowCommands("name ##[error]x\n"), "name #" + kZwsp + "#[error]x\n");
  EXPECT_EQ(GuardWorkflowCommands("###[x"), "##" + kZwsp + "#[x");
  EXPECT_EQ(GuardWorkflowCommands("# [x] #"), "# [x] #");
}

TEST(WorkflowGuard, WorksAcrossChunkBoundaries) {
  // The same text fed one byte at a time gives the same result.
  const std::string text = "x\n:: a ##[b\n  ::c\n#\n#[\n##";
  WorkflowCommandGuard guard;
  std::string out;
  for (char c : text) guard.Feed(std::string(1, c), out);
  guard.Finish(out);
  EXPECT_EQ(out, GuardWorkflowCommands(text));
  EXPECT_EQ(out, "x\n:" + kZwsp + ": a #" + kZwsp + "#[b\n  :" + kZwsp + ":c\n#\n#[\n##");
  EXPECT_EQ(guard.changed_lines(), 3);
}

// Every byte sequence, after the guard, is free of command lines: checked by
// brute force over short strings of the interesting characters.
TEST(WorkflowGuard, NoGuardedTextHasACommandLine) {
  const std::vector<std::string> alphabet = {":", "#", "[", " ", "\n", "\r", "a", "\xc2\xa0"};
  std::vector<std::string> texts = {""};
  for (int len = 0; len < 6; ++len) {
    std::vector<std::string> next;
    for (const auto& t : texts)
      for (const auto& a : alphabet) next.push_back(t + a);
    texts = std::move(next);
    for (const auto& t : texts) {
      const std::string g = GuardWorkflowCommands(t);
      ASSERT_EQ(g.find("##["), std::string::npos) << t;
      size_t start = 0;
      while (start <= g.size()) {
        size_t end = g.find_first_of("\r\n", start);
        if (end == std::string::npos) end = g.size();
        std::string line = g.substr(start, end - start);
        size_t i = 0;
        while (i < line.size()) {
          if (line[i] == ' ') {
            ++i;
          } else if (line.compare(i, 2, "\xc2\xa0") == 0) {
            i += 2;
          } else {
            break;
          }
        }
        ASSERT_NE(line.compare(i, 2, "::"), 0) << "'" << t << "' -> '" << g << "'";
        start = end + 1;
      }
    }
  }
}

/// A target that takes bytes into a string; its sync fails when told to.
class RecordingBuf : public std::streambuf {
 public:
  std::string bytes;
  bool refuse = false;
  bool sync_fails = false;

 protected:
  int_type overflow(int_type c) override {
    if (refuse) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) bytes += traits_type::to_char_type(c);
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (refuse) return 0;
    bytes.append(s, static_cast<size_t>(n));
    return n;
  }
  int sync() override { return sync_fails ? -1 : 0; }
};

// A write failure below the guard (a full disk under stdout) must reach the
// ostream on top of it, or gpugate would exit 0 having lost its output.
TEST(GuardedStreambuf, PassesGuardedTextThrough) {
  RecordingBuf target;
  GuardedStreambuf guarded(&target);
  std::ostream out(&guarded);
  out << "ok\n::error::x\n" << 'y' << std::flush;
  EXPECT_TRUE(out.good());
  EXPECT_TRUE(guarded.Drain());
  EXPECT_EQ(target.bytes, "ok\n:" + kZwsp + ":error::x\ny");
}

TEST(GuardedStreambuf, WriteFailuresOfTheTargetPropagate) {
  RecordingBuf target;
  target.refuse = true;
  GuardedStreambuf guarded(&target);
  std::ostream out(&guarded);
  out << "lost\n";  // xsputn
  EXPECT_TRUE(out.bad());
  out.clear();
  out.put('x');  // overflow
  EXPECT_TRUE(out.bad());
  out.clear();
  out.flush();  // a sync after a refused write fails too
  EXPECT_TRUE(out.bad());
  EXPECT_FALSE(guarded.Drain());
}

TEST(GuardedStreambuf, SyncFailuresOfTheTargetPropagate) {
  RecordingBuf target;
  target.sync_fails = true;
  GuardedStreambuf guarded(&target);
  std::ostream out(&guarded);
  out << "buffered below\n";
  EXPECT_TRUE(out.good());
  out.flush();
  EXPECT_TRUE(out.bad());
  EXPECT_FALSE(guarded.Drain());
}

}  // namespace
}  // namespace gpugate
