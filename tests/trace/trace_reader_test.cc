// Tests of the streaming Chrome/Kineto trace reader: exact timestamps, both
// top-level forms, Kineto args, gzip, and the error messages for broken input.
#include "trace/trace_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <sstream>

#include "trace/trace_test_data.h"

namespace gpugate {
namespace {

/// `text` gzip-compressed in memory (zlib's gzip wrapper); empty on failure.
std::string Gzip(std::string text) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(text.data());
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const bool done = deflate(&z, Z_FINISH) == Z_STREAM_END;
  out.resize(z.total_out);
  deflateEnd(&z);
  return done ? out : std::string();
}

using testing::TraceDataPath;

struct Collect : TraceEventSink {
  std::vector<TraceEvent> events;
  bool args = false;
  void OnEvent(const TraceEvent& e) override { events.push_back(e); }
  bool WantsArgsJson() const override { return args; }
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TraceReaderTest, MicrosTextToNanosIsExact) {
  EXPECT_EQ(MicrosTextToNanos("1712194298123456.789"), 1712194298123456789);
  EXPECT_EQ(MicrosTextToNanos("1694039994071305"), 1694039994071305000);
  EXPECT_EQ(MicrosTextToNanos("63.813"), 63813);
  EXPECT_EQ(MicrosTextToNanos("0.0005"), 1);       // half rounds away from zero
  EXPECT_EQ(MicrosTextToNanos("0.0004"), 0);
  EXPECT_EQ(MicrosTextToNanos("1.5e3"), 1500000);
  EXPECT_EQ(MicrosTextToNanos("1.7121942981234568E15"), 1712194298123456800);
  EXPECT_EQ(MicrosTextToNanos("-2.5"), -2500);
  EXPECT_EQ(MicrosTextToNanos("0"), 0);
  EXPECT_EQ(MicrosTextToNanos("1e+3"), 1000000);  // printf's %e writes the sign
  EXPECT_EQ(MicrosTextToNanos("1.0E+1"), 10000);
  EXPECT_EQ(MicrosTextToNanos("2e-3"), 2);
  EXPECT_EQ(MicrosTextToNanos("0e99999999999"), 0);
  EXPECT_EQ(MicrosTextToNanos("1e-99999999999999999999"), 0);
  EXPECT_FALSE(MicrosTextToNanos("1e").has_value());
  EXPECT_FALSE(MicrosTextToNanos("1e+").has_value());
  EXPECT_FALSE(MicrosTextToNanos("1e+-3").has_value());
  EXPECT_FALSE(MicrosTextToNanos("1e99999999999").has_value());
  EXPECT_FALSE(MicrosTextToNanos("1e30").has_value());  // does not fit in int64 ns
  EXPECT_FALSE(MicrosTextToNanos("abc").has_value());
  EXPECT_FALSE(MicrosTextToNanos("").has_value());
}

TEST(TraceReaderTest, ReadsObjectFormWithMetadataAndArgs) {
  Collect sink;
  auto info = ReadTraceFromString(testing::kHandTrace, "hand.json", sink);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_FALSE(info->bare_array);
  EXPECT_FALSE(info->compressed);
  EXPECT_EQ(info->events, 22);
  ASSERT_EQ(info->devices.size(), 2u);
  EXPECT_EQ(info->devices[1].id, 1);
  EXPECT_EQ(info->devices[0].name, "Test GPU");
  EXPECT_EQ(info->devices[0].num_sms, 132);
  EXPECT_EQ(info->devices[0].compute_major, 9);
  EXPECT_EQ(info->rank, 3);
  EXPECT_EQ(info->world_size, 8);
  EXPECT_EQ(info->distributed_backend, "nccl");
  EXPECT_EQ(info->events_by_category[static_cast<int>(TraceCategory::kKernel)], 5);
  EXPECT_EQ(info->events_by_category[static_cast<int>(TraceCategory::kUnknown)], 1);
  ASSERT_EQ(info->unknown_categories.size(), 1u);
  EXPECT_EQ(info->unknown_categories[0].first, "weird_cat");
  EXPECT_EQ(info->events_by_phase[static_cast<unsigned char>('X')], 17);
  EXPECT_EQ(info->events_by_phase[static_cast<unsigned char>('i')], 2);
  EXPECT_EQ(info->events_by_phase[static_cast<unsigned char>('s')], 1);
  EXPECT_EQ(info->events_by_phase[static_cast<unsigned char>('f')], 1);
  EXPECT_EQ(info->events_by_phase[static_cast<unsigned char>('M')], 1);

  const TraceEvent* k1 = nullptr;
  const TraceEvent* memset = nullptr;
  const TraceEvent* mem = nullptr;
  for (const TraceEvent& e : sink.events) {
    if (e.name == "k1" && !k1) k1 = &e;
    if (e.category == TraceCategory::kGpuMemset) memset = &e;
    if (e.name == "[memory]" && !mem) mem = &e;
  }
  ASSERT_TRUE(k1 && memset && mem);
  EXPECT_EQ(k1->ts_ns, 20000);
  EXPECT_EQ(k1->dur_ns, 10000);
  EXPECT_EQ(k1->correlation, 1);
  EXPECT_EQ(k1->GpuDevice(), 0);
  EXPECT_EQ(k1->GpuStream(), 7);
  EXPECT_EQ(k1->grid[0], 4);
  EXPECT_EQ(k1->grid[1], 2);
  EXPECT_EQ(k1->block[0], 128);
  EXPECT_EQ(k1->registers_per_thread, 32);
  EXPECT_EQ(k1->shared_memory, 1024);
  EXPECT_EQ(k1->occupancy_pct, 50);
  EXPECT_EQ(memset->ts_ns, 75010);
  EXPECT_EQ(memset->bytes, 64);
  EXPECT_EQ(mem->mem_total_reserved, 2097152);
  EXPECT_EQ(mem->mem_bytes, 4096);
  EXPECT_EQ(mem->scope, "t");
  EXPECT_TRUE(sink.events[0].args_json.empty());  // not requested
}

TEST(TraceReaderTest, ReadsBareArrayAndStringPids) {
  Collect sink;
  sink.args = true;
  const char* text =
      R"([{"ph":"X","cat":"Trace","name":"span","pid":"Spans","tid":"PyTorch Profiler","ts":1.5,"dur":2,)"
      R"("args":{"Op count":0,"nested":{"a":[1,2]}}},
          {"ph":"i","name":"mark","pid":"","tid":"","ts":3,"s":"g"}])";
  auto info = ReadTraceFromString(text, "bare.json", sink);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(info->bare_array);
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_FALSE(sink.events[0].pid_is_num);
  EXPECT_EQ(sink.events[0].pid_text, "Spans");
  EXPECT_EQ(sink.events[0].ts_ns, 1500);
  EXPECT_EQ(sink.events[0].args_json, R"({"Op count":0,"nested":{"a":[1,2]}})");
  EXPECT_EQ(sink.events[0].category, TraceCategory::kUnknown);
  EXPECT_EQ(sink.events[1].ph, 'i');
}

