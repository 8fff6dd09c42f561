// Atomic, locked and in-place file writes (see file_write.h).
#include "util/file_write.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>
#include <vector>

#include "util/fs.h"

namespace gpugate {

namespace {

std::string Reason(int err) { return std::strerror(err); }

std::string SecondsText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

/// Closes a file descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(other.Release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) Reset(other.Release());
    return *this;
  }
  int get() const { return fd_; }
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void Reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

/// Writes all of `bytes`; returns 0 or the errno of the failed write.
int WriteAll(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

bool IsStderrPath(const std::string& path) {
  return path == "/dev/stderr" || path == "/dev/fd/2" || path == "/proc/self/fd/2";
}

Status WriteToStream(std::ostream& out, const char* name, std::string_view bytes) {
  errno = 0;
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) {
    int err = errno;
    // A reader that went away (`| head`) is not an error: main checks
    // standard output at the end and keeps the command's exit code.
    if (err == EPIPE && &out == &std::cout) return Status::Ok();
    return ToolError(std::string("cannot write to ") + name + (err != 0 ? ": " + Reason(err) : ""));
  }
  return Status::Ok();
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string JoinDir(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

/// "<base>.tmp.<digits>.XXXXXX" or "<base>.tmp.XXXXXX" (what mkstemp makes
/// of "<base>.tmp.[<pid>.]XXXXXX").
bool IsTempNameOf(const std::string& name, const std::string& base) {
  const std::string prefix = base + ".tmp.";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  std::string rest = name.substr(prefix.size());
  size_t dot = rest.find('.');
  if (dot != std::string::npos) {
    if (dot == 0) return false;
    for (size_t i = 0; i < dot; ++i)
      if (rest[i] < '0' || rest[i] > '9') return false;
    rest = rest.substr(dot + 1);
  }
  if (rest.size() != 6) return false;
  for (char c : rest)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

/// How long a FIFO output waits for a reader.
constexpr int kFifoReaderWaitSeconds = 60;

/// Written in place: the device, FIFO or socket stays what it is.
Status WriteInPlace(const std::string& path, const std::string& shown, std::string_view bytes) {
  // A FIFO without a reader would block the open forever (a CI step hangs
  // until its job times out): wait for a reader a bounded time instead.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kFifoReaderWaitSeconds);
    int raw = -1;
    while ((raw = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0 && errno == ENXIO &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (raw < 0 && errno == ENXIO)
      return ToolError(shown + ": a FIFO that no process read within " + std::to_string(kFifoReaderWaitSeconds) +
                       " s");
    if (raw < 0) return ToolError(shown + ": cannot open for writing: " + Reason(errno));
    Fd fifo(raw);
    ::fcntl(raw, F_SETFL, ::fcntl(raw, F_GETFL) & ~O_NONBLOCK);  // a reader: write as to any file
    if (int err = WriteAll(fifo.get(), bytes); err != 0) return ToolError(shown + ": write failed: " + Reason(err));
    if (::close(fifo.Release()) != 0) return ToolError(shown + ": write failed: " + Reason(errno));
    return Status::Ok();
  }
  Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return ToolError(shown + ": cannot open for writing: " + Reason(errno));
  if (int err = WriteAll(fd.get(), bytes); err != 0) return ToolError(shown + ": write failed: " + Reason(err));
  if (::close(fd.Release()) != 0) return ToolError(shown + ": write failed: " + Reason(errno));
  return Status::Ok();
}

}  // namespace

void (*detail::g_temp_created_hook)() = nullptr;

namespace {

/// Creates "<target>.tmp.<pid>.XXXXXX" beside `target` and takes its flock.
/// A concurrent RemoveStaleTempFiles may take the lock first and delete the
/// fresh file; then the name no longer refers to our inode and we retry.
Result<int> CreateLockedTemp(const std::string& target, const std::string& shown, std::string& tmp_name) {
  for (int attempt = 0; attempt < 10; ++attempt) {
    tmp_name = target + ".tmp." + std::to_string(::getpid()) + ".XXXXXX";
    int fd = ::mkostemp(tmp_name.data(), O_CLOEXEC);
    if (fd < 0) return ToolError(shown + ": cannot create temporary file: " + Reason(errno));
    if (detail::g_temp_created_hook) detail::g_temp_created_hook();
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    struct stat by_fd {}, by_name {};
    if (::fstat(fd, &by_fd) == 0 && ::lstat(tmp_name.c_str(), &by_name) == 0 && by_fd.st_dev == by_name.st_dev &&
        by_fd.st_ino == by_name.st_ino)
      return fd;
    ::close(fd);
  }
  return ToolError(shown + ": cannot create temporary file: it keeps disappearing");
}

/// Holds the signals a process receives from outside (SIGINT, SIGTERM, ...)
/// while a temp file exists but is not yet in the list a signal handler
/// removes (LiveTempFile): one that came between mkostemp() and the
/// registration left "<target>.tmp.<pid>.XXXXXX" behind. Faults stay
/// deliverable.
class OutsideSignalsHeld {
 public:
  OutsideSignalsHeld() {
    sigset_t held;
    sigfillset(&held);
    for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&held, fault);
    ok_ = ::pthread_sigmask(SIG_BLOCK, &held, &old_) == 0;
  }
  ~OutsideSignalsHeld() {
    if (ok_) ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  OutsideSignalsHeld(const OutsideSignalsHeld&) = delete;
  OutsideSignalsHeld& operator=(const OutsideSignalsHeld&) = delete;

 private:
  sigset_t old_{};
  bool ok_ = false;
};

/// A complete temp file beside its target, locked until renamed or removed,
/// and removed by a signal that ends gpugate before that.
struct StagedFile {
  std::string target, shown, tmp;
  Fd fd;
  LiveTempFile live;
};

/// Writes `bytes` into a temp file beside `target`, with the old file's
/// owner and mode, synced; nothing is replaced yet.
Result<StagedFile> Stage(const std::string& target, const std::string& shown, std::string_view bytes) {
  RemoveStaleTempFiles(target);
  struct stat old {};
  const bool existed = ::stat(target.c_str(), &old) == 0;
  StagedFile s{target, shown, "", Fd(-1), LiveTempFile()};
  {
    OutsideSignalsHeld held;  // from the file's creation to its registration
    Result<int> created = CreateLockedTemp(target, shown, s.tmp);
    if (!created.ok()) return created.error();
    s.fd = Fd(*created);
    s.live = LiveTempFile(s.tmp);
  }
  auto fail = [&](const std::string& what, int err) -> Error {
    ::unlink(s.tmp.c_str());  // while still locked: nobody else touches it
    return ToolError(shown + ": " + what + ": " + Reason(err));
  };
  if (int err = WriteAll(s.fd.get(), bytes); err != 0) return fail("write failed", err);
  if (::fsync(s.fd.get()) != 0) return fail("write failed (fsync)", errno);
  // mkstemp creates 0600: keep the old file's owner (where allowed) and
  // mode; new files are 0644.
  if (existed && ::fchown(s.fd.get(), old.st_uid, old.st_gid) != 0) {
    // Not root: the file becomes ours, as any rewrite would make it.
  }
  ::fchmod(s.fd.get(), existed ? (old.st_mode & 07777) : 0644);
  return s;
}

/// Renames a staged file into place.
Status Commit(StagedFile& s) {
  if (::rename(s.tmp.c_str(), s.target.c_str()) != 0) {
    const int err = errno;
    ::unlink(s.tmp.c_str());
    s.live.Release();
    return ToolError(s.shown + ": cannot rename into place: " + Reason(err));
  }
  s.live.Release();  // the name is the target's now: a signal must not remove it
  Fd dir(::open(DirName(s.target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) ::fsync(dir.get());
  return Status::Ok();  // the temp's lock goes with its descriptor
}

/// The atomic replacement of a regular (or new) file `target`.
Status ReplaceAtomically(const std::string& target, const std::string& shown, std::string_view bytes) {
  Result<StagedFile> staged = Stage(target, shown, bytes);
  if (!staged.ok()) return staged.error();
  return Commit(*staged);
}

}  // namespace

bool IsStdoutPath(const std::string& path) {
  return path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1";
}

std::string ResolveFinalSymlinks(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::vector<char> buf(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
    ssize_t n = ::readlink(current.c_str(), buf.data(), buf.size());
    if (n < 0 || static_cast<size_t>(n) >= buf.size()) return current;
    std::string link(buf.data(), static_cast<size_t>(n));
    current = link.front() == '/' ? link : JoinDir(DirName(current), link);
  }
  return current;  // a loop: the write fails with ELOOP-like errors later
}

int RemoveStaleTempFiles(const std::string& target) {
  const std::string dir = DirName(target);
  const std::string base = BaseName(target);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  std::vector<std::string> candidates;
  while (struct dirent* e = ::readdir(d))
    if (IsTempNameOf(e->d_name, base)) candidates.push_back(e->d_name);
  ::closedir(d);
  int removed = 0;
  for (const auto& name : candidates) {
    const std::string full = JoinDir(dir, name);
    Fd fd(::open(full.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) continue;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) continue;  // its writer is alive
    // Still the same file under that name (not replaced since we opened it)?
    struct stat now {};
    if (::lstat(full.c_str(), &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev) continue;
    if (::unlink(full.c_str()) == 0) ++removed;
  }
  return removed;
}

Status WriteFileAtomic(const std::string& path, std::string_view bytes) {
  if (IsStdoutPath(path)) return WriteToStream(std::cout, "standard output", bytes);
  if (IsStderrPath(path)) return WriteToStream(std::cerr, "standard error", bytes);
  if (path.empty()) return ToolError("cannot write a file with an empty name");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return ToolError(path + ": cannot write: it is a folder");
    if (!S_ISREG(st.st_mode)) return WriteInPlace(path, path, bytes);
  }
  return ReplaceAtomically(ResolveFinalSymlinks(path), path, bytes);
}

Status WriteFilesAtomic(const std::vector<std::pair<std::string, std::string>>& files) {
  // Every regular file is written to its temp first, then the streams and
  // devices get theirs, and only when all that succeeded are the temps
  // renamed into place. A failure before the renames leaves every old file
  // as it was.
  std::vector<StagedFile> staged;
  std::vector<const std::pair<std::string, std::string>*> in_place;
  for (const auto& file : files) {
    const std::string& path = file.first;
    struct stat st {};
    const bool special = IsStdoutPath(path) || IsStderrPath(path) ||
                         (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
    if (special || path.empty() || (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
      in_place.push_back(&file);  // WriteFileAtomic writes or refuses it below
      continue;
    }
    Result<StagedFile> s = Stage(ResolveFinalSymlinks(path), path, file.second);
    if (!s.ok()) {
      for (StagedFile& done : staged) ::unlink(done.tmp.c_str());
      return s.error();
    }
    staged.push_back(std::move(*s));
  }
  // Streams and devices cannot be staged: they are written before any
  // rename, so one that fails (a full device, a closed pipe) replaces none.
  for (const auto* file : in_place)
    if (Status st = WriteFileAtomic(file->first, file->second); !st.ok()) {
      for (StagedFile& done : staged) ::unlink(done.tmp.c_str());
      return st;
    }
  for (size_t i = 0; i < staged.size(); ++i)
    if (Status st = Commit(staged[i]); !st.ok()) {
      for (size_t j = i + 1; j < staged.size(); ++j) ::unlink(staged[j].tmp.c_str());  // no temp left behind
      return st;
    }
  return Status::Ok();
}

Status AppendToFileLocked(const std::string& path, std::string_view bytes, const std::string& what,
                          double lock_timeout_s) {
  const std::string shown = what + " '" + path + "'";
  Fd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644));
  if (fd.get() < 0) return ToolError(shown + ": cannot open for appending: " + Reason(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode)) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(lock_timeout_s);
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) break;  // no locking here (some network file systems)
      if (std::chrono::steady_clock::now() >= deadline)
        return ToolError(shown + ": timed out after " + SecondsText(lock_timeout_s) + " s waiting for its lock");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (int err = WriteAll(fd.get(), bytes); err != 0) return ToolError(shown + ": write failed: " + Reason(err));
  return Status::Ok();
}

Result<FileLock> FileLock::Acquire(const std::string& path, double timeout_s, const std::string& timeout_hint) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s < 0 ? 0 : timeout_s);
  auto pause = std::chrono::milliseconds(5);
  auto wait = [&]() -> bool {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(100)) pause *= 2;
    return true;
  };
  auto timed_out = [&]() {
    return ToolError(path + ": timed out after " + SecondsText(timeout_s) + " s waiting for the lock" +
                     (timeout_hint.empty() ? "" : " (" + timeout_hint + ")"));
  };
  for (;;) {
    int raw = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
    if (raw < 0) return ToolError(path + ": cannot open the lock file: " + Reason(errno));
    FileLock lock(raw, std::string());  // removes nothing until it holds the file at `path`
    bool held = false;
    while (!held) {
      if (::flock(raw, LOCK_EX | LOCK_NB) == 0) {
        held = true;
        break;
      }
      if (errno != EWOULDBLOCK && errno != EINTR) return ToolError(path + ": cannot lock: " + Reason(errno));
      if (!wait()) return timed_out();
    }
    // The holder before us removes the file as it lets go: the lock we hold
    // may be on a file no longer at `path`. Then try the file that is.
    struct stat held_st {}, path_st {};
    if (::fstat(raw, &held_st) == 0 && ::stat(path.c_str(), &path_st) == 0 && held_st.st_dev == path_st.st_dev &&
        held_st.st_ino == path_st.st_ino) {
      lock.path_ = path;
      return lock;
    }
  }
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
  other.path_.clear();
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
    other.path_.clear();
  }
  return *this;
}

// Removes the lock file while still holding the lock, so that no one can
// take a lock on it afterwards (a waiter that opened it before checks that
// it is still the file at the path), and nothing is left beside the file.
void FileLock::Release() {
  if (fd_ < 0) return;
  if (!path_.empty()) ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

FileLock::~FileLock() { Release(); }

}  // namespace gpugate
