// Bounded whole-file reads, temporary folders and path parts.
#include "util/fs.h"


#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace gpugate {

namespace {

/// "256 MiB", "1.5 MiB" or "1000 bytes".
std::string LimitText(int64_t limit) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  if (limit >= kMiB && limit % kMiB == 0) return std::to_string(limit / kMiB) + " MiB";
  if (limit >= kMiB) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(limit) / kMiB);
    return buf;
  }
  return std::to_string(limit) + " bytes";
}

/// A positive byte count: digits with an optional K, M or G (binary) suffix.
std::optional<int64_t> ParseByteCount(std::string_view text) {
  int shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
    if (shift) text.remove_suffix(1);
  }
  if (text.empty() || text.size() > 15) return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v <= 0 || v > (int64_t{1} << (62 - shift))) return std::nullopt;
  return v << shift;
}

}  // namespace

Result<int64_t> MaxInputBytes(InputKind kind) {
  const char* env = std::getenv(kMaxInputBytesVariable);
  if (env != nullptr && *env != '\0') {
    std::optional<int64_t> v = ParseByteCount(env);
    if (!v)
      return InputError(std::string(kMaxInputBytesVariable) + "='" + env +
                        "': expected a positive number of bytes (a K, M or G suffix allowed)");
    return *v;
  }
  return kind == InputKind::kConfig ? kDefaultMaxConfigBytes : kDefaultMaxDataBytes;
}

std::string InputLimitText(int64_t limit) {
  return "the " + LimitText(limit) + " input limit (set " + kMaxInputBytesVariable + ")";
}

Error InputTooLarge(const std::string& path, int64_t limit) {
  return InputError(path + ": larger than " + InputLimitText(limit));
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Result<std::string> ReadWorkloadFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return InputError(path + ": not a regular file (a FIFO, device or folder): a workload reads "
                             "only regular files, which cannot block the run");
  return ReadFile(path, InputKind::kData);
}

namespace {

/// Reads until the end or until `limit` bytes are exceeded; false with errno
/// set on a read error. Appends to `out`, which holds at most limit + 1 bytes.
bool ReadRegular(int fd, size_t limit, std::string* out) {
  size_t size = 0;
  while (true) {
    if (size == out->size()) {
      if (size > limit) break;
      out->resize(std::min(size + std::max<size_t>(size, 64 * 1024), limit + 1));
    }
    ssize_t n = ::read(fd, out->data() + size, out->size() - size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) break;
    size += static_cast<size_t>(n);
  }
  out->resize(size);
  return true;
}

/// The same for a stream (FIFO, device): chunks that are never zero-filled
/// or copied while they grow, joined once at the end.
bool ReadStream(int fd, size_t limit, std::string* out, bool* too_large) {
  constexpr size_t kChunk = size_t{4} << 20;
  std::vector<std::pair<std::unique_ptr<char[]>, size_t>> chunks;
  size_t total = 0;
  while (total <= limit) {
    if (chunks.empty() || chunks.back().second == kChunk)
      chunks.emplace_back(std::unique_ptr<char[]>(new char[kChunk]), 0);
    auto& [data, used] = chunks.back();
    const size_t want = std::min(kChunk - used, limit + 1 - total);
    ssize_t n = ::read(fd, data.get() + used, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
    total += static_cast<size_t>(n);
  }
  if (total > limit) {
    *too_large = true;
    return true;
  }
  out->clear();
  out->reserve(total);
  for (const auto& [data, used] : chunks) out->append(data.get(), used);
  return true;
}

}  // namespace

Error CannotOpen(const std::string& path, int err) {
  std::string text = path + ": cannot open: " + std::strerror(err);
  if (path == "-" && err == ENOENT) text += " (inputs are files; to read standard input give /dev/stdin)";
  return InputError(text);
}

Result<std::string> ReadFile(const std::string& path, InputKind kind) {
  Result<int64_t> limit_or = MaxInputBytes(kind);
  if (!limit_or.ok()) return limit_or.error();
  const size_t limit = static_cast<size_t>(*limit_or);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return CannotOpen(path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return InputError(path + ": cannot read: " + std::strerror(e));
  }
  std::string out;
  bool ok = true;
  bool too_large = false;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<uint64_t>(st.st_size) > limit) {
      ::close(fd);
      return InputTooLarge(path, static_cast<int64_t>(limit));
    }
    out.resize(static_cast<size_t>(st.st_size) + 1);  // + 1: sees a file that grew
    ok = ReadRegular(fd, limit, &out);
  } else {
    ok = ReadStream(fd, limit, &out, &too_large);
  }
  const int e = errno;
  ::close(fd);
  if (!ok) return InputError(path + ": read failed: " + std::strerror(e));
  if (too_large || out.size() > limit) return InputTooLarge(path, static_cast<int64_t>(limit));
  return out;
}