// A UTF-8 byte-order mark before the JSON is read past, as the benchmark
// readers do; one anywhere else is still an error.
TEST(TraceReaderTest, AByteOrderMarkIsReadPast) {
  const std::string body = R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]})";
  Collect sink;
  auto info = ReadTraceFromString("\xEF\xBB\xBF" + body, "bom.json", sink);
  ASSERT_TRUE(info.ok()) << info.error().message;
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].dur_ns, 2000);
  Collect other;
  EXPECT_FALSE(ReadTraceFromString(" \xEF\xBB\xBF" + body, "late.json", other).ok());
}

// Numbers are converted from the digits the parser gathered while finding
// their end, or from their text when it could not (an exponent, more than
// 19 digits, a number read across a refill of the buffer). Both must give the
// values below, wherever in the input the number falls.
TEST(TraceReaderTest, NumberFormsReadAlikeWhereverTheyFall) {
  const std::string event =
      R"({"ph":"X","cat":"kernel","name":"k","pid":-12,"tid":123456789012345678,)"
      R"("ts":1712194298123456.7891,"dur":1.5e1,"args":{"correlation":98765,)"
      R"("External id":12345678901234567890123,"stream":7e0,"device":-0,)"
      R"("registers per thread":24.5,"shared memory":0.1,)"
      R"("est. achieved occupancy %":99.999999999999986,"grid":[1E2,2,3],)"
      R"("block":[128,1.0,1]}})";
  auto check = [](const TraceEvent& e, const std::string& where) {
    SCOPED_TRACE(where);
    EXPECT_TRUE(e.pid_is_num);
    EXPECT_EQ(e.pid_num, -12);
    EXPECT_EQ(e.tid_num, 123456789012345678);
    EXPECT_EQ(e.ts_ns, 1712194298123456789);  // 4th fraction digit rounds (half up)
    EXPECT_EQ(e.dur_ns, 15000);
    EXPECT_EQ(e.correlation, 98765);
    EXPECT_EQ(e.external_id, -1);  // beyond int64
    EXPECT_EQ(e.stream, 7);
    EXPECT_EQ(e.device, 0);
    EXPECT_EQ(e.registers_per_thread, 24.5);
    EXPECT_EQ(e.shared_memory, 0.1);  // the double nearest 0.1
    EXPECT_EQ(e.occupancy_pct, 99.999999999999986);  // 17 digits, read exactly
    EXPECT_EQ(e.grid[0], 100);
    EXPECT_EQ(e.block[1], 1);
  };
  {
    Collect sink;
    auto info = ReadTraceFromString("[" + event + "]", "n.json", sink);
    ASSERT_TRUE(info.ok()) << info.error().message;
    ASSERT_EQ(sink.events.size(), 1u);
    check(sink.events[0], "at the start");
  }
  // The reader refills every 256 KiB: shift the event across that boundary.
  const size_t chunk = size_t{1} << 18;
  for (size_t back = 1; back <= event.size() + 1; back += 3) {
    std::string text = "[" + std::string(chunk - back, ' ') + event + "]";
    Collect sink;
    auto info = ReadTraceFromString(text, "n.json", sink);
    ASSERT_TRUE(info.ok()) << info.error().message;
    ASSERT_EQ(sink.events.size(), 1u);
    check(sink.events[0], "starting " + std::to_string(back) + " bytes before a refill");
  }
}

