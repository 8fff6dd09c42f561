// Tests of the environment fingerprint and run metadata: git state read from
// synthetic repository layouts (HEAD, loose refs, packed-refs, detached HEAD,
// linked worktrees), a real repository when git is installed, /proc/cpuinfo
// parsing, and the fields detected on this Linux machine.
#include "model/environment.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace gpugate {
namespace {

namespace stdfs = std::filesystem;

constexpr const char* kSha1 = "1111111111111111111111111111111111111111";
constexpr const char* kSha2 = "2222222222222222222222222222222222222222";
constexpr const char* kSha3 = "3333333333333333333333333333333333333333";

/// A fresh temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/gpugate_env_test_XXXXXX";
    path_ = ::mkdtemp(tmpl) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) stdfs::remove_all(path_, ec);
  }
  const stdfs::path& path() const { return path_; }

 private:
  stdfs::path path_;
};

void WriteText(const stdfs::path& path, const std::string& text) {
  stdfs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

TEST(GitState, BranchResolvedFromLooseRefFromASubfolder) {
  TempDir tmp;
  const stdfs::path repo = tmp.path() / "repo";
  WriteText(repo / ".git/HEAD", "ref: refs/heads/main\n");
  WriteText(repo / ".git/refs/heads/main", std::string(kSha1) + "\n");
  stdfs::create_directories(repo / "src/deep");
  GitState git = ReadGitState((repo / "src/deep").string(), /*check_dirty=*/false);
  EXPECT_EQ(git.branch, "main");
  EXPECT_EQ(git.sha, kSha1);
  EXPECT_FALSE(git.dirty.has_value());
}

TEST(GitState, BranchResolvedFromPackedRefs) {
  TempDir tmp;
  const stdfs::path repo = tmp.path();
  WriteText(repo / ".git/HEAD", "ref: refs/heads/feature/x\n");
  WriteText(repo / ".git/packed-refs",
            "# pack-refs with: peeled fully-peeled sorted \n" + std::string(kSha1) +
                " refs/heads/main\n" + kSha2 + " refs/heads/feature/x\n" + kSha3 +
                " refs/tags/v1\n^" + kSha1 + "\n");
  GitState git = ReadGitState(repo.string(), false);
  EXPECT_EQ(git.branch, "feature/x");
  EXPECT_EQ(git.sha, kSha2);
}

TEST(GitState, LooseRefWinsOverPackedRefs) {
  TempDir tmp;
  const stdfs::path repo = tmp.path();
  WriteText(repo / ".git/HEAD", "ref: refs/heads/main\n");
  WriteText(repo / ".git/packed-refs", std::string(kSha1) + " refs/heads/main\n");
  WriteText(repo / ".git/refs/heads/main", std::string(kSha3) + "\n");
  EXPECT_EQ(ReadGitState(repo.string(), false).sha, kSha3);
}

TEST(GitState, DetachedHeadHasShaButNoBranch) {
  TempDir tmp;
  WriteText(tmp.path() / ".git/HEAD", std::string(kSha2) + "\n");
  GitState git = ReadGitState(tmp.path().string(), false);
  EXPECT_EQ(git.sha, kSha2);
  EXPECT_FALSE(git.branch.has_value());
}

TEST(GitState, UnbornBranchHasBranchButNoSha) {
  TempDir tmp;
  WriteText(tmp.path() / ".git/HEAD", "ref: refs/heads/main\n");
  GitState git = ReadGitState(tmp.path().string(), false);
  EXPECT_EQ(git.branch, "main");
  EXPECT_FALSE(git.sha.has_value());
}

TEST(GitState, LinkedWorktreeFollowsGitdirFileAndCommondir) {
  TempDir tmp;
  const stdfs::path main_git = tmp.path() / "main/.git";
  WriteText(main_git / "HEAD", "ref: refs/heads/main\n");
  WriteText(main_git / "refs/heads/main", std::string(kSha1) + "\n");
  WriteText(main_git / "refs/heads/topic", std::string(kSha2) + "\n");
  WriteText(main_git / "worktrees/wt/HEAD", "ref: refs/heads/topic\n");
  WriteText(main_git / "worktrees/wt/commondir", "../..\n");
  WriteText(tmp.path() / "wt/.git", "gitdir: ../main/.git/worktrees/wt\n");
  GitState git = ReadGitState((tmp.path() / "wt").string(), false);
  EXPECT_EQ(git.branch, "topic");
  EXPECT_EQ(git.sha, kSha2);
}

TEST(GitState, OutsideARepositoryEverythingIsNull) {
  TempDir tmp;
  GitState git = ReadGitState(tmp.path().string(), true);
  EXPECT_FALSE(git.sha.has_value());
  EXPECT_FALSE(git.branch.has_value());
  EXPECT_FALSE(git.dirty.has_value());
}

TEST(GitState, MalformedHeadGivesNoSha) {
  TempDir tmp;
  WriteText(tmp.path() / ".git/HEAD", "not a sha\n");
  GitState git = ReadGitState(tmp.path().string(), false);
  EXPECT_FALSE(git.sha.has_value());
  EXPECT_FALSE(git.branch.has_value());
}

std::string CommandOutput(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

TEST(GitState, RealRepositoryMatchesGitAndReportsDirty) {
  if (std::system("git --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "git is not installed";
  TempDir tmp;
  const std::string dir = tmp.path().string();
  const std::string git = "git -C " + dir + " -c user.name=test -c user.email=test@example.com ";
  WriteText(tmp.path() / "a.txt", "one\n");
  ASSERT_EQ(std::system((git + "init -q -b trunk && " + git + "add a.txt && " + git +
                         "commit -q -m first").c_str()),
            0);
  const std::string sha = CommandOutput(git + "rev-parse HEAD");
  ASSERT_EQ(sha.size(), 40u);

  GitState clean = ReadGitState(dir, true);
  EXPECT_EQ(clean.sha, sha);
  EXPECT_EQ(clean.branch, "trunk");
  EXPECT_EQ(clean.dirty, false);

  // Untracked files do not count; modified tracked files do.
  WriteText(tmp.path() / "new.txt", "untracked\n");
  EXPECT_EQ(ReadGitState(dir, true).dirty, false);
  WriteText(tmp.path() / "a.txt", "two\n");
  EXPECT_EQ(ReadGitState(dir, true).dirty, true);

  // After pack-refs the branch is only in packed-refs.
  ASSERT_EQ(std::system((git + "pack-refs --all").c_str()), 0);
  ASSERT_FALSE(stdfs::exists(tmp.path() / ".git/refs/heads/trunk"));
  EXPECT_EQ(ReadGitState(dir, false).sha, sha);
}

TEST(CpuModel, ReadFromCpuinfoWithFallbacks) {
  // Excerpt of an x86-64 /proc/cpuinfo.
  EXPECT_EQ(CpuModelFromCpuinfo("processor\t: 0\n"
                                "vendor_id\t: GenuineIntel\n"
                                "cpu family\t: 6\n"
                                "model\t\t: 85\n"
                                "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"
                                "stepping\t: 7\n"),
            "Intel(R) Xeon(R) CPU @ 2.20GHz");
  // 32-bit ARM boards name the SoC in "Hardware".
  EXPECT_EQ(CpuModelFromCpuinfo("processor\t: 0\n"
                                "BogoMIPS\t: 108.00\n"
                                "Features\t: fp asimd evtstrm crc32 cpuid\n"
                                "CPU implementer\t: 0x41\n"
                                "\n"
                                "Hardware\t: BCM2835\n"
                                "Revision\t: c03111\n"),
            "BCM2835");
  EXPECT_EQ(CpuModelFromCpuinfo("system type\t\t: MT7621\n"
                                "cpu model\t\t: MIPS 1004Kc V2.15\n"),
            "MIPS 1004Kc V2.15");
  EXPECT_EQ(CpuModelFromCpuinfo("processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n"),
            "POWER9 (raw), altivec supported");
  EXPECT_EQ(CpuModelFromCpuinfo("model name\t:\nHardware\t: X\n"), "X");
  EXPECT_EQ(CpuModelFromCpuinfo(""), "");
}

TEST(Environment, DetectedFieldsAreFilledOnLinux) {
  Environment env = DetectEnvironment();
  EXPECT_FALSE(env.host.empty());
  EXPECT_EQ(env.os.rfind("Linux ", 0), 0u) << env.os;
  EXPECT_FALSE(env.cpu_model.empty());
  EXPECT_NE(env.cpu_model, "unknown");
  EXPECT_GE(env.cpu_cores, 1);
  EXPECT_EQ(env.compiler, GPUGATE_COMPILER);
  if (env.cpu_governor) {
    EXPECT_FALSE(env.cpu_governor->empty());
  }
  // GPU fields are left for the CUDA backend.
  EXPECT_FALSE(env.gpu.name.has_value());
}

TEST(RunInfo, HasVersionTimeAndUniqueRunId) {
  const int64_t before = UnixNowNs();
  RunInfo a = MakeRunInfo("cpu");
  RunInfo b = MakeRunInfo("cpu");
  const int64_t after = UnixNowNs();
  EXPECT_EQ(a.tool_version, GPUGATE_VERSION);
  EXPECT_EQ(a.suite, "cpu");
  EXPECT_EQ(a.source_format, "gpugate");
  EXPECT_TRUE(std::regex_match(a.run_id, std::regex("[0-9a-f]{32}"))) << a.run_id;
  EXPECT_NE(a.run_id, b.run_id);
  EXPECT_GE(a.time_unix_ns, before);
  EXPECT_LE(a.time_unix_ns, after);
  EXPECT_TRUE(std::regex_match(a.time_utc,
                               std::regex("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z")))
      << a.time_utc;
  // The ISO time is the same instant as the ns timestamp (whole seconds).
  std::tm tm{};
  ASSERT_NE(::strptime(a.time_utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm), nullptr);
  EXPECT_EQ(static_cast<int64_t>(::timegm(&tm)), a.time_unix_ns / 1'000'000'000);
  EXPECT_FALSE(a.env.host.empty());
}

TEST(RunInfo, UtcNowIsIso8601) {
  EXPECT_TRUE(std::regex_match(UtcNowIso8601(),
                               std::regex("20\\d{2}-[01]\\d-[0-3]\\dT[0-2]\\d:[0-5]\\d:[0-6]\\dZ")));
}

}  // namespace
}  // namespace gpugate
