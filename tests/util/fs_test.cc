// Tests of the bounded file reader (src/util/fs.h): the size limit, its
// environment variable, and streams (FIFOs, devices) read to the limit + 1.
#include "util/fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace gpugate {
namespace {

/// Sets GPUGATE_MAX_INPUT_BYTES for one test, restoring it afterwards.
class LimitVariable {
 public:
  explicit LimitVariable(const char* value) {
    if (const char* old = std::getenv(kMaxInputBytesVariable)) old_ = old;
    if (value) ::setenv(kMaxInputBytesVariable, value, 1);
    else ::unsetenv(kMaxInputBytesVariable);
  }
  ~LimitVariable() {
    if (old_.empty()) ::unsetenv(kMaxInputBytesVariable);
    else ::setenv(kMaxInputBytesVariable, old_.c_str(), 1);
  }

 private:
  std::string old_;
};

std::string WriteTemp(const TempDir& dir, const std::string& name, const std::string& bytes) {
  std::string path = dir.path() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(TempDirTest, LiveFoldersAreRemovedForAnEndWithoutUnwinding) {
  // An interrupt ends gpugate by its signal, without destructors: the
  // folders of every TempDir alive are removed first.
  TempDir kept("gpugate-test-live");
  ASSERT_FALSE(kept.path().empty());
  std::ofstream(kept.path() + "/out.json") << "{}";
  std::string gone_path;
  {
    TempDir gone("gpugate-test-gone");
    gone_path = gone.path();
  }
  EXPECT_FALSE(std::filesystem::exists(gone_path));
  RemoveLiveTemps();
  EXPECT_FALSE(std::filesystem::exists(kept.path()));
}

// A signal that ends gpugate while it is busy itself (reading a benchmark
// program's JSON) removes the folders with async-signal-safe calls.
TEST(TempDirTest, ASignalHandlerRemovesTheLiveFolders) {
  TempDir kept("gpugate-test-signal");
  ASSERT_FALSE(kept.path().empty());
  for (int i = 0; i < 300; ++i)  // more entries than one read of the folder returns
    std::ofstream(kept.path() + "/file-with-a-longish-name-" + std::to_string(i) + ".json") << "{}";
  // A folder beside the files (nvbench's --jsonbin writes out.json-bin/).
  std::filesystem::create_directories(kept.path() + "/out.json-bin/deeper");
  std::ofstream(kept.path() + "/out.json-bin/0.bin") << "x";
  std::ofstream(kept.path() + "/out.json-bin/deeper/1.bin") << "x";
  RemoveLiveTempsFromSignal();
  EXPECT_FALSE(std::filesystem::exists(kept.path()));
  // A slot is free again once its folder is gone: after many folders came
  // and went, a new one is still tracked.
  for (int i = 0; i < 40; ++i) {
    TempDir many("gpugate-test-signal");
    ASSERT_FALSE(many.path().empty());
  }
  TempDir last("gpugate-test-signal");
  std::ofstream(last.path() + "/out.json") << "{}";
  RemoveLiveTempsFromSignal();
  EXPECT_FALSE(std::filesystem::exists(last.path()));
}

// A staged write's temp file is removed by a signal until it is released
// (renamed into place): then the name is the target's and stays.
TEST(LiveTempFileTest, ASignalRemovesTheFileUntilItIsReleased) {
  char tmpl[] = "/tmp/gpugate-test-live-file-XXXXXX";  // not a TempDir, which the signal removes too
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string staged = dir + "/r.json.tmp.1.abcdef", kept = dir + "/k.json";
  std::ofstream(staged) << "{}";
  std::ofstream(kept) << "{}";
  LiveTempFile live(staged);
  LiveTempFile released(kept);
  released.Release();
  LiveTempFile moved = std::move(released);
  RemoveLiveTempsFromSignal();
  EXPECT_FALSE(std::filesystem::exists(staged));
  EXPECT_TRUE(std::filesystem::exists(kept));
  std::filesystem::remove_all(dir);
}

TEST(ReadFile, DefaultLimitsPerKind) {
  LimitVariable unset(nullptr);
  EXPECT_EQ(*MaxInputBytes(InputKind::kData), 256 << 20);
  EXPECT_EQ(*MaxInputBytes(InputKind::kConfig), 16 << 20);
}

TEST(ReadFile, EnvironmentSetsTheLimitForEveryKind) {
  for (auto [text, bytes] : {std::pair{"1000", int64_t{1000}}, std::pair{"4K", int64_t{4096}},
                             std::pair{"3M", int64_t{3} << 20}, std::pair{"2g", int64_t{2} << 30}}) {
    LimitVariable set(text);
    EXPECT_EQ(*MaxInputBytes(InputKind::kData), bytes) << text;
    EXPECT_EQ(*MaxInputBytes(InputKind::kConfig), bytes) << text;
  }
  for (const char* bad : {"0", "-5", "abc", "1.5M", "12T", "99999999999G"}) {
    LimitVariable set(bad);
    Result<int64_t> r = MaxInputBytes(InputKind::kData);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ExitCode::kInputError);
    EXPECT_NE(r.error().message.find("GPUGATE_MAX_INPUT_BYTES='"), std::string::npos);
  }
}

TEST(ReadFile, RegularFileAtAndOverTheLimit) {
  TempDir dir("gpugate-fs-test");
  const std::string exact = WriteTemp(dir, "exact", std::string(100, 'x'));
  const std::string over = WriteTemp(dir, "over", std::string(101, 'x'));
  LimitVariable set("100");
  Result<std::string> ok = ReadFile(exact);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->size(), 100u);
  Result<std::string> big = ReadFile(over);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message,
            over + ": larger than the 100 bytes input limit (set GPUGATE_MAX_INPUT_BYTES)");
  EXPECT_EQ(big.error().code, ExitCode::kInputError);
}

