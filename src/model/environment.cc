// Environment fingerprint (host, OS, CPU, governor, compiler) and run metadata
// (time, run id, git state). Git is read from the repository's files; only the
// "dirty" check runs git, through posix_spawn with an argv (never a shell).
#include "model/environment.h"

#include "model/baseline.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <random>

#include "util/fs.h"
#include "util/strings.h"
#include "util/text/format.h"

extern char** environ;

namespace gpugate {

namespace {

namespace stdfs = std::filesystem;

/// Whole small file, or nullopt when it cannot be read.
std::optional<std::string> ReadSmallFile(const stdfs::path& path) {
  Result<std::string> text = ReadFile(path.string());
  if (!text.ok()) return std::nullopt;
  return std::move(text.value());
}

std::string FirstLine(std::string_view text) {
  return Trim(text.substr(0, text.find('\n')));
}

bool IsHexObjectId(std::string_view s) {
  if (s.size() != 40 && s.size() != 64) return false;  // SHA-1 or SHA-256
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

/// Where a repository's files live: `git_dir` holds HEAD (per worktree),
/// `common_dir` holds refs and packed-refs (shared by linked worktrees).
struct GitLayout {
  stdfs::path work_tree;
  stdfs::path git_dir;
  stdfs::path common_dir;
};

std::optional<GitLayout> FindGitLayout(const std::string& start) {
  std::error_code ec;
  stdfs::path cur = stdfs::absolute(start.empty() ? "." : start, ec);
  if (ec) return std::nullopt;
  cur = cur.lexically_normal();
  while (true) {
    const stdfs::path dot_git = cur / ".git";
    std::optional<stdfs::path> git_dir;
    if (stdfs::is_directory(dot_git, ec)) {
      git_dir = dot_git;
    } else if (stdfs::is_regular_file(dot_git, ec)) {
      // Linked worktrees and submodules: ".git" is a file "gitdir: PATH".
      if (auto text = ReadSmallFile(dot_git)) {
        std::string line = FirstLine(*text);
        if (StartsWith(line, "gitdir:")) {
          stdfs::path target = Trim(std::string_view(line).substr(7));
          git_dir = target.is_absolute() ? target : cur / target;
        }
      }
    }
    if (git_dir) {
      GitLayout layout{cur, git_dir->lexically_normal(), git_dir->lexically_normal()};
      if (auto common = ReadSmallFile(layout.git_dir / "commondir")) {
        stdfs::path c = FirstLine(*common);
        layout.common_dir = (c.is_absolute() ? c : layout.git_dir / c).lexically_normal();
      }
      return layout;
    }
    if (!cur.has_parent_path() || cur.parent_path() == cur) return std::nullopt;
    cur = cur.parent_path();
  }
}

/// Resolves a ref name ("refs/heads/main") to an object id: a loose ref file
/// (which may itself be symbolic) in the git dir or the common dir, else a
/// line "<id> <name>" of packed-refs.
std::optional<std::string> ResolveRef(const GitLayout& git, const std::string& ref, int depth) {
  if (depth > 5 || ref.find("..") != std::string::npos) return std::nullopt;
  for (const stdfs::path& base : {git.git_dir, git.common_dir}) {
    auto text = ReadSmallFile(base / ref);
    if (!text) continue;
    std::string line = FirstLine(*text);
    if (StartsWith(line, "ref:")) return ResolveRef(git, Trim(line.substr(4)), depth + 1);
    if (IsHexObjectId(line)) return line;
  }
  if (auto packed = ReadSmallFile(git.common_dir / "packed-refs")) {
    for (const std::string& raw : Split(*packed, '\n')) {
      std::string line = Trim(raw);
      if (line.empty() || line[0] == '#' || line[0] == '^') continue;
      size_t space = line.find(' ');
      if (space == std::string::npos) continue;
      if (line.substr(space + 1) == ref && IsHexObjectId(line.substr(0, space)))
        return line.substr(0, space);
    }
  }
  return std::nullopt;
}

/// Runs `git status --porcelain --untracked-files=no` in the work tree:
/// any output means tracked changes. nullopt when git cannot be run or fails.
std::optional<bool> GitDirty(const stdfs::path& work_tree) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);