TEST(TraceReaderTest, OlderAc2gSpellingIsKnown) {
  EXPECT_EQ(CategoryFromString("async_cpu_to_gpu"), TraceCategory::kAc2g);
  EXPECT_EQ(CategoryFromString("ac2g"), TraceCategory::kAc2g);
  EXPECT_EQ(CategoryFromString("gpu_user_annotation"), TraceCategory::kGpuUserAnnotation);
  EXPECT_EQ(CategoryFromString("python_function"), TraceCategory::kPythonFunction);
  EXPECT_EQ(CategoryFromString("cuda_driver"), TraceCategory::kCudaDriver);
  EXPECT_EQ(CategoryFromString("something_new"), TraceCategory::kUnknown);
}

TEST(TraceReaderTest, GzipFixtureReadsLikeItsContent) {
  // Values from: python3 -c "import gzip,json; d=json.load(gzip.open(P)); print(len(d['traceEvents']))"
  // (68,692 events; also stated in tests/data/ORIGIN.md).
  Collect sink;
  auto info = ReadTrace(TraceDataPath("kineto_ns_resolution_rank0.json.gz"), sink);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(info->compressed);
  EXPECT_EQ(info->events, 68692);
  EXPECT_EQ(info->display_time_unit, "ns");
  EXPECT_EQ(info->devices.size(), 8u);
  EXPECT_EQ(info->devices[0].name, "Tesla V100-SXM2-32GB");
  // Every cpu_op, cuda_runtime and user_annotation event has pid 1102; the
  // GPU's events have pid 0 (the original name ends in ".1102.pt.trace").
  EXPECT_EQ(info->host_pids, std::vector<int64_t>{1102});
  // First event: "ts": 1712195495519689.047, "dur": 63.813 (zcat | head).
  EXPECT_EQ(sink.events[0].ts_ns, 1712195495519689047);
  EXPECT_EQ(sink.events[0].dur_ns, 63813);
}

