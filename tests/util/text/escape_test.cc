// Tests for escaping untrusted text in every output format.
#include "util/text/escape.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate {
namespace {

using namespace std::string_literals;

TEST(TextEscape, ANameFromAFileNameIsAlwaysAValidName) {
  // Ordinary names stay as they are.
  EXPECT_EQ(NameFromFileName("train"), "train");
  EXPECT_EQ(NameFromFileName("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(NameFromFileName("a_b"), "a_b");
  // What a name may not hold becomes "_", and a hash of the raw name keeps
  // names apart that differ only there.
  auto replaced = [](const std::string& stem, const std::string& start) {
    const std::string got = NameFromFileName(stem);
    EXPECT_EQ(got.rfind(start + "#", 0), 0u) << got;
    EXPECT_EQ(got.size(), start.size() + 17) << got;
    return got;
  };
  const std::string esc = replaced("a\x1b"
                                   "b",
                                   "a_b");
  const std::string bad = replaced("a\xff"
                                   "b",
                                   "a_b");
  EXPECT_NE(esc, bad);
  EXPECT_NE(esc, NameFromFileName("a_b"));
  replaced("a\x1b[31m\x7f\xc2\x85"
           "b",
           "a_[31m__b");
  replaced("a\xe2\x80\xae"
           "b\xe2\x80\xa8"
           "c",
           "a_b_c");  // U+202E, U+2028
  // A reserved name gets "_" before it and the hash too: "(suite)" and
  // "_(suite)" are two suites (they shared one name and one history).
  const std::string reserved = replaced("(suite)", "_(suite)");
  EXPECT_EQ(NameFromFileName("_(suite)"), "_(suite)");
  EXPECT_NE(reserved, NameFromFileName("_(suite)"));
  replaced("(suite: gpu 1)", "_(suite: gpu 1)");
  EXPECT_EQ(NameFromFileName("a\x1b"
                             "b"),
            esc);  // the same in every run
  const std::string long_name = NameFromFileName(std::string(3000, 'x'));
  EXPECT_EQ(long_name.size(), kMaxNameBytes);
  for (const char* stem : {"x\x01", "\xe2\x80\xae", "(suite)", "\xf0\x9f", ""})
    EXPECT_FALSE(NameProblem(NameFromFileName(stem)).has_value()) << stem;
}

TEST(TextEscape, MarkdownEscapesTableAndInlineSyntax) {
  EXPECT_EQ(EscapeMarkdown("a|b"), "a\\|b");
  EXPECT_EQ(EscapeMarkdown("`x`"), "\\`x\\`");
  EXPECT_EQ(EscapeMarkdown("*b* _i_ [l](u) # ~s~ $m$ \\"),
            "\\*b\\* \\_i\\_ \\[l\\](u) \\# \\~s\\~ \\$m\\$ \\\\");
  EXPECT_EQ(EscapeMarkdown("<script>&amp;"), "&lt;script&gt;&amp;amp;");
  EXPECT_EQ(EscapeMarkdown("plain/name-1.0"), "plain/name-1.0");
}

TEST(TextEscape, MarkdownNewlinesStayOnOneLine) {
  EXPECT_EQ(EscapeMarkdown("a\nb\r\nc\rd\te"), "a b c d e");
  EXPECT_EQ(EscapeMarkdown("a\nb\r\nc", MarkdownNewline::kBreak), "a<br>b<br>c");
}

TEST(TextEscape, MarkdownReplacesControlCharacters) {
  EXPECT_EQ(EscapeMarkdown("a\x1b[31mb\x00" "c\x7f"s), "a\uFFFD\\[31mb\uFFFDc\uFFFD");
}

TEST(TextEscape, XmlEscapesMarkupAndQuotes) {
  EXPECT_EQ(EscapeXml("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
  EXPECT_EQ(EscapeXml("]]>"), "]]&gt;");
}

TEST(TextEscape, XmlKeepsWhitespaceAsReferences) {
  EXPECT_EQ(EscapeXml("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
  EXPECT_EQ(EscapeXmlText("a\tb\nc\rd"), "a\tb\nc&#13;d");
  // "::" starting a line (after spaces or tabs) of a printed file would be a
  // workflow command; elsewhere it is left alone.
  EXPECT_EQ(EscapeXmlText("::a\n \t::b c::d\n:x"), "&#58;:a\n \t&#58;:b c::d\n:x");
  EXPECT_EQ(EscapeXml("a\n::b"), "a&#10;::b");  // no raw line feed: no line start
  // A name a reader prints as one line: TAB, LF and CR are U+FFFD too.
  EXPECT_EQ(EscapeXmlName("k\n::error::x\t<y>\r"), "k\uFFFD::error::x\uFFFD&lt;y&gt;\uFFFD");
  EXPECT_EQ(EscapeXmlName("::a"), "&#58;:a");
}

TEST(TextEscape, XmlReplacesCharactersXml10Forbids) {
  // NUL, ESC, vertical tab, form feed, DEL, C1 NEL (U+0085), U+FFFE.
  EXPECT_EQ(EscapeXml("a\x00\x1b\x0b\x0c\x7f\xc2\x85\xef\xbf\xbe"s),
            "a\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD");
}

TEST(TextEscape, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(EscapeXml("a\xff" "b"), "a\uFFFDb");
  EXPECT_EQ(EscapeXml("\xc0\xaf"), "\uFFFD\uFFFD");          // overlong '/'
  EXPECT_EQ(EscapeXml("\xed\xa0\x80"), "\uFFFD\uFFFD\uFFFD");  // surrogate U+D800
  EXPECT_EQ(EscapeHtml("\xe2\x82"), "\uFFFD\uFFFD");           // truncated sequence
  EXPECT_EQ(EscapeXml("\xce\xbc" "s \xe2\x86\x92 \xf0\x9f\x9a\x80"), "\xce\xbcs \xe2\x86\x92 \xf0\x9f\x9a\x80");
}

TEST(TextEscape, Html) {
  EXPECT_EQ(EscapeHtml("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  EXPECT_EQ(EscapeHtml("a\x1b" "b\nc"), "a\uFFFDb\nc");
}

TEST(TextEscape, StripAnsiRemovesSequences) {
  EXPECT_EQ(StripAnsi("\x1b[1;31mred\x1b[0m"), "red");
  EXPECT_EQ(StripAnsi("a\x1b]8;;http://evil\x07link\x1b]8;;\x1b\\b"), "alinkb");
  EXPECT_EQ(StripAnsi("x\x1b(By"), "xy");
  EXPECT_EQ(StripAnsi("a\xc2\x9b" "2Jb"), "ab");  // 8-bit CSI
  EXPECT_EQ(StripAnsi("a\rb\x07\x08" "c\td\n"), "abc\td\n");
  EXPECT_EQ(StripAnsi("trailing\x1b"), "trailing");
}

TEST(TextEscape, TerminalShowsControlsVisibly) {
  EXPECT_EQ(EscapeTerminal("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(EscapeTerminal("a\nb\rc"), "a\\x0ab\\x0dc");
  EXPECT_EQ(EscapeTerminal("back\\slash"), "back\\\\slash");
  EXPECT_EQ(EscapeTerminal("nul\x00" "bad\xff"s), "nul\\x00bad\\xff");
  EXPECT_EQ(EscapeTerminal("c1\xc2\x9b"), "c1\\x9b");
  EXPECT_EQ(EscapeTerminal("rtl\xe2\x80\xae" "gnp.exe"), "rtl\\u202Egnp.exe");
  EXPECT_EQ(EscapeTerminal("\xce\xbcs"), "\xce\xbcs");
}

TEST(TextEscape, GithubMessageEscapesPercentAndNewlines) {
  EXPECT_EQ(EscapeGithubAnnotationMessage("50% a\r\nb"), "50%25 a%0D%0Ab");
  EXPECT_EQ(EscapeGithubAnnotationMessage("%0A"), "%250A");
  EXPECT_EQ(EscapeGithubAnnotationMessage("x ::error::y, z"), "x ::error::y, z");
  EXPECT_EQ(EscapeGithubAnnotationMessage("\x1b[31mred\x1b[0m"), "red");
  EXPECT_EQ(EscapeGithubAnnotationMessage("p/##[warning]x ###["), "p/#\xE2\x80\x8B#[warning]x ##\xE2\x80\x8B#[");
}

TEST(TextEscape, GithubPropertyAlsoEscapesColonAndComma) {
  EXPECT_EQ(EscapeGithubAnnotationProperty("a::error::b,c%\n"),
            "a%3A%3Aerror%3A%3Ab%2Cc%25%0A");
}

TEST(TextEscape, DisplayWidthCountsTerminalColumns) {
  EXPECT_EQ(DisplayWidth("abc"), 3);
  EXPECT_EQ(DisplayWidth("\xce\xbcs \xe2\x86\x92"), 4);
  EXPECT_EQ(DisplayWidth("\xff"), 1);
  // CJK ideographs and fullwidth forms take two columns, emoji too.
  EXPECT_EQ(DisplayWidth("\xe8\xa1\x8c\xe5\x88\x97"), 4);           // U+884C U+5217
  EXPECT_EQ(DisplayWidth("\xef\xbc\xa1"), 2);                        // U+FF21
  EXPECT_EQ(DisplayWidth("\xf0\x9f\x9a\x80"), 2);                    // U+1F680
  // A combining mark takes none: "e" + U+0301 is one column, as is a
  // zero-width joiner's absence of a glyph.
  EXPECT_EQ(DisplayWidth("e\xcc\x81"), 1);
  EXPECT_EQ(DisplayWidth("a\xe2\x80\x8b" "b"), 2);                    // U+200B
  // Emoji sequences are one two-column glyph: heart + VS16, a ZWJ family,
  // a thumb with a skin tone.
  EXPECT_EQ(DisplayWidth("\xe2\x9d\xa4\xef\xb8\x8f"), 2);
  EXPECT_EQ(DisplayWidth("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7"), 2);
  EXPECT_EQ(DisplayWidth("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd"), 2);
}

TEST(TextEscape, ShortenedTextsFitTheirColumnsAndKeepMarksWithLetters) {
  // Twelve CJK characters are 24 columns: cut to 10 they keep 3 (6 columns)
  // and the dots.
  std::string cjk;
  for (int i = 0; i < 12; ++i) cjk += "\xe8\xa1\x8c";
  const std::string cut = ShortenText(cjk, 10);
  EXPECT_LE(DisplayWidth(cut), 10);
  EXPECT_EQ(cut, "\xe8\xa1\x8c\xe8\xa1\x8c\xe8\xa1\x8c...");
  // A cut never separates a letter from its combining accent.
  EXPECT_EQ(ShortenText("abe\xcc\x81" "fghij", 6), "abe\xcc\x81...");
  // Column cells: every shortened cell fits, and alike ones stay apart.
  const std::vector<std::string> cells = {cjk + "x", cjk + "y", "short"};
  const std::vector<std::string> shown = ShortenColumn(cells, 16);
  for (const std::string& c : shown) EXPECT_LE(DisplayWidth(c), 16) << c;
  EXPECT_NE(shown[0], shown[1]);
  EXPECT_EQ(shown[2], "short");
  const std::string e = "e\xcc\x81";  // e and a combining acute accent
  const std::vector<std::string> marks = ShortenColumn({e + e + e + e + e + e}, 5);
  EXPECT_EQ(marks[0], e + e + "\xe2\x80\xa6" + e + e);
  // Nor a flag's two regional indicators: a tail that began on the second
  // would pair the rest the other way (US flags read as "SU").
  const std::string us = "\U0001F1FA\U0001F1F8";
  std::string flags = "BM_";
  for (int i = 0; i < 40; ++i) flags += us;
  EXPECT_EQ(DisplayWidth(flags), 3 + 80);
  for (int width = 8; width <= 20; ++width) {
    const std::string cut = ShortenColumn({flags}, width)[0];
    EXPECT_LE(DisplayWidth(cut), width);
    const size_t dots = cut.find("\xe2\x80\xa6");
    ASSERT_NE(dots, std::string::npos);
    const std::string head = cut.substr(3, dots - 3), tail = cut.substr(dots + 3);
    EXPECT_EQ(head.size() % 8, 0u) << width << ": the head splits a flag";
    EXPECT_EQ(tail.size() % 8, 0u) << width << ": the tail splits a flag";
    EXPECT_TRUE(tail.empty() || tail.starts_with(us)) << width;
  }
  EXPECT_EQ(PadText("\xe8\xa1\x8c", 4), "\xe8\xa1\x8c  ");
}

// GitHub's runner executes a line that starts with "::" (after blanks) or
// contains "##[": no escaped field may produce either.
TEST(TextEscape, TerminalNeutralisesWorkflowCommandSyntax) {
  EXPECT_EQ(EscapeTerminal("::stop-commands::x"), "\\x3a:stop-commands::x");
  EXPECT_EQ(EscapeTerminal("  ::error::x"), "  \\x3a:error::x");
  EXPECT_EQ(EscapeTerminal("\xc2\xa0\xe3\x80\x80::warning::x"), "\xc2\xa0\xe3\x80\x80\\x3a:warning::x");
  EXPECT_EQ(EscapeTerminal("ns::func"), "ns::func");  // not at the start: harmless, kept
  EXPECT_EQ(EscapeTerminal("a##[error]b"), "a\\x23#[error]b");
  EXPECT_EQ(EscapeTerminal("###[x"), "#\\x23#[x");
  EXPECT_EQ(EscapeTerminal("# [ok] ##"), "# [ok] ##");
  EXPECT_EQ(EscapeTerminal("line\xe2\x80\xa8sep"), "line\\u2028sep");
  EXPECT_EQ(EscapeTerminal("lrm\xe2\x80\x8e" "alm\xd8\x9c"), "lrm\\u200Ealm\\u061C");
}

TEST(TextEscape, TerminalLinesKeepsLineBreaksAndChecksEachLine) {
  EXPECT_EQ(EscapeTerminalLines("a\n::error::x\tb\\c\x1b[1m"), "a\n\\x3a:error::x\tb\\c\\x1b[1m");
  EXPECT_EQ(EscapeTerminalLines("x\r::y"), "x\\x0d::y");
  // Text that continues a line keeps a leading "::" (it cannot start a
  // command there); controls are escaped all the same.
  EXPECT_EQ(EscapeTerminalInline("::operator new\x1b[2J"), "::operator new\\x1b[2J");
  EXPECT_EQ(EscapeTerminal("::operator new"), "\\x3a:operator new");
}

TEST(TextEscape, NoFormatLetsALegacyCommandThrough) {
  const std::string name = "w##[error]pwn";
  EXPECT_EQ(EscapeMarkdown(name).find("##["), std::string::npos);
  EXPECT_EQ(EscapeXml(name).find("##["), std::string::npos);
  EXPECT_EQ(EscapeXml(name), "w&#35;#[error]pwn");
  EXPECT_EQ(EscapeHtml(name), "w&#35;#[error]pwn");
  // HTML keeps the text's line feeds: no line of it may start a command.
  EXPECT_EQ(EscapeHtml("::error::x\n  ::warning::y a::b"), "&#58;:error::x\n  &#58;:warning::y a::b");
  // The runner trims every Unicode blank before it looks for "::": NBSP,
  // EM SPACE, IDEOGRAPHIC SPACE and the line separator hide nothing.
  for (const std::string blank : {"\u00A0", "\u2003", "\u3000", "\u2028", "\uFEFF"}) {
    const std::string text = "reason\n" + blank + "::error::x";
    EXPECT_EQ(EscapeXmlText(text).find("::error"), std::string::npos) << EscapeXmlText(text);
    EXPECT_EQ(EscapeHtml(text).find("::error"), std::string::npos) << EscapeHtml(text);
  }
  // A name in a bot's Markdown comment pings no one and links nothing.
  EXPECT_EQ(EscapeMarkdown("BM @octocat @github/team #12 a@b x#y"),
            "BM @&#8203;octocat @&#8203;github/team \\#&#8203;12 a@&#8203;b x\\#&#8203;y");
  // Emoji shortcodes stay text; a colon that starts none is untouched.
  EXPECT_EQ(EscapeMarkdown("ok :+1: :white_check_mark: BM/threads:8 a:b"),
            "ok :&#8203;+1: :&#8203;white\\_check\\_mark: BM/threads:8 a:b");
  EXPECT_EQ(EscapeMarkdown("at::native::kernel<at::native::F> ::x:"), "at::native::kernel&lt;at::native::F&gt; ::&#8203;x:");
  EXPECT_EQ(EscapeMarkdown("GH-12 gh-3 GH-x a-1"), "GH&#8203;-12 gh&#8203;-3 GH-x a-1");
  EXPECT_EQ(EscapeMarkdown("see http://evil.example and WWW.evil.example, user@ # @"),
            "see http:&#8203;//evil.example and WWW&#8203;.evil.example, user@ \\# @");
  // Line and paragraph separators are shown, as bidi controls are.
  EXPECT_EQ(EscapeHtml("a\u2028b"), "a\\u2028b");
  EXPECT_EQ(EscapeXml("a\u2029b"), "a\\u2029b");
  EXPECT_EQ(EscapeMarkdown("a\u2028b"), "a\\\\u2028b");
  EXPECT_EQ(EscapeGithubAnnotationMessage("k\u2028end"), "k\\u2028end");
  EXPECT_EQ(JsonStringLiteral(name), "\"w\\u0023#[error]pwn\"");
  EXPECT_EQ(EscapeGithubAnnotationMessage("::stop-commands::x"), "::stop-commands::x");  // after "::error ...::" it is a message
}

TEST(TextEscape, BidiControlsAreVisibleInFormatsForPeople) {
  const std::string name = "rtl\xe2\x80\xae" "gnp";
  EXPECT_EQ(EscapeHtml(name), "rtl\\u202Egnp");
  EXPECT_EQ(EscapeXml(name), "rtl\\u202Egnp");
  EXPECT_EQ(EscapeMarkdown(name), "rtl\\\\u202Egnp");
  EXPECT_EQ(EscapeGithubAnnotationMessage(name), "rtl\\u202Egnp");
  EXPECT_EQ(JsonStringLiteral(name), "\"rtl\\u202Egnp\"");  // JSON keeps the value
}

TEST(TextEscape, JsonStringLiteral) {
  EXPECT_EQ(JsonStringLiteral("plain"), "\"plain\"");
  EXPECT_EQ(JsonStringLiteral("q\"b\\n\nt\t\x01\x7f"), "\"q\\\"b\\\\n\\nt\\t\\u0001\\u007F\"");
  EXPECT_EQ(JsonStringLiteral("c1\xc2\x9b"), "\"c1\\u009B\"");
  EXPECT_EQ(JsonStringLiteral("bad\xff"), "\"bad\xef\xbf\xbd\"");
  EXPECT_EQ(JsonStringLiteral("</script>&", true), "\"\\u003C/script\\u003E\\u0026\"");
  EXPECT_EQ(JsonStringLiteral("sep\xe2\x80\xa8"), "\"sep\\u2028\"");
}

TEST(TextEscape, Utf8Helpers) {
  EXPECT_EQ(ValidUtf8Prefix("ok\xce\xbc"), 4u);
  EXPECT_EQ(ValidUtf8Prefix("ok\xce"), 2u);
  EXPECT_EQ(RepairUtf8("a\xc0\xaf" "b"), "a\xef\xbf\xbd\xef\xbf\xbd" "b");
}

TEST(TextEscape, ShortenAndPadCountCodePoints) {
  EXPECT_EQ(ShortenText("abcdef", 6), "abcdef");
  EXPECT_EQ(ShortenText("abcdefg", 6), "abc...");
  EXPECT_EQ(ShortenText("\xce\xbc\xce\xbc\xce\xbc\xce\xbc\xce\xbc", 4), "\xce\xbc...");
  EXPECT_EQ(ShortenText("abcdef", 2), "ab");
  EXPECT_EQ(PadText("\xce\xbcs", 4), "\xce\xbcs  ");
  EXPECT_EQ(PadText("7", 3, true), "  7");
  EXPECT_EQ(PadText("toolong", 3), "toolong");
}

TEST(TextEscape, ShortenTextCanTellTwoLongNamesApart) {
  const std::string a = "gemm_kernel<float, 128, 64, 8, cutlass::arch::Sm80, Epilogue<1>>";
  const std::string b = "gemm_kernel<float, 128, 64, 8, cutlass::arch::Sm80, Epilogue<2>>";
  EXPECT_EQ(ShortenText(a, 30), ShortenText(b, 30));  // one beginning, one cut
  const std::string sa = ShortenText(a, 30, true), sb = ShortenText(b, 30, true);
  EXPECT_NE(sa, sb);
  EXPECT_LE(DisplayWidth(sa), 30);
  EXPECT_EQ(sa.substr(0, 20), a.substr(0, 20));
  EXPECT_EQ(sa.substr(20, 4), "...#");
  EXPECT_EQ(ShortenText(a, 30, true), sa);         // the same name, the same text
  EXPECT_EQ(ShortenText("short", 30, true), "short");  // nothing cut, no hash
}

TEST(TextEscape, BoundedNameRepairsInvalidUtf8AndKeepsNamesApart) {
  const std::string a = BoundedName("k\xff"), b = BoundedName("k\xfe");
  EXPECT_NE(a, b);
  EXPECT_EQ(ValidUtf8Prefix(a), a.size());
  EXPECT_EQ(a.rfind("k\xef\xbf\xbd#", 0), 0u) << a;
  EXPECT_EQ(a.size(), 1 + 3 + 1 + 16u);
  EXPECT_EQ(BoundedName(a), a);  // read back from a history: the same name
  const std::string long_bad = std::string(3000, 'x') + "\xff";
  EXPECT_LE(BoundedName(long_bad).size(), kMaxNameBytes);
  EXPECT_EQ(ValidUtf8Prefix(BoundedName(long_bad)), BoundedName(long_bad).size());
}

TEST(TextEscape, BoundedNameKeepsShortNamesAndTellsLongOnesApart) {
  EXPECT_EQ(BoundedName("void k<int>(float*)"), "void k<int>(float*)");
  const std::string exact(kMaxNameBytes, 'k');
  EXPECT_EQ(BoundedName(exact), exact);
  std::string a(5000, 'K'), b = a;
  b[2500] = 'X';  // differs in the middle only
  const std::string ba = BoundedName(a), bb = BoundedName(b);
  EXPECT_EQ(ba.size(), kMaxNameBytes);
  EXPECT_NE(ba, bb);
  EXPECT_EQ(ba.substr(0, 900), bb.substr(0, 900));
  EXPECT_NE(ba.find("...#"), std::string::npos);
  EXPECT_EQ(BoundedName(ba), ba);  // reading it again keeps it
  // Never cut inside a UTF-8 sequence.
  std::string wide;
  while (wide.size() < 3000) wide += "\u00e9";
  EXPECT_FALSE(NameProblem(BoundedName(wide)).has_value()) << *NameProblem(BoundedName(wide));
}

}  // namespace
TEST(TextEscape, NameProblemAcceptsPrintableUnicode) {
  for (const char* ok : {"saxpy/1M", "gemm 4096x4096 [fp16]", "caf\xC3\xA9", "\xE6\xBC\xA2\xE5\xAD\x97",
                         "emoji \xF0\x9F\x9A\x80", "tab-free name"})
    EXPECT_EQ(NameProblem(ok), std::nullopt) << ok;
}

TEST(TextEscape, NameProblemNamesTheFirstBadCharacterAndItsByte) {
  EXPECT_EQ(NameProblem("a\x1B[31m"), "control character U+001B at byte 1");
  EXPECT_EQ(NameProblem("a\tb"), "control character U+0009 at byte 1");
  EXPECT_EQ(NameProblem("x\x7F"), "control character U+007F at byte 1");
  EXPECT_EQ(NameProblem("x\xC2\x85"), "control character U+0085 at byte 1");  // NEL (C1)
  EXPECT_EQ(NameProblem("ab\xE2\x80\xAE"), "bidirectional control U+202E at byte 2");
  EXPECT_EQ(NameProblem("\xE2\x81\xA6x"), "bidirectional control U+2066 at byte 0");
  EXPECT_EQ(NameProblem("x\xE2\x80\xA8"), "line separator U+2028 at byte 1");
  EXPECT_EQ(NameProblem("w\xFF"), "invalid UTF-8 at byte 1");
  EXPECT_EQ(NameProblem("w\xC3"), "invalid UTF-8 at byte 1");            // cut sequence
  EXPECT_EQ(NameProblem("w\xC0\xAF"), "invalid UTF-8 at byte 1");       // overlong '/'
  EXPECT_EQ(NameProblem("w\xED\xA0\x80"), "invalid UTF-8 at byte 1");  // surrogate
  EXPECT_EQ(NameProblem(std::string("a\0b", 3)), "control character U+0000 at byte 1");
  EXPECT_EQ(NameProblem(std::string(kMaxNameBytes, 'n')), std::nullopt);
  EXPECT_EQ(NameProblem(std::string(kMaxNameBytes + 1, 'n')), "1025 bytes long; a name is at most 1024");
  // The common-shift rows' names: a benchmark so named would be taken for one.
  for (const char* reserved : {"(suite)", "(suite: gpu)", "(suite: gpu 1)"})
    EXPECT_EQ(NameProblem(reserved), "reserved for the shift common to a suite's workloads") << reserved;
  EXPECT_EQ(NameProblem("k/(suite)"), std::nullopt);
}

// A byte-bounded shortening keeps whole characters as a reader sees them.
TEST(TextEscape, ShortenToBytesKeepsWholeCharacters) {
  EXPECT_EQ(ShortenToBytes("short", 64), "short");
  const std::string flags = std::string(61, 'x') + [] {
    std::string f;
    for (int i = 0; i < 60; ++i) f += "\U0001F1E9\U0001F1EA";  // a German flag, two regional indicators
    return f;
  }();
  for (size_t bytes : {64u, 65u, 66u, 67u, 68u, 69u, 70u, 71u, 72u, 100u, 468u}) {
    const std::string s = ShortenToBytes(flags, bytes);
    EXPECT_LE(s.size(), bytes);
    const std::string kept = s.substr(61, s.size() - 61 - 3);
    EXPECT_EQ(kept.size() % 8, 0u) << bytes << ": a flag split";  // whole pairs of 4-byte indicators
  }
  const std::string accents = std::string(60, 'z') + "e\u0301e\u0301e\u0301";  // e + combining acute
  for (size_t bytes = 62; bytes < 70; ++bytes) {
    const std::string s = ShortenToBytes(accents, bytes);
    const std::string kept = s.substr(0, s.size() - 3);
    EXPECT_TRUE(kept.find('e') == std::string::npos || kept.ends_with("\u0301")) << bytes << ": " << kept;
  }
  const std::string family = std::string(58, 'y') + "\U0001F468\u200D\U0001F469\u200D\U0001F467x";
  for (size_t bytes = 60; bytes < family.size(); ++bytes) {
    const std::string s = ShortenToBytes(family, bytes);
    EXPECT_FALSE(s.substr(0, s.size() - 3).ends_with("\u200D")) << bytes;
    const std::string kept = s.substr(0, s.size() - 3);
    EXPECT_TRUE(kept.find_first_not_of('y') == std::string::npos || kept.ends_with("\U0001F467")) << bytes;
  }
  // A heart with its emoji selector, a keycap and a Devanagari syllable stay whole.
  for (const std::string glyph : {"\u2764\uFE0F", "1\uFE0F\u20E3", "\u0915\u093F"}) {
    const std::string text = std::string(40, 'h') + glyph + std::string(40, 'h');
    for (size_t bytes = 40; bytes < 40 + glyph.size() + 3; ++bytes) {
      const std::string s = ShortenToBytes(text, bytes);
      const std::string kept = s.substr(0, s.size() - 3);
      EXPECT_TRUE(kept.find_first_not_of('h') == std::string::npos || kept.ends_with(glyph)) << glyph << " " << bytes;
    }
  }
  // Two long names with one beginning stay two.
  const std::string a = std::string(300, 'k') + "1", b = std::string(300, 'k') + "2";
  EXPECT_NE(ShortenToBytes(a, 100, true), ShortenToBytes(b, 100, true));
  EXPECT_LE(ShortenToBytes(a, 100, true).size(), 100u);
}

}  // namespace gpugate
