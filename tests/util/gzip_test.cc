#include "util/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <string>

#include "cli/inputs.h"
#include "cli/run_binary.h"
#include "util/fs.h"

namespace gpugate {
namespace {

// One gzip member of `text` (deflate with the gzip wrapper, as gzip(1) writes),
// with a file name of `name_bytes` bytes in its header when not 0.
std::string GzipMember(const std::string& text, size_t name_bytes = 0) {
  z_stream z;
  std::memset(&z, 0, sizeof(z));
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string name(name_bytes, 'n');
  gz_header header;
  std::memset(&header, 0, sizeof(header));
  header.name = reinterpret_cast<Bytef*>(name.data());
  if (name_bytes > 0) {
    EXPECT_EQ(deflateSetHeader(&z, &header), Z_OK);
  }
  std::string out(deflateBound(&z, text.size()) + name_bytes + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

std::string Text(size_t n) {
  std::string s;
  for (size_t i = 0; s.size() < n; ++i) s += std::to_string(i * 7919 % 1000003) + ",";
  s.resize(n);
  return s;
}

TEST(Gunzip, RoundTripsEveryMember) {
  const std::string a = Text(300000), b = "second member";
  ASSERT_TRUE(HasGzipMagic(GzipMember(a)));
  EXPECT_FALSE(HasGzipMagic("{\"a\": 1}"));
  Result<std::string> one = Gunzip(GzipMember(a), 1 << 20, "x.gz");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(*one, a);
  Result<std::string> two = Gunzip(GzipMember(a) + GzipMember(b), 1 << 20, "x.gz");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(*two, a + b);
}

TEST(Gunzip, TruncatedCorruptAndOversizedAreErrors) {
  const std::string gz = GzipMember(Text(100000));
  Result<std::string> cut = Gunzip(gz.substr(0, gz.size() / 2), 1 << 20, "x.gz");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "x.gz: truncated gzip stream (compressed data ends early)");
  std::string bad = gz;
  bad[bad.size() - 6] ^= 0x55;  // the CRC32 of the trailer
  Result<std::string> corrupt = Gunzip(bad, 1 << 20, "x.gz");
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.error().message.find("x.gz: corrupt gzip data: "), std::string::npos)
      << corrupt.error().message;
  Result<std::string> big = Gunzip(gz, 50000, "x.gz");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("x.gz: decompresses to more than "), std::string::npos);
  // Zero bytes after the last member are padding (gzip(1) ignores them);
  // other bytes there are not gzip data.
  Result<std::string> padded = Gunzip(gz + std::string(70000, '\0'), 1 << 20, "x.gz");
  ASSERT_TRUE(padded.ok()) << padded.error().message;
  EXPECT_EQ(*padded, Text(100000));
  Result<std::string> garbage = Gunzip(gz + std::string(100, '\0') + "x", 1 << 20, "x.gz");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().message,
            "x.gz: data after the end of the gzip stream that is neither a gzip member nor zero "
            "padding");
  // A head for telling the format: the first bytes, even of a cut stream.
  Result<std::string> head = Gunzip(gz.substr(0, gz.size() / 2), 1000, "x.gz", true);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, Text(100000).substr(0, 1000));
}

