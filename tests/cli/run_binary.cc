// Runs the gpugate binary for end-to-end tests.
#include "cli/run_binary.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace gpugate::testing {

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string MakeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "gpugate-test-XXXXXX").string();
  char* dir = ::mkdtemp(tmpl.data());
  return dir ? std::string(dir) : std::string();
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

std::string ReadAll(const std::string& path) { return Slurp(path); }

void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

Outcome RunGpugate(const std::vector<std::string>& args, const std::string& cwd,
                   const std::vector<std::string>& env) {
  std::string dir = MakeTempDir();
  std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  std::vector<std::string> argv_s = {GPUGATE_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  env_s.insert(env_s.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string where = cwd.empty() ? std::string(GPUGATE_SOURCE_DIR) : cwd;
  posix_spawn_file_actions_addchdir_np(&fa, where.c_str());
  pid_t pid = -1;
  Outcome o;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()) == 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&fa);
  o.out = Slurp(out_path);
  o.err = Slurp(err_path);
  RemoveTree(dir);
  return o;
}

}  // namespace gpugate::testing