std::string FileStem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return base;
}

std::string DataFileStem(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (base.size() > 3 && base.ends_with(".gz")) base.resize(base.size() - 3);
  return FileStem(base);
}

std::string ProgramName(const std::string& path) {
  const size_t end = path.find_last_not_of("/\\");
  if (end == std::string::npos) return "";
  const std::string trimmed = path.substr(0, end + 1);
  const size_t sep = trimmed.find_last_of("/\\");
  std::string base = sep == std::string::npos ? trimmed : trimmed.substr(sep + 1);
  if (base.size() > 4) {
    std::string suffix = base.substr(base.size() - 4);
    for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (suffix == ".exe") base.resize(base.size() - 4);
  }
  return base;
}

std::string DirName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

namespace {

// The live temporary folders and files, in fixed slots a signal handler may
// read: state 0 free, 1 being filled, 2 holds a folder's path, 3 a file's.
// Workloads run one at a time and a write stages one file per output, so a
// few slots are plenty; a folder or file that finds none is still removed by
// its owner, only not by a signal.
constexpr int kTempSlots = 32;
constexpr int kSlotFolder = 2;
constexpr int kSlotFile = 3;
struct TempSlot {
  std::atomic<int> state{0};
  char path[4096];
};
TempSlot g_temp_slots[kTempSlots];

int ClaimTempSlot(const std::string& path, int kind) {
  if (path.size() >= sizeof(TempSlot::path)) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = 0;
    if (!g_temp_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_temp_slots[i].path, path.c_str(), path.size() + 1);
    g_temp_slots[i].state.store(kind);
    return i;
  }
  return -1;
}

// Removes what the folder open at `fd` holds, folders `depth` levels deep
// included (16 levels in the handler), with async-signal-safe calls only (getdents64, unlinkat,
// openat, close, lseek): a benchmark program's JSON, cachegrind's output,
// nvbench's --jsonbin folder beside its JSON. A pass that removed something
// is followed by another from the start, since removing entries while
// reading a folder may hide others from that read.
void RemoveEntries(int fd, int depth) {
  for (int pass = 0; pass < 8; ++pass) {
    bool removed = false;
    ::lseek(fd, 0, SEEK_SET);
    alignas(8) char buf[2048];
    for (;;) {
      const ssize_t n = ::getdents64(fd, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buf + at);
        at += entry->d_reclen;
        const char* name = entry->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        if (::unlinkat(fd, name, 0) == 0) {
          removed = true;
          continue;
        }
        if (depth <= 0) continue;
        const int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) continue;
        RemoveEntries(sub, depth - 1);
        ::close(sub);
        removed = ::unlinkat(fd, name, AT_REMOVEDIR) == 0 || removed;
      }
    }
    if (!removed) break;
  }
}

void RemoveTreeFromSignal(const char* dir) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    RemoveEntries(fd, 16);
    ::close(fd);
  }
  ::rmdir(dir);
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) != nullptr) {
    path_ = pattern;
    slot_ = ClaimTempSlot(path_, kSlotFolder);
  }
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  if (slot_ >= 0) g_temp_slots[slot_].state.store(0);
}

LiveTempFile::LiveTempFile(const std::string& path) : slot_(ClaimTempSlot(path, kSlotFile)) {}

LiveTempFile& LiveTempFile::operator=(LiveTempFile&& other) noexcept {
  if (this != &other) {
    Release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void LiveTempFile::Release() {
  if (slot_ >= 0) g_temp_slots[slot_].state.store(0);
  slot_ = -1;
}

void RemoveLiveTemps() {
  for (TempSlot& slot : g_temp_slots) {
    const int state = slot.state.load();
    if (state == kSlotFile) ::unlink(slot.path);
    if (state != kSlotFolder) continue;
    std::error_code ec;
    std::filesystem::remove_all(slot.path, ec);
  }
}

void RemoveLiveTempsFromSignal() {
  for (TempSlot& slot : g_temp_slots) {
    const int state = slot.state.load();
    if (state == kSlotFolder) RemoveTreeFromSignal(slot.path);
    if (state == kSlotFile) ::unlink(slot.path);
  }
}

}  // namespace gpugate