TEST(LoadRunsGzip, AnyFormatMayComeGzipped) {
  TempDir dir("gpugate-gzip-test");
  ASSERT_FALSE(dir.path().empty());
  const std::string src = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/gbench/gbench_local_repetitions5.json";
  Result<std::string> plain_text = ReadFile(src);
  ASSERT_TRUE(plain_text.ok());
  const std::string gz = dir.path() + "/bench.json.gz";
  testing::WriteAll(gz, GzipMember(*plain_text));
  Result<std::vector<Results>> plain = LoadRuns(src);
  Result<std::vector<Results>> packed = LoadRuns(gz);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  ASSERT_TRUE(packed.ok()) << packed.error().message;
  ASSERT_EQ(packed->size(), 1u);
  ASSERT_EQ(packed->front().workloads.size(), plain->front().workloads.size());
  for (size_t i = 0; i < plain->front().workloads.size(); ++i)
    EXPECT_EQ(packed->front().workloads[i].name, plain->front().workloads[i].name);
  // The same content is the same run, compressed or not.
  EXPECT_EQ(packed->front().run.run_id, plain->front().run.run_id);

  // What the head does not tell is told from the whole text: keys that come
  // late, and a gzip header longer than the head.
  std::string late = *plain_text;
  late.insert(late.find('{') + 1, "\n  \"padding\": \"" + std::string(100000, 'p') + "\",");
  testing::WriteAll(gz, GzipMember(late));
  Result<std::vector<Results>> sorted = LoadRuns(gz);
  ASSERT_TRUE(sorted.ok()) << sorted.error().message;
  EXPECT_EQ(sorted->front().run.source_format, "gbench");
  testing::WriteAll(gz, GzipMember(*plain_text, 70000));
  Result<std::vector<Results>> named = LoadRuns(gz);
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->front().workloads.size(), plain->front().workloads.size());

  // What is neither a trace nor a benchmark file says it was decompressed.
  testing::WriteAll(gz, GzipMember("{\"hello\": 1}"));
  Result<std::vector<Results>> other = LoadRuns(gz);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find(gz + ": unrecognised input (after gzip decompression)"),
            std::string::npos)
      << other.error().message;
  testing::WriteAll(gz, GzipMember("\n"));
  Result<std::vector<Results>> empty = LoadRuns(gz);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, gz + ": empty file (after gzip decompression)");
  // Compressed twice, or cut before its format can be told: said so.
  testing::WriteAll(gz, GzipMember(GzipMember(*plain_text)));
  Result<std::vector<Results>> twice = LoadRuns(gz);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message,
            gz + ": gzip data inside gzip data (compressed twice?): decompress it once (gunzip) "
                 "and give the result");
  // A later member compressed twice is named where its bytes begin.
  testing::WriteAll(gz, GzipMember(*plain_text) + GzipMember(GzipMember(*plain_text)));
  Result<std::vector<Results>> later = LoadRuns(gz);
  ASSERT_FALSE(later.ok());
  EXPECT_NE(later.error().message.find(": gzip data inside JSON text (compressed twice, or joined to "
                                       "another file?)"),
            std::string::npos)
      << later.error().message;
  testing::WriteAll(gz, GzipMember("{\n  \"benchmarks\": [\n"));
  Result<std::vector<Results>> early = LoadRuns(gz);
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.error().message.find(gz + ":3:1: unexpected end of file (truncated?) before its "
                                            "format could be told (after gzip decompression)"),
            std::string::npos)
      << early.error().message;
  const std::string plain_cut = dir.path() + "/cut.json";
  testing::WriteAll(plain_cut, "{");
  Result<std::vector<Results>> brace = LoadRuns(plain_cut);
  ASSERT_FALSE(brace.ok());
  EXPECT_NE(brace.error().message.find(plain_cut + ":1:2: unexpected end of file (truncated?) "
                                                   "before its format could be told: expected "),
            std::string::npos)
      << brace.error().message;
  // A small gzipped trace is checked whole (CRC, length), as a large one is
  // by the trace reader.
  const std::string trace_src = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/traces/kineto_cuda_event_sync.json";
  Result<std::string> trace_text = ReadFile(trace_src);
  ASSERT_TRUE(trace_text.ok());
  std::string trace_gz = GzipMember(*trace_text);
  trace_gz[trace_gz.size() - 6] ^= 0x55;  // the CRC32 of the trailer
  testing::WriteAll(dir.path() + "/t.json.gz", trace_gz);
  Result<std::vector<Results>> bad_trace = LoadRuns(dir.path() + "/t.json.gz");
  ASSERT_FALSE(bad_trace.ok());
  EXPECT_NE(bad_trace.error().message.find("corrupt gzip data"), std::string::npos) << bad_trace.error().message;
  // A benchmark file cut short inside the gzip stream: the stream's error.
  const std::string whole = GzipMember(*plain_text);
  testing::WriteAll(gz, whole.substr(0, whole.size() - 40));
  Result<std::vector<Results>> cut = LoadRuns(gz);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, gz + ": truncated gzip stream (compressed data ends early)");
}

}  // namespace
}  // namespace gpugate
