// Tests for escaping untrusted text in every output format.
#include "report/escape.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate {
namespace {

using namespace std::string_literals;

TEST(ReportEscape, MarkdownEscapesTableAndInlineSyntax) {
  EXPECT_EQ(EscapeMarkdown("a|b"), "a\\|b");
  EXPECT_EQ(EscapeMarkdown("`x`"), "\\`x\\`");
  EXPECT_EQ(EscapeMarkdown("*b* _i_ [l](u) # ~s~ $m$ \\"),
            "\\*b\\* \\_i\\_ \\[l\\](u) \\# \\~s\\~ \\$m\\$ \\\\");
  EXPECT_EQ(EscapeMarkdown("<script>&amp;"), "&lt;script&gt;&amp;amp;");
  EXPECT_EQ(EscapeMarkdown("plain/name-1.0"), "plain/name-1.0");
}

TEST(ReportEscape, MarkdownNewlinesStayOnOneLine) {
  EXPECT_EQ(EscapeMarkdown("a\nb\r\nc\rd\te"), "a b c d e");
  EXPECT_EQ(EscapeMarkdown("a\nb\r\nc", MarkdownNewline::kBreak), "a<br>b<br>c");
}

TEST(ReportEscape, MarkdownReplacesControlCharacters) {
  EXPECT_EQ(EscapeMarkdown("a\x1b[31mb\x00" "c\x7f"s), "a\uFFFD\\[31mb\uFFFDc\uFFFD");
}

TEST(ReportEscape, XmlEscapesMarkupAndQuotes) {
  EXPECT_EQ(EscapeXml("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
  EXPECT_EQ(EscapeXml("]]>"), "]]&gt;");
}

TEST(ReportEscape, XmlKeepsWhitespaceAsReferences) {
  EXPECT_EQ(EscapeXml("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
  EXPECT_EQ(EscapeXmlText("a\tb\nc\rd"), "a\tb\nc&#13;d");
}

TEST(ReportEscape, XmlReplacesCharactersXml10Forbids) {
  // NUL, ESC, vertical tab, form feed, DEL, C1 NEL (U+0085), U+FFFE.
  EXPECT_EQ(EscapeXml("a\x00\x1b\x0b\x0c\x7f\xc2\x85\xef\xbf\xbe"s),
            "a\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD");
}

TEST(ReportEscape, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(EscapeXml("a\xff" "b"), "a\uFFFDb");
  EXPECT_EQ(EscapeXml("\xc0\xaf"), "\uFFFD\uFFFD");          // overlong '/'
  EXPECT_EQ(EscapeXml("\xed\xa0\x80"), "\uFFFD\uFFFD\uFFFD");  // surrogate U+D800
  EXPECT_EQ(EscapeHtml("\xe2\x82"), "\uFFFD\uFFFD");           // truncated sequence
  EXPECT_EQ(EscapeXml("\xce\xbc" "s \xe2\x86\x92 \xf0\x9f\x9a\x80"), "\xce\xbcs \xe2\x86\x92 \xf0\x9f\x9a\x80");
}

TEST(ReportEscape, Html) {
  EXPECT_EQ(EscapeHtml("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  EXPECT_EQ(EscapeHtml("a\x1b" "b\nc"), "a\uFFFDb\nc");
}

TEST(ReportEscape, StripAnsiRemovesSequences) {
  EXPECT_EQ(StripAnsi("\x1b[1;31mred\x1b[0m"), "red");
  EXPECT_EQ(StripAnsi("a\x1b]8;;http://evil\x07link\x1b]8;;\x1b\\b"), "alinkb");
  EXPECT_EQ(StripAnsi("x\x1b(By"), "xy");
  EXPECT_EQ(StripAnsi("a\xc2\x9b" "2Jb"), "ab");  // 8-bit CSI
  EXPECT_EQ(StripAnsi("a\rb\x07\x08" "c\td\n"), "abc\td\n");
  EXPECT_EQ(StripAnsi("trailing\x1b"), "trailing");
}

TEST(ReportEscape, TerminalShowsControlsVisibly) {
  EXPECT_EQ(EscapeTerminal("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(EscapeTerminal("a\nb\rc"), "a\\x0ab\\x0dc");
  EXPECT_EQ(EscapeTerminal("back\\slash"), "back\\\\slash");
  EXPECT_EQ(EscapeTerminal("nul\x00" "bad\xff"s), "nul\\x00bad\\xff");
  EXPECT_EQ(EscapeTerminal("c1\xc2\x9b"), "c1\\x9b");
  EXPECT_EQ(EscapeTerminal("rtl\xe2\x80\xae" "gnp.exe"), "rtl\\u202Egnp.exe");
  EXPECT_EQ(EscapeTerminal("\xce\xbcs"), "\xce\xbcs");
}

TEST(ReportEscape, GithubMessageEscapesPercentAndNewlines) {
  EXPECT_EQ(EscapeGithubAnnotationMessage("50% a\r\nb"), "50%25 a%0D%0Ab");
  EXPECT_EQ(EscapeGithubAnnotationMessage("%0A"), "%250A");
  EXPECT_EQ(EscapeGithubAnnotationMessage("x ::error::y, z"), "x ::error::y, z");
  EXPECT_EQ(EscapeGithubAnnotationMessage("\x1b[31mred\x1b[0m"), "red");
}

TEST(ReportEscape, GithubPropertyAlsoEscapesColonAndComma) {
  EXPECT_EQ(EscapeGithubAnnotationProperty("a::error::b,c%\n"),
            "a%3A%3Aerror%3A%3Ab%2Cc%25%0A");
}

TEST(ReportEscape, DisplayWidthCountsCodePoints) {
  EXPECT_EQ(DisplayWidth("abc"), 3);
  EXPECT_EQ(DisplayWidth("\xce\xbcs \xe2\x86\x92"), 4);
  EXPECT_EQ(DisplayWidth("\xff"), 1);
}

}  // namespace
}  // namespace gpugate