TEST(TraceReaderTest, EmptyFileIsAnError) {
  Collect sink;
  auto r = ReadTraceFromString("", "empty.json", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_EQ(r.error().message, "empty.json:1:1: empty trace file");
}

TEST(TraceReaderTest, NonJsonPointsAtLineAndColumn) {
  Collect sink;
  auto r = ReadTraceFromString("{\"traceEvents\": [\n  {\"ph\": \"X\" oops}\n]}", "bad.json", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_EQ(r.error().message.rfind("bad.json:2:14: not valid JSON: ", 0), 0u) << r.error().message;
}

TEST(TraceReaderTest, StringErrorsPointWhereRapidJsonPoints) {
  // Same codes and offsets as RapidJSON 1.1.0's reader: escape errors at
  // the backslash, a raw control character where it stands.
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case kCases[] = {
      {"{\"traceEvents\": [{\"name\": \"a\\qb\"}]}", "s.json:1:29: not valid JSON: Invalid escape character in string."},
      {"{\"traceEvents\": [{\"name\": \"a\\u12x4\"}]}",
       "s.json:1:29: not valid JSON: Incorrect hex digit after \\u escape in string."},
      {"{\"traceEvents\": [{\"name\": \"a\\ud800\\u0041\"}]}",
       "s.json:1:29: not valid JSON: The surrogate pair in string is invalid."},
      {"{\"traceEvents\": [{\"name\": \"a\nb\"}]}",
       "s.json:1:29: not valid JSON: a control character (U+000A) inside a string, not escaped by the program that wrote the trace"},
      {"{\"traceEvents\": [{\"ts\": 1.}]}", "s.json:1:27: not valid JSON: Miss fraction part in number."},
      {"{\"traceEvents\": [{\"ts\": -x}]}", "s.json:1:26: not valid JSON: Invalid value."},
      {"{\"traceEvents\": [{},]}", "s.json:1:21: not valid JSON: Invalid value."},
      {"{\"traceEvents\": []} x", "s.json:1:21: not valid JSON: The document root must not be followed by other values."},
  };
  for (const Case& c : kCases) {
    Collect sink;
    auto r = ReadTraceFromString(c.text, "s.json", sink);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().message, c.expected) << c.text;
  }
  // Escapes decode to UTF-8, surrogate pairs included.
  Collect sink;
  auto r = ReadTraceFromString(
      "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"name\": \"\\u00e9\\ud83d\\ude00\\t\\\"\"}]}",
      "u.json", sink);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].name, "\xc3\xa9\xf0\x9f\x98\x80\t\"");
}

TEST(TraceReaderTest, TruncatedFileIsReported) {
  std::string text = testing::kHandTrace;
  text.resize(text.size() / 2);
  Collect sink;
  auto r = ReadTraceFromString(text, "cut.json", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cut.json:"), std::string::npos);
  EXPECT_NE(r.error().message.find("unexpected end of file (truncated trace?)"), std::string::npos)
      << r.error().message;
}

TEST(TraceReaderTest, WrongTypedTsNamesTheMember) {
  Collect sink;
  auto r = ReadTraceFromString(
      "{\"traceEvents\": [\n{\"ph\": \"X\", \"ts\": 1, \"dur\": 1},\n{\"ph\": \"X\", \"ts\": \"12\", \"dur\": 1}]}",
      "typed.json", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "typed.json:3:19: traceEvents[1].ts: expected a number, got string");
}

TEST(TraceReaderTest, OtherShapeErrors) {
  Collect sink;
  auto a = ReadTraceFromString("{\"foo\": 1}", "nofield.json", sink);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message, "nofield.json:1:1: not a Chrome trace: no \"traceEvents\" array");
  auto b = ReadTraceFromString("42", "scalar.json", sink);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("expected a trace (a JSON object or array) at the top level, got number"),
            std::string::npos);
  auto c = ReadTraceFromString("[{\"ph\": \"X\", \"ts\": 1}]", "nodur.json", sink);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("(ph X) has no dur"), std::string::npos);
  auto d = ReadTraceFromString("[1]", "num.json", sink);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("traceEvents[0]: expected an object, got number"), std::string::npos);
  auto e = ReadTraceFromString("{\"traceEvents\": {}}", "obj.json", sink);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("traceEvents: expected an array, got object"), std::string::npos);
}