  std::string dir = work_tree.string();
  std::vector<std::string> args = {"git", "--no-optional-locks", "-C", dir, "status",
                                   "--porcelain", "--untracked-files=no"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return std::nullopt;
  }
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return std::nullopt;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return !out.empty();
}

std::string FormatIso8601(int64_t unix_ns) {
  std::time_t seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  if (unix_ns < 0 && unix_ns % 1'000'000'000 != 0) --seconds;
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char buf[32];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

std::string RandomRunId() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (int word = 0; word < 4; ++word) {  // 4 x 32 bits
    uint32_t v = rd();
    for (int nibble = 7; nibble >= 0; --nibble) id += kHex[(v >> (nibble * 4)) & 0xF];
  }
  return id;
}

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf[0] ? std::string(buf) : "unknown";
}

std::string OsName() {
  struct utsname u {};
  if (::uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

}  // namespace

std::string CpuModelFromCpuinfo(std::string_view cpuinfo) {
  static constexpr const char* kKeys[] = {"model name", "Hardware", "cpu model", "Processor",
                                          "cpu"};
  std::vector<std::string> lines = Split(cpuinfo, '\n');
  for (const char* key : kKeys) {
    for (const std::string& line : lines) {
      size_t colon = line.find(':');
      if (colon == std::string::npos || Trim(std::string_view(line).substr(0, colon)) != key)
        continue;
      std::string value = Trim(std::string_view(line).substr(colon + 1));
      if (!value.empty()) return value;
    }
  }
  return "";
}

GitState ReadGitState(const std::string& dir, bool check_dirty) {
  GitState state;
  std::optional<GitLayout> git = FindGitLayout(dir);
  if (!git) return state;
  auto head = ReadSmallFile(git->git_dir / "HEAD");
  if (!head) return state;
  std::string line = FirstLine(*head);
  if (StartsWith(line, "ref:")) {
    std::string ref = Trim(line.substr(4));
    state.branch = StartsWith(ref, "refs/heads/") ? ref.substr(11) : ref;
    state.sha = ResolveRef(*git, ref, 0);
  } else if (IsHexObjectId(line)) {
    state.sha = line;  // detached HEAD
  }
  if (check_dirty) state.dirty = GitDirty(git->work_tree);
  return state;
}

std::string UtcNowIso8601() { return FormatIso8601(UnixNowNs()); }

int64_t UnixNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Environment DetectEnvironment() {
  Environment env;
  env.host = HostName();
  env.os = OsName();
  if (auto cpuinfo = ReadSmallFile("/proc/cpuinfo")) env.cpu_model = CpuModelFromCpuinfo(*cpuinfo);
  if (env.cpu_model.empty()) env.cpu_model = "unknown";
  long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  env.cpu_cores = cores > 0 ? static_cast<int>(cores) : 0;
  if (auto governor = ReadSmallFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")) {
    std::string g = FirstLine(*governor);
    if (!g.empty()) env.cpu_governor = g;
  }
  env.compiler = GPUGATE_COMPILER;
  env.runner_class = RunnerClassFromVariables([](const char* name) { return std::getenv(name); });
  return env;
}

std::optional<std::string> RunnerClassFromVariables(const std::function<const char*(const char*)>& get) {
  auto value = [&](const char* name) -> std::string {
    const char* v = get(name);
    return v ? std::string(v) : std::string();
  };
  if (std::string key = value("GPUGATE_ENV_KEY"); !key.empty()) {
    if (auto parsed = ParseRunnerClass(key); parsed.ok()) return *parsed;
    return std::nullopt;
  }
  if (value("GITHUB_ACTIONS") != "true") return std::nullopt;
  const std::string image = value("ImageOS");
  if (image.empty()) return std::nullopt;  // self-hosted: the user names the class
  std::string os = value("RUNNER_OS"), arch = value("RUNNER_ARCH");
  return Slug((os.empty() ? "os" : os) + "-" + (arch.empty() ? "arch" : arch) + "-" + image);
}

Result<std::string> ParseRunnerClass(const std::string& text) {
  bool alnum = false;
  for (unsigned char c : text) alnum = alnum || std::isalnum(c);
  if (!alnum)
    return InputError("runner class '" + text +
                      "' has no letter or digit; name it like 'ubuntu-24.04' or 'gpu-a100'");
  return Slug(text);
}

RunInfo MakeRunInfo(const std::string& suite_name) {
  RunInfo run;
  run.tool_version = GPUGATE_VERSION;
  run.suite = suite_name;
  run.time_unix_ns = UnixNowNs();
  run.time_utc = FormatIso8601(run.time_unix_ns);
  run.run_id = RandomRunId();
  std::error_code ec;
  stdfs::path cwd = stdfs::current_path(ec);
  if (!ec) {
    GitState git = ReadGitState(cwd.string(), /*check_dirty=*/true);
    run.git_sha = git.sha;
    run.git_branch = git.branch;
    run.git_dirty = git.dirty;
  }
  run.env = DetectEnvironment();
  return run;
}

std::string GpuFingerprint(const GpuInfo& g) {
  std::string out = g.name.value_or("?");
  if (g.compute_capability) out += ", cc " + *g.compute_capability;
  if (g.sm_count) out += ", " + std::to_string(*g.sm_count) + " SMs";
  if (g.sm_clock_hz) out += ", SM " + FormatFrequency(*g.sm_clock_hz);
  if (g.mem_clock_hz) out += ", memory " + FormatFrequency(*g.mem_clock_hz);
  if (g.ecc_enabled) out += std::string(", ECC ") + (*g.ecc_enabled ? "on" : "off");
  if (g.mig_enabled && *g.mig_enabled) out += ", MIG on";
  return out;
}

}  // namespace gpugate
