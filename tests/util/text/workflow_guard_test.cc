// The console guard: no line that leaves gpugate on GitHub Actions is a
// workflow command unless gpugate wrote it as one.
#include "util/text/workflow_guard.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gpugate