TEST(TraceReaderTest, MissingFileIsAnInputError) {
  Collect sink;
  auto r = ReadTrace("/nonexistent/trace.json", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_NE(r.error().message.find("/nonexistent/trace.json: cannot open"), std::string::npos);
}

TEST(TraceReaderTest, TruncatedGzipIsReported) {
  std::string gz = Slurp(TraceDataPath("kineto_ns_resolution_rank0.json.gz"));
  ASSERT_GT(gz.size(), 1000u);
  gz.resize(gz.size() / 2);
  Collect sink;
  auto r = ReadTraceFromString(gz, "half.json.gz", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("half.json.gz: truncated gzip stream", 0), 0u) << r.error().message;
}

TEST(TraceReaderTest, GzipOfBrokenJsonGivesDecompressedPosition) {
  // Compress a small broken document with zlib (gzip wrapper) in memory.
  const std::string out = Gzip("[\n {\"ph\": \"X\", \"ts\": 1, \"dur\": true}\n]");
  ASSERT_FALSE(out.empty());
  Collect sink;
  auto r = ReadTraceFromString(out, "b.json.gz", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "b.json.gz:2:30: traceEvents[0].dur: expected a number, got bool");
}

// Every end (ts + dur) and every distance between events must fit in 64-bit
// nanoseconds: a span of -447000000 s came from two timestamps that did.
TEST(TraceReaderTest, TimestampsWhoseDistancesOverflowAreRefused) {
  Collect sink;
  auto far = ReadTraceFromString("[{\"ph\": \"X\", \"ts\": 9223372036854775, \"dur\": 1}]", "far.json", sink);
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.error().message.find("traceEvents[0].ts: beyond +-4e9 s"), std::string::npos) << far.error().message;
  auto apart = ReadTraceFromString(
      "[{\"ph\": \"X\", \"ts\": -3e15, \"dur\": 1}, {\"ph\": \"X\", \"ts\": 3e15, \"dur\": 1}]", "apart.json", sink);
  ASSERT_FALSE(apart.ok());
  EXPECT_NE(apart.error().message.find("traceEvents[1].ts: 1e9 s or more away from the first timed event's ts"),
            std::string::npos)
      << apart.error().message;
  auto back = ReadTraceFromString("[{\"ph\": \"X\", \"ts\": 1, \"dur\": -1e15}]", "neg.json", sink);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("traceEvents[0].dur: 1e9 s or more"), std::string::npos) << back.error().message;
  // Overlapping events whose durations add up beyond int64 nanoseconds.
  std::string many = "[";
  for (int i = 0; i < 12; ++i)
    many += std::string(i ? "," : "") + "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 0, \"dur\": 999999999e6}";
  auto sum = ReadTraceFromString(many + "]", "sum.json", sink);
  ASSERT_FALSE(sum.ok());
  EXPECT_NE(sum.error().message.find("the durations add up to more than 4e9 s"), std::string::npos) << sum.error().message;
  // Metadata at ts 0 is not placed in time: it anchors nothing.
  auto meta = ReadTraceFromString(
      "[{\"ph\": \"M\", \"name\": \"process_name\", \"ts\": 0}, {\"ph\": \"X\", \"ts\": 1694039968933321, \"dur\": 5}]",
      "meta.json", sink);
  EXPECT_TRUE(meta.ok()) << meta.error().message;
  // Epoch microseconds of today and a long trace are fine.
  auto epoch = ReadTraceFromString(
      "[{\"ph\": \"X\", \"ts\": 1764300000000000, \"dur\": 5}, {\"ph\": \"X\", \"ts\": 1764300086400000, \"dur\": 5}]",
      "epoch.json", sink);
  EXPECT_TRUE(epoch.ok()) << epoch.error().message;
}

// Each device an event names costs tables in the analyses: a small trace
// naming 100,000 devices needed gigabytes.
TEST(TraceReaderTest, DevicesNamedByEventsAreCapped) {
  std::string kernels = "[", memory = "[";
  for (int i = 0; i <= 4096; ++i) {
    const std::string sep = i ? "," : "";
    kernels += sep + "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": " + std::to_string(i) +
               ", \"dur\": 1, \"args\": {\"device\": " + std::to_string(i) + "}}";
    if (i <= 256)
      memory += sep + "{\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": " + std::to_string(i) +
                ", \"args\": {\"Device Id\": " + std::to_string(i) + ", \"Device Type\": 1}}";
  }
  kernels += "]";
  memory += "]";
  Collect sink;
  auto k = ReadTraceFromString(kernels, "k.json", sink);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("traceEvents[4096]: more than 4096 GPU devices named by events"), std::string::npos)
      << k.error().message;
  auto m = ReadTraceFromString(memory, "m.json", sink);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("traceEvents[256]: more than 256 devices named by [memory] events"),
            std::string::npos)
      << m.error().message;
  kernels.resize(kernels.rfind(",{"));  // 4096 devices are fine
  EXPECT_TRUE(ReadTraceFromString(kernels + "]", "k.json", sink).ok());
}

