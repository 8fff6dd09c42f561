// File writes that are never lost, half-written or replaced wrongly: the
// atomic replacement, symlinks followed, devices and FIFOs written in place,
// stale temp files of dead writers removed, failed writes keeping the old
// file, locked appends and the baseline lock.
#include "util/file_write.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_binary.h"
#include "harness/interrupt.h"

namespace gpugate {
namespace {

namespace stdfs = std::filesystem;

class FileWriteTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir(); }
  void TearDown() override { testing::RemoveTree(dir_); }
  std::string P(const std::string& name) const { return dir_ + "/" + name; }
  /// Names in the folder.
  std::set<std::string> Entries() const {
    std::set<std::string> names;
    for (const auto& e : stdfs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }
  std::string dir_;
};

bool IsSymlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

TEST_F(FileWriteTest, ReplacesARegularFileKeepingItsModeAndLeavesNoTemp) {
  ASSERT_TRUE(WriteFileAtomic(P("r.json"), "old").ok());
  ASSERT_EQ(::chmod(P("r.json").c_str(), 0640), 0);
  ASSERT_TRUE(WriteFileAtomic(P("r.json"), "new content").ok());
  EXPECT_EQ(testing::ReadAll(P("r.json")), "new content");
  struct stat st {};
  ASSERT_EQ(::stat(P("r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(Entries(), std::set<std::string>{"r.json"});
  // A new file is 0644.
  ASSERT_TRUE(WriteFileAtomic(P("n.json"), "x").ok());
  ASSERT_EQ(::stat(P("n.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

// Reports are written as one: when one cannot be written, none is replaced,
// so no report is left saying pass while the command fails.
TEST_F(FileWriteTest, SeveralFilesAreAllOrNothing) {
  ASSERT_TRUE(WriteFileAtomic(P("a.md"), "old a").ok());
  ASSERT_TRUE(WriteFileAtomic(P("c.json"), "old c").ok());
  Status st = WriteFilesAtomic({{P("a.md"), "new a"}, {P("no/such/b.html"), "new b"}, {P("c.json"), "new c"}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ExitCode::kToolError);
  EXPECT_EQ(testing::ReadAll(P("a.md")), "old a");
  EXPECT_EQ(testing::ReadAll(P("c.json")), "old c");
  EXPECT_EQ(Entries(), (std::set<std::string>{"a.md", "c.json"}));  // no temp left
  // A device that fails replaces none either.
  Status full = WriteFilesAtomic({{P("a.md"), "newer a"}, {"/dev/full", "x"}});
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(testing::ReadAll(P("a.md")), "old a");
  EXPECT_EQ(Entries(), (std::set<std::string>{"a.md", "c.json"}));
  ASSERT_TRUE(WriteFilesAtomic({{P("a.md"), "new a"}, {P("b.html"), "new b"}, {"/dev/null", "x"}}).ok());
  EXPECT_EQ(testing::ReadAll(P("a.md")), "new a");
  EXPECT_EQ(testing::ReadAll(P("b.html")), "new b");
}

TEST_F(FileWriteTest, FollowsSymlinksAndKeepsThem) {
  stdfs::create_directory(P("real"));
  testing::WriteAll(P("real/target.json"), "old");
  stdfs::create_symlink("real/target.json", P("link.json"));  // relative to the link's folder
  stdfs::create_symlink(P("link.json"), P("link2.json"));     // a chain, absolute
  ASSERT_TRUE(WriteFileAtomic(P("link2.json"), "via the chain").ok());
  EXPECT_TRUE(IsSymlink(P("link.json")));
  EXPECT_TRUE(IsSymlink(P("link2.json")));
  EXPECT_EQ(testing::ReadAll(P("real/target.json")), "via the chain");
  EXPECT_EQ(ResolveFinalSymlinks(P("link2.json")), P("real/target.json"));
  // The temp file went beside the target, and is gone.
  EXPECT_EQ(Entries(), (std::set<std::string>{"link.json", "link2.json", "real"}));
  EXPECT_EQ(stdfs::directory_iterator(P("real"))->path().filename(), "target.json");

  // A dangling link: its target is created, the link stays.
  stdfs::create_symlink("real/new.json", P("dangling.json"));
  ASSERT_TRUE(WriteFileAtomic(P("dangling.json"), "created").ok());
  EXPECT_TRUE(IsSymlink(P("dangling.json")));
  EXPECT_EQ(testing::ReadAll(P("real/new.json")), "created");
}

TEST_F(FileWriteTest, WritesAFifoInPlace) {
  ASSERT_EQ(::mkfifo(P("fifo").c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    int fd = ::open(P("fifo").c_str(), O_RDONLY);
    if (fd < 0) return;
    char buf[256];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
    ::close(fd);
  });
  Status st = WriteFileAtomic(P("fifo"), "through the pipe\n");
  if (!st.ok()) {  // let a reader still waiting in open() go
    int unblock = ::open(P("fifo").c_str(), O_WRONLY | O_NONBLOCK);
    if (unblock >= 0) ::close(unblock);
  }
  reader.join();
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(got, "through the pipe\n");
  struct stat sb {};
  ASSERT_EQ(::lstat(P("fifo").c_str(), &sb), 0);
  EXPECT_TRUE(S_ISFIFO(sb.st_mode));
  EXPECT_EQ(Entries(), std::set<std::string>{"fifo"});
}

TEST_F(FileWriteTest, WritesDevicesInPlaceAndReportsTheirErrors) {
  // Through a symlink, so the device is reached the way an output path would.
  stdfs::create_symlink("/dev/null", P("null"));
  ASSERT_TRUE(WriteFileAtomic(P("null"), "discarded").ok());
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_TRUE(IsSymlink(P("null")));

  if (::stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) GTEST_SKIP() << "no /dev/full here";
  stdfs::create_symlink("/dev/full", P("full"));
  Status full = WriteFileAtomic(P("full"), "no room");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, ExitCode::kToolError);
  EXPECT_EQ(full.error().message, P("full") + ": write failed: No space left on device");
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(FileWriteTest, RefusesAFolder) {
  Status st = WriteFileAtomic(dir_, "x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("it is a folder"), std::string::npos) << st.error().message;
}

TEST_F(FileWriteTest, RemovesStaleTempsButNotThoseOfLiveWriters) {
  testing::WriteAll(P("b.json"), "old");
  testing::WriteAll(P("b.json.tmp.123.abcDEF"), "dead writer");
  testing::WriteAll(P("b.json.tmp.Xy12zq"), "dead writer, older naming");
  testing::WriteAll(P("b.json.tmp.456.live01"), "live writer");
  testing::WriteAll(P("b.json.tmp.notes"), "not a temp file");
  testing::WriteAll(P("c.json.tmp.789.abcdef"), "another target's temp");
  // A live writer holds the flock of its temp file.
  int live = ::open(P("b.json.tmp.456.live01").c_str(), O_RDWR);
  ASSERT_GE(live, 0);
  ASSERT_EQ(::flock(live, LOCK_EX), 0);

  ASSERT_TRUE(WriteFileAtomic(P("b.json"), "new").ok());
  EXPECT_EQ(Entries(), (std::set<std::string>{"b.json", "b.json.tmp.456.live01", "b.json.tmp.notes",
                                              "c.json.tmp.789.abcdef"}));
  EXPECT_EQ(testing::ReadAll(P("b.json")), "new");

  ::close(live);  // the writer died
  EXPECT_EQ(RemoveStaleTempFiles(P("b.json")), 1);
  EXPECT_EQ(Entries(), (std::set<std::string>{"b.json", "b.json.tmp.notes", "c.json.tmp.789.abcdef"}));
}

// A write that fails (here EFBIG under a file-size limit) is a ToolError that
// names the path and the reason; the old file stays and no temp file is left.
TEST_F(FileWriteTest, AFailedWriteKeepsTheOldFileAndRemovesTheTemp) {
  const std::string old_text(1000, 'o');
  testing::WriteAll(P("b.json"), old_text);
  const std::string path = P("b.json");
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(10);
    Status st = WriteFileAtomic(path, std::string(100000, 'n'));
    if (st.ok()) _exit(11);
    if (st.error().code != ExitCode::kToolError) _exit(12);
    if (st.error().message != path + ": write failed: File too large") _exit(13);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit, 11: no error, 12: wrong code, 13: wrong message";
  EXPECT_EQ(testing::ReadAll(P("b.json")), old_text);
  EXPECT_EQ(Entries(), std::set<std::string>{"b.json"});
}

// A signal that ends gpugate while it writes a results file (no workload
// running: the handler ends gpugate at once) takes the staged temp file with
// it; "r.json.tmp.<pid>.<rand>" was left beside the old file. The signal
// comes in the middle of the temp's write: SIGXFSZ at a file size limit,
// whose handler here sends SIGTERM.
void TermOnXfsz(int) { ::raise(SIGTERM); }

TEST_F(FileWriteTest, ASignalThatEndsGpugateDuringAWriteRemovesTheTemp) {
  const std::string old_text(1000, 'o');
  testing::WriteAll(P("r.json"), old_text);
  const std::string path = P("r.json");
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallInterruptHandling();
    ::signal(SIGXFSZ, TermOnXfsz);
    struct rlimit limit {4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(10);
    Status st = WriteFileAtomic(path, std::string(100000, 'n'));
    _exit(st.ok() ? 11 : 12);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited with " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(testing::ReadAll(P("r.json")), old_text);
  EXPECT_EQ(Entries(), std::set<std::string>{"r.json"});
}

// A signal between the temp file's creation and its entry in the cleanup
// list waits for that entry, and then takes the file with it (it was left
// behind when the signal came during the flock of the fresh file).
TEST_F(FileWriteTest, ASignalRightAfterTheTempIsCreatedStillRemovesIt) {
  const std::string path = P("r.json");
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallInterruptHandling();
    detail::g_temp_created_hook = [] { ::raise(SIGTERM); };
    Status st = WriteFileAtomic(path, std::string(1000, 'n'));
    _exit(st.ok() ? 11 : 12);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited with " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(Entries(), std::set<std::string>{}) << "a temp file was left behind";
}

/// A streambuf that refuses every byte.
class RefusingBuf : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

TEST(FileWriteStdout, StandardOutputNamesGoThroughStdCout) {
  std::ostringstream captured;
  std::streambuf* saved = std::cout.rdbuf(captured.rdbuf());
  for (const char* name : {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}) {
    Status st = WriteFileAtomic(name, std::string(name) + ";");
    EXPECT_TRUE(st.ok()) << name;
  }
  RefusingBuf refusing;
  std::cout.rdbuf(&refusing);
  Status failed = WriteFileAtomic("/dev/stdout", "lost");
  std::cout.rdbuf(saved);
  std::cout.clear();
  EXPECT_EQ(captured.str(), "-;/dev/stdout;/dev/fd/1;/proc/self/fd/1;");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ExitCode::kToolError);
  EXPECT_EQ(failed.error().message.rfind("cannot write to standard output", 0), 0u) << failed.error().message;
  EXPECT_TRUE(IsStdoutPath("-"));
  EXPECT_FALSE(IsStdoutPath("/dev/stderr"));
  EXPECT_FALSE(IsStdoutPath("stdout"));
}

TEST_F(FileWriteTest, AppendsUnderTheFilesLock) {
  ASSERT_TRUE(AppendToFileLocked(P("summary.md"), "one\n", "GITHUB_STEP_SUMMARY").ok());
  ASSERT_TRUE(AppendToFileLocked(P("summary.md"), "two\n", "GITHUB_STEP_SUMMARY").ok());
  EXPECT_EQ(testing::ReadAll(P("summary.md")), "one\ntwo\n");
  int holder = ::open(P("summary.md").c_str(), O_RDONLY);
  ASSERT_GE(holder, 0);
  ASSERT_EQ(::flock(holder, LOCK_EX), 0);
  Status waited = AppendToFileLocked(P("summary.md"), "three\n", "GITHUB_STEP_SUMMARY", 0.1);
  ASSERT_FALSE(waited.ok());
  EXPECT_EQ(waited.error().message,
            "GITHUB_STEP_SUMMARY '" + P("summary.md") + "': timed out after 0.1 s waiting for its lock");
  ::close(holder);
  ASSERT_TRUE(AppendToFileLocked(P("summary.md"), "three\n", "GITHUB_STEP_SUMMARY", 0.1).ok());
  EXPECT_EQ(testing::ReadAll(P("summary.md")), "one\ntwo\nthree\n");
}

TEST_F(FileWriteTest, FileLockIsExclusiveAndTimesOut) {
  const std::string path = P("b.json.lock");
  {
    Result<FileLock> first = FileLock::Acquire(path, 0);
    ASSERT_TRUE(first.ok()) << first.error().message;
    Result<FileLock> second = FileLock::Acquire(path, 0.05, "someone else has it");
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().code, ExitCode::kToolError);
    EXPECT_EQ(second.error().message, path + ": timed out after 0.05 s waiting for the lock (someone else has it)");
  }
  EXPECT_FALSE(stdfs::exists(path));  // removed as it was let go, and not by the one that timed out
  {
    Result<FileLock> again = FileLock::Acquire(path, 0);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(stdfs::exists(path));
  }
  EXPECT_FALSE(stdfs::exists(path));
}

TEST_F(FileWriteTest, FileLockHoldersNeverOverlapWhenFilesAreRemoved) {
  // Threads take and let go the lock many times; each counts itself in and
  // out: never two inside at once.
  const std::string path = P("c.json.lock");
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&]() {
      for (int i = 0; i < 50; ++i) {
        Result<FileLock> lock = FileLock::Acquire(path, 10);
        ASSERT_TRUE(lock.ok()) << lock.error().message;
        if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
        std::this_thread::yield();
        inside.fetch_sub(1);
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_FALSE(stdfs::exists(path));
}

}  // namespace
}  // namespace gpugate