TEST(ReadFile, ADeviceWithoutEndIsReadToTheLimitOnly) {
  LimitVariable set("1M");
  Result<std::string> r = ReadFile("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "/dev/zero: larger than the 1 MiB input limit (set GPUGATE_MAX_INPUT_BYTES)");
}

TEST(ReadFile, AFifoIsReadWhole) {
  TempDir dir("gpugate-fs-test");
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string content(3 << 20, 'a');  // more than one chunk
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << content; });
  Result<std::string> r = ReadFile(fifo);
  writer.join();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, content);
}

TEST(ReadFile, MissingFileAndFolder) {
  Result<std::string> missing = ReadFile("/nonexistent/gpugate/file.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
  Result<std::string> folder = ReadFile("/tmp");
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.error().message.find("Is a directory"), std::string::npos);
}

// A program's name keeps its dots (two nvbench examples are two suites) and
// reads a Windows path; an input file's stem drops ".gz" too, so a
// compressed file is the same suite.
TEST(FileNames, ProgramNameAndDataFileStem) {
  EXPECT_EQ(ProgramName("bin/nvbench.example.axes"), "nvbench.example.axes");
  EXPECT_EQ(ProgramName("./bench.core"), "bench.core");
  EXPECT_EQ(ProgramName("C:\\Users\\me\\build\\Release\\bench_core.exe"), "bench_core");
  EXPECT_EQ(ProgramName("bench.EXE"), "bench");
  EXPECT_EQ(ProgramName("/usr/bin/a.out"), "a.out");
  EXPECT_EQ(ProgramName(".exe"), ".exe");
  EXPECT_EQ(ProgramName("bench/"), "bench");
  EXPECT_EQ(ProgramName("C:\\build\\Release\\"), "Release");
  EXPECT_EQ(ProgramName(""), "");
  EXPECT_EQ(ProgramName("/"), "");
  EXPECT_EQ(ProgramName("\\\\"), "");
  EXPECT_EQ(DataFileStem("a/perf.json"), "perf");
  EXPECT_EQ(DataFileStem("a/perf.json.gz"), "perf");
  EXPECT_EQ(DataFileStem("perf.gz"), "perf");
  EXPECT_EQ(DataFileStem("a.b/run"), "run");
  EXPECT_EQ(DataFileStem(".gz"), ".gz");
}

}  // namespace
}  // namespace gpugate