TEST(TraceReaderTest, ARankBeyondTheWorldSizeIsRefused) {
  Collect sink;
  for (const char* text : {"{\"distributedInfo\": {\"rank\": 5, \"world_size\": 2}, \"traceEvents\": []}",
                           "{\"distributedInfo\": {\"world_size\": 2, \"rank\": 2}, \"traceEvents\": []}"}) {
    auto r = ReadTraceFromString(text, "r.json", sink);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find("is not below world_size 2"), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(ReadTraceFromString("{\"distributedInfo\": {\"rank\": 1, \"world_size\": 2}, \"traceEvents\": []}",
                                  "ok.json", sink)
                  .ok());
}

// Values no device can have are left out as unknown: averaged or summed they
// overflowed (a mean occupancy of inf written as nothing, copies of -10 B).
TEST(TraceReaderTest, ArgumentsNoDeviceCanHaveAreUnknown) {
  Collect sink;
  auto r = ReadTraceFromString(
      R"([{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"args":{"est. achieved occupancy %":1.7e308,)"
      R"("registers per thread":-3}},{"ph":"X","cat":"gpu_memcpy","name":"m","ts":2,"dur":1,)"
      R"("args":{"bytes":-5}},{"ph":"X","cat":"gpu_memcpy","name":"m","ts":3,"dur":1,"args":{"bytes":4700000000000000000}},)"
      R"({"ph":"X","cat":"kernel","name":"k","ts":4,"dur":1,"args":{"est. achieved occupancy %":55.5,"bytes":1024}}])",
      "args.json", sink);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(sink.events.size(), 4u);
  EXPECT_FALSE(sink.events[0].occupancy_pct.has_value());
  EXPECT_FALSE(sink.events[0].registers_per_thread.has_value());
  EXPECT_FALSE(sink.events[1].bytes.has_value());
  EXPECT_FALSE(sink.events[2].bytes.has_value());
  EXPECT_EQ(sink.events[3].occupancy_pct, 55.5);
  EXPECT_EQ(sink.events[3].bytes, 1024);
}

TEST(TraceReaderTest, ANulByteIsNamedWhereverItIs) {
  Collect sink;
  using namespace std::string_literals;
  auto in_string = ReadTraceFromString("{\"traceEvents\": [{\"name\": \"a\0b\"}]}"s, "s.json", sink);
  ASSERT_FALSE(in_string.ok());
  EXPECT_EQ(in_string.error().message, "s.json:1:29: a NUL byte, which JSON text cannot hold (binary data?)");
  auto between = ReadTraceFromString("{\"traceEvents\": [\0]}"s, "b.json", sink);
  ASSERT_FALSE(between.ok());
  EXPECT_EQ(between.error().message, "b.json:1:18: a NUL byte, which JSON text cannot hold (binary data?)");
}

TEST(TraceReaderTest, GzipInsideGzipIsNamed) {
  const std::string out = Gzip(Slurp(TraceDataPath("kineto_ns_resolution_rank0.json.gz")));
  ASSERT_FALSE(out.empty());
  Collect sink;
  auto r = ReadTraceFromString(out, "twice.json.gz", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("twice.json.gz:1:1: gzip data inside gzip data (compressed twice?)", 0), 0u)
      << r.error().message;
}

TEST(TraceReaderTest, GzipDataAfterTheDocumentIsNamed) {
  // A second gzip member that is itself compressed: its bytes follow the
  // first member's JSON.
  const std::string first = Gzip("{\"traceEvents\": []}\n");
  const std::string second = Gzip(Gzip("{\"traceEvents\": []}"));
  Collect sink;
  auto r = ReadTraceFromString(first + second, "joined.json.gz", sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "joined.json.gz:2:1: gzip data inside JSON text (compressed twice, or joined to another "
            "file?): decompress it (gunzip) and give the JSON");
  // And in a plain file with a compressed one joined to it.
  auto plain = ReadTraceFromString("{\"traceEvents\": []}" + second, "plain.json", sink);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error().message.rfind("plain.json:1:20: gzip data inside JSON text", 0), 0u)
      << plain.error().message;
}

}  // namespace
}  // namespace gpugate
