// Streaming Chrome/Kineto trace reader: a buffered byte source (file, memory,
// or zlib inflate over either), a RapidJSON-compatible input stream over it,
// and a SAX handler that turns the token stream into TraceEvent records.
#include "trace/trace_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <unordered_set>
#include <vector>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "util/fs.h"
#include "util/gzip.h"
#include "util/json.h"
#include "util/json_writer.h"
#include "util/strings.h"

namespace gpugate {

const char* ToString(TraceCategory c) {
  switch (c) {
    case TraceCategory::kNone: return "none";
    case TraceCategory::kKernel: return "kernel";
    case TraceCategory::kGpuMemcpy: return "gpu_memcpy";
    case TraceCategory::kGpuMemset: return "gpu_memset";
    case TraceCategory::kCudaRuntime: return "cuda_runtime";
    case TraceCategory::kCudaDriver: return "cuda_driver";
    case TraceCategory::kCudaSync: return "cuda_sync";
    case TraceCategory::kCpuOp: return "cpu_op";
    case TraceCategory::kPythonFunction: return "python_function";
    case TraceCategory::kUserAnnotation: return "user_annotation";
    case TraceCategory::kGpuUserAnnotation: return "gpu_user_annotation";
    case TraceCategory::kAc2g: return "ac2g";
    case TraceCategory::kCpuInstantEvent: return "cpu_instant_event";
    case TraceCategory::kUnknown: return "unknown";
  }
  return "unknown";
}

namespace {
/// `s` equals the literal: memcmp over the literal's constant length, which
/// the compiler turns into a few loads and compares instead of a call.
template <size_t N>
__attribute__((always_inline)) inline bool SvIs(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}
}  // namespace

TraceCategory CategoryFromString(std::string_view s) {
  switch (s.size()) {
    case 0: return TraceCategory::kNone;
    case 4:
      if (SvIs(s, "ac2g")) return TraceCategory::kAc2g;
      break;
    // Kineto of PyTorch 1.8 and 1.9 wrote Kernel, Memcpy, Memset, Runtime
    // and Operator.
    case 6:
      if (SvIs(s, "kernel")) return TraceCategory::kKernel;
      if (SvIs(s, "cpu_op")) return TraceCategory::kCpuOp;
      if (SvIs(s, "Kernel")) return TraceCategory::kKernel;
      if (SvIs(s, "Memcpy")) return TraceCategory::kGpuMemcpy;
      if (SvIs(s, "Memset")) return TraceCategory::kGpuMemset;
      break;
    case 7:
      if (SvIs(s, "Runtime")) return TraceCategory::kCudaRuntime;
      break;
    case 8:
      if (SvIs(s, "Operator")) return TraceCategory::kCpuOp;
      break;
    case 9:
      if (SvIs(s, "cuda_sync")) return TraceCategory::kCudaSync;
      break;
    case 10:
      if (SvIs(s, "gpu_memcpy")) return TraceCategory::kGpuMemcpy;
      if (SvIs(s, "gpu_memset")) return TraceCategory::kGpuMemset;
      break;
    case 11:
      if (SvIs(s, "cuda_driver")) return TraceCategory::kCudaDriver;
      break;
    case 12:
      if (SvIs(s, "cuda_runtime")) return TraceCategory::kCudaRuntime;
      break;
    case 15:
      if (SvIs(s, "python_function")) return TraceCategory::kPythonFunction;
      if (SvIs(s, "user_annotation")) return TraceCategory::kUserAnnotation;
      break;
    case 16:
      if (SvIs(s, "async_cpu_to_gpu")) return TraceCategory::kAc2g;
      break;
    case 17:
      if (SvIs(s, "cpu_instant_event")) return TraceCategory::kCpuInstantEvent;
      break;
    case 19:
      if (SvIs(s, "gpu_user_annotation")) return TraceCategory::kGpuUserAnnotation;
      break;
    default: break;
  }
  return TraceCategory::kUnknown;
}

namespace {

/// What the JSON parser learns about a number while it finds its end: for
/// the common [-]digits[.digits] with at most 19 digits (they fit in 64
/// bits), the digits as one integer. `digits == 0` means "not known: read
/// the text" (an exponent, more digits, or a number read across a refill).
struct NumberDigits {
  uint64_t mant = 0;
  int digits = 0;     ///< digits written, leading zeros included
  int frac = -1;      ///< digits after the '.', -1 without one
  bool negative = false;
};

constexpr uint64_t kPow10[] = {1,       10,       100,       1000,       10000,      100000,
                               1000000, 10000000, 100000000, 1000000000, 10000000000ULL};

/// Microseconds to nanoseconds from known digits; false when the general
/// path must decide (more than 13 fraction digits).
__attribute__((always_inline)) inline bool MicrosDigitsToNanos(const NumberDigits& d, std::optional<int64_t>* out) {
  const int f = d.frac < 0 ? 0 : d.frac;
  uint64_t ns;
  if (f <= 3) {
    if (__builtin_mul_overflow(d.mant, kPow10[3 - f], &ns)) {
      *out = std::nullopt;
      return true;
    }
  } else if (f - 3 <= 10) {
    const uint64_t div = kPow10[f - 3];
    ns = d.mant / div;
    if ((d.mant / (div / 10)) % 10 >= 5) ++ns;  // the first digit dropped rounds
  } else {
    return false;
  }
  if (ns > static_cast<uint64_t>(INT64_MAX)) {
    *out = std::nullopt;
    return true;
  }
  *out = d.negative ? -static_cast<int64_t>(ns) : static_cast<int64_t>(ns);
  return true;
}

/// Whether `pid` is the process PyTorch's legacy exporter names for
/// `device` ("CPU" or "CUDA"): "<device> functions" from Python, "<device>
/// Functions" from libtorch's C++ writer.
bool IsLegacyProcess(std::string_view pid, std::string_view device) {
  if (pid.size() != device.size() + 10 || !pid.starts_with(device)) return false;
  const std::string_view rest = pid.substr(device.size());
  return rest == " functions" || rest == " Functions";
}

}  // namespace

std::optional<int64_t> MicrosTextToNanos(std::string_view text) {
  // Fast path, the common case: [-]digits[.digits] with at most 19 digits
  // (they fit in 64 bits). Same result as the general path below.
  {
    NumberDigits d;
    size_t i = 0;
    d.negative = !text.empty() && text[0] == '-';
    if (d.negative) ++i;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (c >= '0' && c <= '9') {
        d.mant = d.mant * 10 + static_cast<uint64_t>(c - '0');
        ++d.digits;
        if (d.frac >= 0) ++d.frac;
      } else if (c == '.' && d.frac < 0) {
        d.frac = 0;
      } else {
        break;
      }
    }
    std::optional<int64_t> out;
    if (i == text.size() && d.digits > 0 && d.digits <= 19 && d.frac != 0 && MicrosDigitsToNanos(d, &out))
      return out;
  }
  // value = digits * 10^exp10 microseconds; ns = digits * 10^(exp10 + 3).
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  unsigned __int128 mant = 0;
  int exp10 = 0;
  int digits = 0;
  bool any = false, round_up = false, dropped = false;
  auto take = [&](char c, bool fraction) {
    any = true;
    if (digits < 36) {
      if (mant != 0 || c != '0') ++digits;
      mant = mant * 10 + static_cast<unsigned>(c - '0');
      if (fraction) --exp10;
    } else {
      if (!dropped) round_up = c >= '5';
      dropped = true;
      if (!fraction) ++exp10;
    }
  };
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) take(text[i], false);
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) take(text[i], true);
  }
  if (!any) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    // JSON allows a sign either way ("1e+3", what printf's %e writes).
    bool e_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) e_negative = text[i++] == '-';
    if (i == text.size()) return std::nullopt;
    int e = 0;  // clamped: beyond 1000 the value is 0 or out of range anyway
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) e = std::min(1000, e * 10 + (text[i] - '0'));
    if (i != text.size()) return std::nullopt;
    if (mant == 0) return 0;  // 0e99999 is 0
    if (e > 100) return e_negative ? std::optional<int64_t>(0) : std::nullopt;
    exp10 += e_negative ? -e : e;
  }
  if (i != text.size()) return std::nullopt;
  if (round_up) ++mant;  // only when more than 36 digits were written
  int shift = exp10 + 3;
  constexpr unsigned __int128 kMax = static_cast<unsigned __int128>(INT64_MAX);
  if (shift >= 0) {
    for (int k = 0; k < shift; ++k) {
      mant *= 10;
      if (mant > kMax) return std::nullopt;
    }
  } else {
    unsigned rem_first = 0;
    for (int k = 0; k < -shift; ++k) {
      rem_first = static_cast<unsigned>(mant % 10);
      mant /= 10;
      if (mant == 0 && k + 1 < -shift) {
        rem_first = 0;
        break;
      }
    }
    if (rem_first >= 5) ++mant;
  }
  if (mant > kMax) return std::nullopt;
  int64_t v = static_cast<int64_t>(mant);
  return negative ? -v : v;
}

namespace {

// ---------------------------------------------------------------------------
// Byte sources.

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Fills up to `cap` bytes; 0 at the end of data or on error (see error()).
  virtual size_t Read(char* buf, size_t cap) = 0;
  const std::string& error() const { return error_; }
  /// The error is the input size limit (no byte count to add).
  bool too_large() const { return too_large_; }
  /// Bytes handed out so far (decompressed bytes, for a gzip stream).
  size_t total() const { return total_; }

 protected:
  /// Counts `n` more bytes against `limit_`; false (error set) beyond it.
  bool Count(size_t n, const char* what) {
    total_ += n;
    if (limit_ == 0 || total_ <= limit_) return true;
    error_ = std::string(what) + " " + InputLimitText(static_cast<int64_t>(limit_));
    too_large_ = true;
    return false;
  }

  std::string error_;
  size_t limit_ = 0;  // 0: no limit (bytes already in memory)
  size_t total_ = 0;
  bool too_large_ = false;
};

class FileSource : public ByteSource {
 public:
  FileSource(int fd, size_t limit) : fd_(fd) { limit_ = limit; }
  ~FileSource() override {
    if (fd_ >= 0) ::close(fd_);
  }
  size_t Read(char* buf, size_t cap) override {
    if (too_large_) return 0;
    size_t done = ReadSome(buf, cap);
    if (!Count(done, "larger than")) return 0;
    return done;
  }

 private:
  size_t ReadSome(char* buf, size_t cap) {
    size_t done = 0;
    while (done < cap) {
      ssize_t n = ::read(fd_, buf + done, cap - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = std::string("read failed: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    return done;
  }

  int fd_;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t Read(char* buf, size_t cap) override {
    size_t n = std::min(cap, bytes_.size() - pos_);
    std::memcpy(buf, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

/// Inflates a gzip stream (util/gzip.h) pulled from another source.
class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> in, size_t limit)
      : in_(std::move(in)), inflater_([this](char* buf, size_t cap) { return in_->Read(buf, cap); }) {
    limit_ = limit;
  }

  size_t Read(char* buf, size_t cap) override {
    if (!error_.empty()) return 0;
    size_t produced = inflater_.Read(buf, cap);
    if (!in_->error().empty()) {  // the file's own error, not the stream's
      error_ = in_->error();
      too_large_ = in_->too_large();
      return 0;
    }
    if (!Count(produced, "decompresses to more than")) return 0;
    // The bytes inflated before a truncated or corrupt stream ends are
    // data; the error is seen with them.
    if (!inflater_.error().empty()) error_ = inflater_.error();
    return produced;
  }

 private:
  std::unique_ptr<ByteSource> in_;
  GzipInflater inflater_;
};

/// Where the bytes come from: a path or memory. Opens fresh sources (the error
/// path re-reads the start of the data to turn an offset into line:col).
struct Origin {
  std::string name;
  const std::string* path = nullptr;
  std::string_view bytes;
  size_t limit = 0;  ///< input size limit (file bytes and decompressed bytes)

  Result<bool> IsGzip() const {
    if (path) {
      char magic[2] = {0, 0};
      int fd = ::open(path->c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return CannotOpen(name, errno);
      ssize_t n = ::pread(fd, magic, 2, 0);
      ::close(fd);
      return HasGzipMagic(std::string_view(magic, n == 2 ? 2 : 0));
    }
    return HasGzipMagic(bytes);
  }

  Result<std::unique_ptr<ByteSource>> Open(bool gzip) const {
    std::unique_ptr<ByteSource> raw;
    if (path) {
      int fd = ::open(path->c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return CannotOpen(name, errno);
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
      raw = std::make_unique<FileSource>(fd, limit);
    } else {
      raw = std::make_unique<MemorySource>(bytes);
    }
    if (gzip) return std::unique_ptr<ByteSource>(std::make_unique<GzipSource>(std::move(raw), limit));
    return raw;
  }
};

// ---------------------------------------------------------------------------
// RapidJSON input stream over a ByteSource. A '\0' sentinel after the valid
// bytes lets Peek() be a plain load; '\0' also means "end" to RapidJSON.

class TraceStream {
 public:
  using Ch = char;
  static constexpr size_t kChunk = size_t{1} << 18;

  explicit TraceStream(ByteSource* source) : source_(source), buf_(kChunk + 64) { Fill(); }

  /// Absolute offset of the next unread byte.
  size_t Tell() const { return base_ + pos_; }
  bool AtEnd() const { return eof_ && pos_ >= len_; }
  /// Every byte of the input is in the buffer.
  bool AtEndOfInput() const { return eof_; }

  // The parser works on buf_[pos_, len_), calling More() when it runs out.
  const char* data() const { return buf_.data(); }
  size_t pos_ = 0, len_ = 0;

  /// Reads more input, keeping buf_[keep, len_) (moved to the front; `keep`
  /// and pos_ are adjusted by the same amount). False at the end of input.
  bool More(size_t& keep) {
    if (eof_) return false;
    if (keep > 0) {
      std::memmove(buf_.data(), buf_.data() + keep, len_ - keep);
      base_ += keep;
      len_ -= keep;
      pos_ -= keep;
      keep = 0;
    }
    if (buf_.size() - len_ < kChunk / 2) buf_.resize(std::max(buf_.size() * 2, len_ + kChunk + 64));
    size_t n = source_->Read(buf_.data() + len_, buf_.size() - len_ - 1);
    if (n == 0) {
      eof_ = true;
      buf_[len_] = '\0';
      return false;
    }
    len_ += n;
    buf_[len_] = '\0';
    return true;
  }

 private:
  void Fill() {
    size_t keep = 0;
    More(keep);
  }

  ByteSource* source_;
  std::vector<char> buf_;
  size_t base_ = 0;
  bool eof_ = false;
};


// ---------------------------------------------------------------------------
// Number helpers (numbers arrive as text: kParseNumbersAsStringsFlag).

std::optional<int64_t> ParseInt(std::string_view s) {
  // Fast path: [-]digits, at most 18 of them.
  if (!s.empty() && s.size() <= 19) {
    size_t i = s[0] == '-' ? 1 : 0;
    if (i < s.size() && s.size() - i <= 18) {
      int64_t u = 0;
      for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) u = u * 10 + (s[i] - '0');
      if (i == s.size()) return s[0] == '-' ? -u : u;
    }
  }
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && p == s.data() + s.size()) return v;
  double d = 0;
  auto [p2, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec2 == std::errc() && p2 == s.data() + s.size() && std::isfinite(d) &&
      std::fabs(d) < 9.2e18)
    return static_cast<int64_t>(std::llround(d));
  return std::nullopt;
}

std::optional<double> ParseDouble(std::string_view s) {
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec == std::errc() && p == s.data() + s.size()) return d;
  return std::nullopt;
}

/// ParseInt and ParseDouble from the digits the parser saw, where they
/// decide; otherwise from the text. The same results either way.
__attribute__((always_inline)) inline std::optional<int64_t> IntOf(const NumberDigits& d, std::string_view text) {
  if (d.digits > 0 && d.digits <= 18 && d.frac < 0) {
    const auto v = static_cast<int64_t>(d.mant);
    return d.negative ? -v : v;
  }
  return ParseInt(text);
}

__attribute__((always_inline)) inline std::optional<double> DoubleOf(const NumberDigits& d, std::string_view text) {
  // Exact operands and one correctly rounded division give the correctly
  // rounded value (Clinger 1990), as from_chars does.
  constexpr uint64_t kExact = uint64_t{1} << 53;
  if (d.digits > 0 && d.mant <= kExact && d.frac <= 10) {
    double v = static_cast<double>(d.mant);
    if (d.frac > 0) v /= static_cast<double>(kPow10[d.frac]);
    return d.negative ? -v : v;
  }
  return ParseDouble(text);
}

__attribute__((always_inline)) inline std::optional<int64_t> NanosOf(const NumberDigits& d, std::string_view text) {
  std::optional<int64_t> out;
  if (d.digits > 0 && MicrosDigitsToNanos(d, &out)) return out;
  return MicrosTextToNanos(text);
}

// ---------------------------------------------------------------------------
// SAX handler.

// Limits (docs/trace.md, docs/safety.md "Inputs"): the reader's memory is one
// event, so these bound time and the few per-trace tables.
constexpr int64_t kMaxTraceEvents = 20000000;
constexpr size_t kMaxTraceDevices = 4096;
// Each device of [memory] events keeps a memory chart (about 80 KB).
constexpr size_t kMaxMemoryDevices = 256;
constexpr size_t kMaxTraceDepth = 512;
// Names and args are copied into the analyses' tables: one string (a kernel
// name, an args value) is at most this long.
constexpr size_t kMaxTraceString = size_t{1} << 20;
constexpr int64_t kMaxDurationNs = 1000000000000000000;  // 1e9 s
// |ts| at most 4e9 s (epoch microseconds up to the year 2096); with every
// timed event within 1e9 s of the first, |dur| under 1e9 s and the durations
// summed under 4e9 s, no end, span or total of the analyses overflows 64-bit
// nanoseconds.
constexpr int64_t kMaxTsNs = 4000000000000000000;
// Bytes of one copy, allocation or memory total: 2^38 (256 GiB, more than a
// GPU holds), so the sum over 20,000,000 events stays within 64 bits.
constexpr int64_t kMaxArgBytes = int64_t{1} << 38;
constexpr int64_t kMaxMemoryBytes = int64_t{1} << 50;  // [memory] sizes and totals: not summed

template <typename T>
std::optional<T> InRange(std::optional<T> v, double lo, double hi) {
  if (!v || !(static_cast<double>(*v) >= lo && static_cast<double>(*v) <= hi)) return std::nullopt;
  return v;
}

enum class Frame : uint8_t { kRoot, kEvents, kEvent, kArgs, kArgDims, kDevices, kDevice, kDist, kSkip };

enum class RootKey : uint8_t { kOther, kTraceEvents, kDeviceProperties, kDistributedInfo,
                               kDisplayTimeUnit, kSchemaVersion, kTraceName };
enum class EventKey : uint8_t { kOther, kPh, kCat, kName, kTs, kDur, kPid, kTid, kId, kArgs, kScope };
enum class ArgKey : uint8_t { kOther, kCorrelation, kExternalId, kStream, kDevice, kGrid, kBlock,
                              kRegisters, kSharedMemory, kOccupancy, kBytes, kBandwidth,
                              kMemBytes, kTotalAllocated, kTotalReserved, kDeviceId, kDeviceType };
enum class DeviceKey : uint8_t { kOther, kId, kName, kTotalGlobalMem, kMajor, kMinor, kNumSms,
                                 kMaxThreads, kRegs, kSharedMem, kWarpSize };
enum class DistKey : uint8_t { kOther, kRank, kWorldSize, kBackend };

#define GPUGATE_KEY_IS(lit) SvIs(std::string_view(s, n), lit)

/// The spelling of a key LookupEventKey knows (for messages).
const char* EventKeyText(EventKey k) {
  switch (k) {
    case EventKey::kPh: return "ph";
    case EventKey::kCat: return "cat";
    case EventKey::kName: return "name";
    case EventKey::kTs: return "ts";
    case EventKey::kDur: return "dur";
    case EventKey::kPid: return "pid";
    case EventKey::kTid: return "tid";
    case EventKey::kId: return "id";
    case EventKey::kArgs: return "args";
    case EventKey::kScope: return "s";
    default: return "?";
  }
}

EventKey LookupEventKey(const char* s, size_t n) {
  switch (n) {
    case 1:
      if (s[0] == 's') return EventKey::kScope;
      break;
    case 2:
      if (GPUGATE_KEY_IS("ph")) return EventKey::kPh;
      if (GPUGATE_KEY_IS("ts")) return EventKey::kTs;
      if (GPUGATE_KEY_IS("id")) return EventKey::kId;
      break;
    case 3:
      if (GPUGATE_KEY_IS("cat")) return EventKey::kCat;
      if (GPUGATE_KEY_IS("dur")) return EventKey::kDur;
      if (GPUGATE_KEY_IS("pid")) return EventKey::kPid;
      if (GPUGATE_KEY_IS("tid")) return EventKey::kTid;
      break;
    case 4:
      if (GPUGATE_KEY_IS("name")) return EventKey::kName;
      if (GPUGATE_KEY_IS("args")) return EventKey::kArgs;
      break;
    default: break;
  }
  return EventKey::kOther;
}

ArgKey LookupArgKey(const char* s, size_t n) {
  switch (n) {
    case 4:
      if (GPUGATE_KEY_IS("grid")) return ArgKey::kGrid;
      break;
    case 5:
      if (GPUGATE_KEY_IS("block")) return ArgKey::kBlock;
      if (GPUGATE_KEY_IS("bytes")) return ArgKey::kBytes;
      if (GPUGATE_KEY_IS("Bytes")) return ArgKey::kMemBytes;
      break;
    case 6:
      if (GPUGATE_KEY_IS("stream")) return ArgKey::kStream;
      if (GPUGATE_KEY_IS("device")) return ArgKey::kDevice;
      break;
    case 9:
      if (GPUGATE_KEY_IS("Device Id")) return ArgKey::kDeviceId;
      break;
    case 11:
      if (GPUGATE_KEY_IS("correlation")) return ArgKey::kCorrelation;
      if (GPUGATE_KEY_IS("External id")) return ArgKey::kExternalId;
      if (GPUGATE_KEY_IS("Device Type")) return ArgKey::kDeviceType;
      break;
    case 13:
      if (GPUGATE_KEY_IS("shared memory")) return ArgKey::kSharedMemory;
      break;
    case 14:
      if (GPUGATE_KEY_IS("Total Reserved")) return ArgKey::kTotalReserved;
      break;
    case 15:
      if (GPUGATE_KEY_IS("Total Allocated")) return ArgKey::kTotalAllocated;
      break;
    case 20:
      if (GPUGATE_KEY_IS("registers per thread")) return ArgKey::kRegisters;
      break;
    case 23:
      if (GPUGATE_KEY_IS("memory bandwidth (GB/s)")) return ArgKey::kBandwidth;
      break;
    case 25:
      if (GPUGATE_KEY_IS("est. achieved occupancy %")) return ArgKey::kOccupancy;
      break;
    default: break;
  }
  return ArgKey::kOther;
}

#undef GPUGATE_KEY_IS

class Handler {
 public:
  using Ch = char;
  Handler(TraceEventSink& sink, TraceInfo& info, TraceStream& stream)
      : sink_(sink), info_(info), stream_(stream), capture_args_(sink.WantsArgsJson()),
        writer_(args_buffer_) {
    stack_.reserve(16);
  }

  const std::string& error() const { return error_; }
  size_t error_offset() const { return error_offset_; }
  bool saw_events() const { return saw_events_; }

  // --- scalars -------------------------------------------------------------
  bool Null() {
    if (capture_depth_) writer_.Null();
    return Scalar("null", "null", false, false);
  }
  bool Bool(bool b) {
    if (capture_depth_) writer_.Bool(b);
    return Scalar("bool", b ? "true" : "false", false, false);
  }
  bool Int(int) { return true; }
  bool Uint(unsigned) { return true; }
  bool Int64(int64_t) { return true; }
  bool Uint64(uint64_t) { return true; }
  bool Double(double) { return true; }
  bool RawNumber(const Ch* s, rapidjson::SizeType n, bool) { return Number(s, n, NumberDigits{}); }
  /// A number whose digits the parser may already know (`d.digits > 0`).
  bool Number(const Ch* s, rapidjson::SizeType n, const NumberDigits& d) {
    if (capture_depth_) writer_.RawValue(s, n, rapidjson::kNumberType);
    num_ = d;
    return Scalar("number", std::string_view(s, n), false, true);
  }
  bool String(const Ch* s, rapidjson::SizeType n, bool) {
    if (n > kMaxTraceString)
      return TooLong("a string", n);
    if (capture_depth_) CaptureText(s, n, /*key=*/false);
    return Scalar("string", std::string_view(s, n), true, false);
  }

  // The captured args are copied into the timeline: a string or key of
  // invalid UTF-8 is repaired there (U+FFFD), as every name is, so that the
  // file stays JSON.
  void CaptureText(const Ch* s, rapidjson::SizeType n, bool key) {
    const std::string_view text(s, n);
    if (ValidUtf8Prefix(text) == text.size()) {
      key ? writer_.Key(s, n) : writer_.String(s, n);
      return;
    }
    const std::string repaired = RepairUtf8(text);
    const auto size = static_cast<rapidjson::SizeType>(repaired.size());
    key ? writer_.Key(repaired.data(), size, true) : writer_.String(repaired.data(), size, true);
  }

  // --- containers ----------------------------------------------------------
  bool StartObject() {
    if (capture_depth_) {
      writer_.StartObject();
      ++capture_depth_;
    }
    if (stack_.empty()) return Push(Frame::kRoot);
    switch (stack_.back()) {
      case Frame::kRoot:
        if (root_key_ == RootKey::kDistributedInfo) {
          dist_seen_ = 0;
          return Push(Frame::kDist);
        }
        if (root_key_ == RootKey::kTraceEvents) return Fail("traceEvents: expected an array, got object", 1);
        return Push(Frame::kSkip);
      case Frame::kEvents:
        ResetEvent();
        return Push(Frame::kEvent);
      case Frame::kEvent:
        if (event_key_ == EventKey::kArgs) {
          event_.has_args = true;
          args_seen_ = 0;
          if (capture_args_) {
            args_buffer_.Clear();
            writer_.Reset(args_buffer_);
            writer_.StartObject();
            capture_depth_ = 1;
          }
          return Push(Frame::kArgs);
        }
        if (event_key_ != EventKey::kOther) return WrongType("object", 1);
        return Push(Frame::kSkip);
      case Frame::kDevices:
        if (info_.devices.size() >= kMaxTraceDevices)
          return Fail("deviceProperties: more than " + std::to_string(kMaxTraceDevices) + " devices", 1);
        info_.devices.emplace_back();
        device_seen_ = 0;
        return Push(Frame::kDevice);
      default:
        return Push(Frame::kSkip);
    }
  }

  bool Key(const Ch* s, rapidjson::SizeType n, bool) {
    if (n > kMaxTraceString)
      return TooLong("a key", n);
    if (capture_depth_) CaptureText(s, n, /*key=*/true);
    // A key the reader uses must appear once per object (the readers of
    // other tools disagree on which of two would count).
    bool repeated = false;
    switch (stack_.back()) {
      case Frame::kRoot:
        root_key_ = LookupRootKey(std::string_view(s, n));
        repeated = Seen(&root_seen_, static_cast<unsigned>(root_key_));
        break;
      case Frame::kEvent:
        event_key_ = LookupEventKey(s, n);
        repeated = Seen(&event_seen_, static_cast<unsigned>(event_key_));
        break;
      case Frame::kArgs:
        arg_key_ = LookupArgKey(s, n);
        repeated = Seen(&args_seen_, static_cast<unsigned>(arg_key_));
        break;
      case Frame::kDevice:
        device_key_ = LookupDeviceKey(std::string_view(s, n));
        repeated = Seen(&device_seen_, static_cast<unsigned>(device_key_));
        break;
      case Frame::kDist:
        dist_key_ = LookupDistKey(std::string_view(s, n));
        repeated = Seen(&dist_seen_, static_cast<unsigned>(dist_key_));
        break;
      default: break;
    }
    if (repeated) return DuplicateKey(s, n);
    return true;
  }

  bool EndObject(rapidjson::SizeType) {
    Frame f = stack_.back();
    stack_.pop_back();
    if (capture_depth_) {
      writer_.EndObject();
      if (--capture_depth_ == 0) event_.args_json.assign(args_buffer_.GetString(), args_buffer_.GetSize());
    }
    if (f == Frame::kEvent) return FinishEvent();
    return true;
  }

  bool StartArray() {
    if (capture_depth_) {
      writer_.StartArray();
      ++capture_depth_;
    }
    if (stack_.empty()) {
      info_.bare_array = true;
      saw_events_ = true;
      return Push(Frame::kEvents);
    }
    switch (stack_.back()) {
      case Frame::kRoot:
        if (root_key_ == RootKey::kTraceEvents) {
          saw_events_ = true;
          return Push(Frame::kEvents);
        }
        if (root_key_ == RootKey::kDeviceProperties) return Push(Frame::kDevices);
        return Push(Frame::kSkip);
      case Frame::kEvents:
        return Fail("traceEvents[" + std::to_string(event_index_) + "]: expected an object, got array", 1);
      case Frame::kEvent:
        if (event_key_ != EventKey::kOther) return WrongType("array", 1);
        return Push(Frame::kSkip);
      case Frame::kArgs:
        if (arg_key_ == ArgKey::kGrid || arg_key_ == ArgKey::kBlock) {
          dim_index_ = 0;
          dim_target_ = arg_key_ == ArgKey::kGrid ? event_.grid : event_.block;
          return Push(Frame::kArgDims);
        }
        return Push(Frame::kSkip);
      default:
        return Push(Frame::kSkip);
    }
  }

  bool EndArray(rapidjson::SizeType) {
    stack_.pop_back();
    if (capture_depth_) {
      writer_.EndArray();
      --capture_depth_;
    }
    return true;
  }

 private:
  __attribute__((noinline, cold)) bool DuplicateKey(const Ch* s, rapidjson::SizeType n) {
    std::string where = stack_.back() == Frame::kRoot ? "" : "traceEvents[" + std::to_string(event_index_) + "]";
    if (stack_.back() == Frame::kArgs) where += ".args";
    if (stack_.back() == Frame::kDevice)
      where = "deviceProperties[" + std::to_string(info_.devices.size() - 1) + "]";
    if (stack_.back() == Frame::kDist) where = "distributedInfo";
    std::string key(s, std::min<size_t>(n, 60));
    return Fail((where.empty() ? "" : where + ": ") + "duplicate key '" + key + "'", n + 2);
  }

  __attribute__((noinline, cold)) bool TooLong(const char* what, size_t n) {
    return Fail(std::string(what) + " longer than " + std::to_string(kMaxTraceString >> 20) + " MiB", n + 2);
  }

  __attribute__((noinline, cold)) bool BadTime(const char* why, std::string_view text, size_t back) {
    return Fail("traceEvents[" + std::to_string(event_index_) + "]." + EventKeyText(event_key_) + why +
                    std::string(text),
                back);
  }

  bool Push(Frame f) {
    if (stack_.size() >= kMaxTraceDepth)
      return Fail("nesting deeper than " + std::to_string(kMaxTraceDepth) + " levels", 1);
    stack_.push_back(f);
    return true;
  }

  /// Marks known key `k` (0 = an unknown key, never repeated) seen; true when
  /// it already was.
  static bool Seen(uint32_t* seen, unsigned k) {
    if (k == 0 || k >= 32) return false;
    const uint32_t bit = uint32_t{1} << k;
    const bool again = (*seen & bit) != 0;
    *seen |= bit;
    return again;
  }

  __attribute__((noinline, cold)) bool Fail(std::string message, size_t back) {
    error_ = std::move(message);
    size_t tell = stream_.Tell();
    error_offset_ = tell >= back ? tell - back : 0;
    return false;
  }

  __attribute__((noinline, cold)) bool WrongType(const char* got, size_t back) {
    return Fail("traceEvents[" + std::to_string(event_index_) + "]." + EventKeyText(event_key_) +
                    ": expected " + ExpectedFor(event_key_) + ", got " + got,
                back);
  }

  static const char* ExpectedFor(EventKey k) {
    switch (k) {
      case EventKey::kTs:
      case EventKey::kDur: return "a number";
      case EventKey::kPid:
      case EventKey::kTid:
      case EventKey::kId: return "a number or a string";
      case EventKey::kArgs: return "an object";
      default: return "a string";
    }
  }

  static RootKey LookupRootKey(std::string_view k) {
    if (k == "traceEvents") return RootKey::kTraceEvents;
    if (k == "deviceProperties") return RootKey::kDeviceProperties;
    if (k == "distributedInfo") return RootKey::kDistributedInfo;
    if (k == "displayTimeUnit") return RootKey::kDisplayTimeUnit;
    if (k == "schemaVersion") return RootKey::kSchemaVersion;
    if (k == "traceName") return RootKey::kTraceName;
    return RootKey::kOther;
  }
  static DeviceKey LookupDeviceKey(std::string_view k) {
    if (k == "id") return DeviceKey::kId;
    if (k == "name") return DeviceKey::kName;
    if (k == "totalGlobalMem") return DeviceKey::kTotalGlobalMem;
    if (k == "computeMajor") return DeviceKey::kMajor;
    if (k == "computeMinor") return DeviceKey::kMinor;
    if (k == "numSms") return DeviceKey::kNumSms;
    if (k == "maxThreadsPerMultiprocessor") return DeviceKey::kMaxThreads;
    if (k == "regsPerMultiprocessor") return DeviceKey::kRegs;
    if (k == "sharedMemPerMultiprocessor") return DeviceKey::kSharedMem;
    if (k == "warpSize") return DeviceKey::kWarpSize;
    return DeviceKey::kOther;
  }
  static DistKey LookupDistKey(std::string_view k) {
    if (k == "rank") return DistKey::kRank;
    if (k == "world_size") return DistKey::kWorldSize;
    if (k == "backend") return DistKey::kBackend;
    return DistKey::kOther;
  }

  /// One scalar value in the current frame. `text` is the number text or the
  /// string contents.
  bool Scalar(const char* type, std::string_view text, bool is_string, bool is_number) {
    if (stack_.empty()) {
      error_offset_ = 0;
      error_ = std::string("expected a trace (a JSON object or array) at the top level, got ") + type;
      return false;
    }
    switch (stack_.back()) {
      case Frame::kRoot: return RootScalar(type, text, is_string, is_number);
      case Frame::kEvents:
        return Fail("traceEvents[" + std::to_string(event_index_) + "]: expected an object, got " + type,
                    is_string ? text.size() + 2 : text.size());
      case Frame::kEvent: return EventScalar(type, text, is_string, is_number);
      case Frame::kArgs:
        if (is_number) ArgNumber(text);
        return true;
      case Frame::kArgDims:
        if (is_number && dim_index_ < 3) {
          auto v = IntOf(num_, text);
          dim_target_[dim_index_] = v ? static_cast<int>(*v) : 0;
        }
        ++dim_index_;
        return true;
      case Frame::kDevice: DeviceScalar(text, is_string, is_number); return true;
      case Frame::kDist:
        // A rank orders and names the traces of a multi-rank run: a value
        // that is not a whole number from 0 is refused, not rounded or
        // replaced by the file's position.
        if ((dist_key_ == DistKey::kRank || dist_key_ == DistKey::kWorldSize) && text != "null") {
          const std::optional<double> v = is_number ? DoubleOf(num_, text) : std::nullopt;
          const bool rank = dist_key_ == DistKey::kRank;
          if (!v || !(*v >= (rank ? 0 : 1)) || *v > 1e6 || *v != std::floor(*v))
            return Fail(std::string("distributedInfo.") + (rank ? "rank" : "world_size") +
                            ": expected a whole number from " + (rank ? "0" : "1") +
                            " to 1000000, got " + (is_string ? "a string" : std::string(text.substr(0, 40))),
                        text.size() + (is_string ? 2 : 0));
          (rank ? info_.rank : info_.world_size) = static_cast<int64_t>(*v);
          // Whichever of the two comes second: a rank is below the world size.
          if (info_.rank && info_.world_size && *info_.rank >= *info_.world_size)
            return Fail("distributedInfo: rank " + std::to_string(*info_.rank) + " is not below world_size " +
                            std::to_string(*info_.world_size),
                        text.size());
        }
        if (dist_key_ == DistKey::kBackend && is_string) info_.distributed_backend.assign(text);
        return true;
      default: return true;
    }
  }

  bool RootScalar(const char* type, std::string_view text, bool is_string, bool is_number) {
    switch (root_key_) {
      case RootKey::kTraceEvents:
        return Fail(std::string("traceEvents: expected an array, got ") + type,
                    is_string ? text.size() + 2 : text.size());
      case RootKey::kDisplayTimeUnit:
        if (is_string) info_.display_time_unit.assign(text);
        return true;
      case RootKey::kTraceName:
        if (is_string) info_.trace_name.assign(text);
        return true;
      case RootKey::kSchemaVersion:
        if (is_number) info_.schema_version = IntOf(num_, text);
        return true;
      default: return true;
    }
  }

  bool EventScalar(const char* type, std::string_view text, bool is_string, bool is_number) {
    size_t back = is_string ? text.size() + 2 : text.size();
    switch (event_key_) {
      case EventKey::kPh:
        if (!is_string) return WrongType(type, back);
        event_.ph = text.empty() ? 0 : text[0];
        return true;
      case EventKey::kCat:
        if (!is_string) return WrongType(type, back);
        event_.cat.assign(text);
        return true;
      case EventKey::kName:
        if (!is_string) return WrongType(type, back);
        event_.name.assign(text);
        return true;
      case EventKey::kScope:
        if (is_string) event_.scope.assign(text);
        return true;
      case EventKey::kTs:
      case EventKey::kDur: {
        if (!is_number) return WrongType(type, back);
        auto ns = NanosOf(num_, text);
        if (!ns) return BadTime(": number out of range: ", text, back);
        if (event_key_ == EventKey::kTs) {
          // Bounded so that every end (ts + dur) and every distance between
          // two events fits in 64-bit nanoseconds.
          if (*ns > kMaxTsNs || *ns < -kMaxTsNs) return BadTime(": beyond +-4e9 s (127 years): ", text, back);
          event_.has_ts = true;
          event_.ts_ns = *ns;
        } else {
          if (*ns >= kMaxDurationNs || *ns <= -kMaxDurationNs) return BadTime(": 1e9 s or more: ", text, back);
          event_.has_dur = true;
          event_.dur_ns = *ns;
        }
        return true;
      }
      case EventKey::kPid:
      case EventKey::kTid: {
        bool pid = event_key_ == EventKey::kPid;
        if (is_number) {
          auto v = IntOf(num_, text);
          (pid ? event_.pid_is_num : event_.tid_is_num) = v.has_value();
          (pid ? event_.pid_num : event_.tid_num) = v.value_or(0);
          (pid ? event_.pid_text : event_.tid_text).assign(text);
          return true;
        }
        if (is_string) {
          (pid ? event_.pid_text : event_.tid_text).assign(text);
          return true;
        }
        return WrongType(type, back);
      }
      case EventKey::kId:
        if (!is_string && !is_number) return WrongType(type, back);
        event_.id.assign(text);
        return true;
      case EventKey::kArgs:
        return WrongType(type, back);
      case EventKey::kOther: return true;
    }
    return true;
  }

  void ArgNumber(std::string_view text) {
    switch (arg_key_) {
      case ArgKey::kCorrelation: event_.correlation = IntOf(num_, text).value_or(-1); break;
      case ArgKey::kExternalId: event_.external_id = IntOf(num_, text).value_or(-1); break;
      case ArgKey::kStream: event_.stream = IntOf(num_, text).value_or(-1); break;
      case ArgKey::kDevice: event_.device = IntOf(num_, text).value_or(-1); break;
      // Values no device can have are left out, as unknown: averaged or
      // summed they would overflow or read as real (a negative copy, an
      // occupancy of 1e300 %). Bytes are bounded so that 20,000,000 events
      // of them sum within 64 bits.
      case ArgKey::kRegisters: event_.registers_per_thread = InRange(DoubleOf(num_, text), 0, 65536); break;
      case ArgKey::kSharedMemory: event_.shared_memory = InRange(DoubleOf(num_, text), 0, 1e12); break;
      case ArgKey::kOccupancy: event_.occupancy_pct = InRange(DoubleOf(num_, text), 0, 100); break;
      case ArgKey::kBytes: event_.bytes = InRange(IntOf(num_, text), 0, kMaxArgBytes); break;
      case ArgKey::kBandwidth: event_.bandwidth_gbps = InRange(DoubleOf(num_, text), 0, 1e7); break;
      // Host memory may exceed a GPU's: a PiB bounds what any machine holds.
      case ArgKey::kMemBytes: event_.mem_bytes = InRange(IntOf(num_, text), -kMaxMemoryBytes, kMaxMemoryBytes); break;
      case ArgKey::kTotalAllocated: event_.mem_total_allocated = InRange(IntOf(num_, text), 0, kMaxMemoryBytes); break;
      case ArgKey::kTotalReserved: event_.mem_total_reserved = InRange(IntOf(num_, text), 0, kMaxMemoryBytes); break;
      case ArgKey::kDeviceId: event_.mem_device_id = IntOf(num_, text); break;
      case ArgKey::kDeviceType: event_.mem_device_type = IntOf(num_, text); break;
      default: break;
    }
  }

  void DeviceScalar(std::string_view text, bool is_string, bool is_number) {
    TraceDevice& d = info_.devices.back();
    if (is_string) {
      if (device_key_ == DeviceKey::kName) d.name.assign(text);
      return;
    }
    if (!is_number) return;
    auto v = IntOf(num_, text);
    if (!v) return;
    switch (device_key_) {
      case DeviceKey::kId: d.id = *v; break;
      case DeviceKey::kTotalGlobalMem: d.total_global_mem = *v; break;
      case DeviceKey::kMajor: d.compute_major = static_cast<int>(*v); break;
      case DeviceKey::kMinor: d.compute_minor = static_cast<int>(*v); break;
      case DeviceKey::kNumSms: d.num_sms = static_cast<int>(*v); break;
      case DeviceKey::kMaxThreads: d.max_threads_per_sm = static_cast<int>(*v); break;
      case DeviceKey::kRegs: d.regs_per_sm = static_cast<int>(*v); break;
      case DeviceKey::kSharedMem: d.shared_mem_per_sm = *v; break;
      case DeviceKey::kWarpSize: d.warp_size = static_cast<int>(*v); break;
      default: break;
    }
  }

  void ResetEvent() {
    TraceEvent& e = event_;
    e.ph = 0;
    e.category = TraceCategory::kNone;
    e.cat.clear();
    e.name.clear();
    e.has_ts = e.has_dur = false;
    e.ts_ns = e.dur_ns = 0;
    e.pid_is_num = e.tid_is_num = false;
    e.pid_num = e.tid_num = 0;
    e.pid_text.clear();
    e.tid_text.clear();
    e.id.clear();
    e.scope.clear();
    e.correlation = e.external_id = e.stream = e.device = -1;
    for (int i = 0; i < 3; ++i) e.grid[i] = e.block[i] = 0;
    e.registers_per_thread.reset();
    e.shared_memory.reset();
    e.occupancy_pct.reset();
    e.bytes.reset();
    e.bandwidth_gbps.reset();
    e.mem_bytes.reset();
    e.mem_total_allocated.reset();
    e.mem_total_reserved.reset();
    e.mem_device_id.reset();
    e.mem_device_type.reset();
    e.has_args = false;
    e.args_json.clear();
    event_key_ = EventKey::kOther;
    event_seen_ = 0;
  }

  bool FinishEvent() {
    TraceEvent& e = event_;
    if (info_.events >= kMaxTraceEvents)
      return Fail("more than " + std::to_string(kMaxTraceEvents) + " events", 1);
    bool timed = e.ph == 'X' || e.ph == 'i' || e.ph == 'I' || e.ph == 'B' || e.ph == 'E';
    if (timed && !e.has_ts)
      return Fail("traceEvents[" + std::to_string(event_index_) + "]: event '" + e.name +
                      "' (ph " + std::string(1, e.ph) + ") has no ts",
                  1);
    if (e.ph == 'X' && !e.has_dur)
      return Fail("traceEvents[" + std::to_string(event_index_) + "]: complete event '" + e.name +
                      "' (ph X) has no dur",
                  1);
    if (e.dur_ns < 0) {
      e.dur_ns = 0;
      ++info_.negative_durations;
    }
    // The events the analyses place in time (metadata is not): all within
    // 1e9 s of the first, and their durations summed under 4e9 s, so no end,
    // span or total of the analyses overflows 64-bit nanoseconds.
    if (e.has_ts && e.ph != 'M') {
      if (!first_ts_ns_) first_ts_ns_ = e.ts_ns;
      if (e.ts_ns - *first_ts_ns_ >= kMaxDurationNs || *first_ts_ns_ - e.ts_ns >= kMaxDurationNs)
        return Fail("traceEvents[" + std::to_string(event_index_) + "].ts: 1e9 s or more away from the first " +
                        "timed event's ts",
                    1);
      summed_dur_ns_ += e.dur_ns;  // each under 1e18: the sum fits until it is refused
      if (summed_dur_ns_ > kMaxTsNs)
        return Fail("traceEvents[" + std::to_string(event_index_) + "]: the durations add up to more than 4e9 s " +
                        "(127 years)",
                    1);
    }
    e.category = CategoryFromString(e.cat);
    if (e.category == TraceCategory::kUnknown) CountUnknown(e.cat);
    // PyTorch's legacy exporter (torch.autograd.profiler without Kineto,
    // e.g. Debian's python3-torch; libtorch's C++ writer spells it "CPU
    // Functions", and "CUDA Functions" alike) writes CPU ops with no "cat"
    // under the process "CPU functions". With use_cuda=True (PyTorch before
    // 1.8) it also wrote each op's time between two CUDA events under "CUDA
    // functions": not kernels (named by the op, nested like the ops), so
    // counted, not read.
    if (e.category == TraceCategory::kNone && e.ph == 'X' && !e.pid_is_num) {
      if (IsLegacyProcess(e.pid_text, "CPU")) {
        e.category = TraceCategory::kCpuOp;
        ++info_.legacy_cpu_events;
      } else if (IsLegacyProcess(e.pid_text, "CUDA")) {
        ++info_.legacy_gpu_events;
      }
    }
    // Each device an event names gets tables of its own in the analyses:
    // as many as deviceProperties may list, no more.
    const bool gpu_side = e.ph == 'X' && (e.category == TraceCategory::kKernel ||
                                          e.category == TraceCategory::kGpuMemcpy ||
                                          e.category == TraceCategory::kGpuMemset);
    if (gpu_side && e.GpuDevice() >= 0 && NewGpuDevice(e.GpuDevice()) && gpu_devices_.size() > kMaxTraceDevices)
      return Fail("traceEvents[" + std::to_string(event_index_) + "]: more than " +
                      std::to_string(kMaxTraceDevices) + " GPU devices named by events",
                  1);
    if ((e.ph == 'i' || e.ph == 'I') && e.name == "[memory]" &&
        memory_devices_.insert({e.mem_device_type.value_or(-1), e.mem_device_id.value_or(-1)}).second &&
        memory_devices_.size() > kMaxMemoryDevices)
      return Fail("traceEvents[" + std::to_string(event_index_) + "]: more than " +
                      std::to_string(kMaxMemoryDevices) + " devices named by [memory] events",
                  1);
    if (e.pid_is_num && (e.category == TraceCategory::kCpuOp || e.category == TraceCategory::kCudaRuntime ||
                         e.category == TraceCategory::kCudaDriver || e.category == TraceCategory::kPythonFunction ||
                         e.category == TraceCategory::kUserAnnotation))
      NoteHostPid(e.pid_num);
    ++info_.events;
    ++info_.events_by_phase[static_cast<unsigned char>(e.ph) & 0x7f];
    ++info_.events_by_category[static_cast<int>(e.category)];
    ++event_index_;
    sink_.OnEvent(e);
    return true;
  }

  void NoteHostPid(int64_t pid) {
    if (pid == last_host_pid_) return;
    last_host_pid_ = pid;
    std::vector<int64_t>& pids = info_.host_pids;
    if (pids.size() < 16 && std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
  }

  /// Whether `device` is named for the first time. The first few devices
  /// (all of a real trace) are found by a scan, without hashing.
  bool NewGpuDevice(int64_t device) {
    for (int64_t d : first_gpu_devices_)
      if (d == device) return false;
    if (!gpu_devices_.insert(device).second) return false;
    if (first_gpu_devices_.size() < 16) first_gpu_devices_.push_back(device);
    return true;
  }

  void CountUnknown(const std::string& cat) {
    for (auto& [name, count] : info_.unknown_categories)
      if (name == cat) {
        ++count;
        return;
      }
    if (info_.unknown_categories.size() < 64) info_.unknown_categories.emplace_back(cat, 1);
  }

  TraceEventSink& sink_;
  TraceInfo& info_;
  TraceStream& stream_;
  bool capture_args_;
  int capture_depth_ = 0;
  JsonStringBuffer args_buffer_;
  rapidjson::Writer<JsonStringBuffer> writer_;

  std::vector<Frame> stack_;
  RootKey root_key_ = RootKey::kOther;
  EventKey event_key_ = EventKey::kOther;
  ArgKey arg_key_ = ArgKey::kOther;
  DeviceKey device_key_ = DeviceKey::kOther;
  DistKey dist_key_ = DistKey::kOther;
  int dim_index_ = 0;
  int* dim_target_ = nullptr;
  TraceEvent event_;
  NumberDigits num_;  // of the number being handed on
  int64_t event_index_ = 0;
  std::optional<int64_t> first_ts_ns_;  ///< the first timed event's ts: every other is within 1e9 s of it
  int64_t summed_dur_ns_ = 0;           ///< of the timed events, at most kMaxTsNs
  std::unordered_set<int64_t> gpu_devices_;               ///< named by kernels, copies, memsets
  std::vector<int64_t> first_gpu_devices_;                ///< the first 16 of gpu_devices_
  int64_t last_host_pid_ = -1;                            ///< NoteHostPid's last
  std::set<std::pair<int64_t, int64_t>> memory_devices_;  ///< (type, id) of [memory] events
  bool saw_events_ = false;
  std::string error_;
  size_t error_offset_ = 0;
  uint32_t root_seen_ = 0, event_seen_ = 0, args_seen_ = 0, device_seen_ = 0, dist_seen_ = 0;
};

/// "line:col" (1-based) of a byte offset, found by re-reading the data.
std::string LineColumn(const Origin& origin, bool gzip, size_t offset) {
  auto src = origin.Open(gzip);
  if (!src.ok()) return "?:?";
  std::vector<char> buf(1 << 16);
  size_t pos = 0, line = 1, col = 1;
  while (pos < offset) {
    size_t n = (*src)->Read(buf.data(), std::min(buf.size(), offset - pos));
    if (n == 0) break;
    // A UTF-8 byte order mark before the document takes no column.
    const size_t skip = pos == 0 && n >= 3 && std::string_view(buf.data(), 3) == "\xEF\xBB\xBF" ? 3 : 0;
    for (size_t i = skip; i < n; ++i) {
      if (buf[i] == '\n') {
        ++line;
        col = 1;
      } else if ((static_cast<unsigned char>(buf[i]) & 0xC0) != 0x80) {
        ++col;  // count characters, not UTF-8 continuation bytes
      }
    }
    pos += n;
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

/// Up to `n` bytes of the (decompressed) input from `offset`, read again from
/// the origin: the parser's sliding buffer no longer holds them when it fails.
std::string BytesAt(const Origin& origin, bool gzip, size_t offset, size_t n) {
  auto src = origin.Open(gzip);
  if (!src.ok()) return {};
  std::vector<char> buf(1 << 16);
  size_t pos = 0;
  while (pos < offset) {
    size_t got = (*src)->Read(buf.data(), std::min(buf.size(), offset - pos));
    if (got == 0) return {};
    pos += got;
  }
  std::string out(n, '\0');
  size_t have = 0;
  while (have < n) {
    size_t got = (*src)->Read(out.data() + have, n - have);
    if (got == 0) break;
    have += got;
  }
  out.resize(have);
  return out;
}

// ---------------------------------------------------------------------------
// The JSON reader for traces: a SAX parser that hands the Handler the same
// calls RapidJSON's Reader would with kParseNumbersAsStringsFlag (numbers as
// text) and reports the same error codes at the same offsets, but reads from
// a sliding buffer and passes strings without escapes, numbers and keys in
// place, without copying them character by character. Trace files are
// mostly strings and numbers, so this is where the reading time goes.
// Nesting is kept on an explicit stack (no recursion), so hostile nesting
// depth cannot overflow the call stack; the Handler limits it anyway.

template <typename H>
class TraceJsonParser {
 public:
  TraceJsonParser(TraceStream& in, H& handler) : in_(in), h_(handler) {}

  rapidjson::ParseResult Parse() {
    // A UTF-8 byte-order mark (some editors and Windows tools write one) is
    // not part of the JSON; the benchmark readers skip it too.
    if (Peek() == '\xEF' && in_.pos_ + 3 <= in_.len_ &&
        std::memcmp(in_.data() + in_.pos_, "\xEF\xBB\xBF", 3) == 0)
      in_.pos_ += 3;
    SkipWs();
    if (in_.pos_ >= in_.len_) return Err(rapidjson::kParseErrorDocumentEmpty);
    if (!ParseValue()) return result_;
    // Each turn starts after a value, or just after a container opened
    // (opened_), and reads what follows: the container's end, or a comma
    // (and in an object the next key) and the next value.
    while (!stack_.empty()) {
      const bool object = stack_.back() == '{';
      SkipWs();
      const char c = Peek();
      if (c == (object ? '}' : ']')) {
        opened_ = false;
        if (!Close()) return result_;
        continue;
      }
      if (opened_) {
        opened_ = false;
      } else if (c == ',') {
        ++in_.pos_;
        SkipWs();
      } else {
        return Err(object ? rapidjson::kParseErrorObjectMissCommaOrCurlyBracket
                          : rapidjson::kParseErrorArrayMissCommaOrSquareBracket);
      }
      if (object && !MemberKey(rapidjson::kParseErrorObjectMissName)) return result_;
      SkipWs();
      if (!ParseValue()) return result_;
    }
    SkipWs();
    if (in_.pos_ < in_.len_) return Err(rapidjson::kParseErrorDocumentRootNotSingular);
    return rapidjson::ParseResult();
  }

 private:
  char Peek() {
    if (in_.pos_ >= in_.len_) {
      size_t keep = in_.pos_;
      if (!in_.More(keep)) return '\0';
    }
    return in_.data()[in_.pos_];
  }

  __attribute__((always_inline)) void SkipWs() {
    // Most often no space or one: the '\0' sentinel at len_ ends the loop.
    const char* d = in_.data();
    size_t i = in_.pos_;
    while (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t') ++i;
    in_.pos_ = i;
    if (i < in_.len_) return;
    SkipWsSlow();
  }
  __attribute__((noinline)) void SkipWsSlow() {
    for (;;) {
      while (in_.pos_ < in_.len_) {
        char c = in_.data()[in_.pos_];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
        ++in_.pos_;
      }
      size_t keep = in_.pos_;
      if (!in_.More(keep)) return;
    }
  }

  rapidjson::ParseResult Err(rapidjson::ParseErrorCode code) {
    result_.Set(code, in_.Tell());
    return result_;
  }
  static constexpr size_t kNumberLookahead = 64;
  bool FailAt(size_t pos, rapidjson::ParseErrorCode code) {
    in_.pos_ = pos;
    return Fail(code);
  }
  bool Fail(rapidjson::ParseErrorCode code) {
    Err(code);
    return false;
  }
  bool Stop() {  // the handler refused
    result_.Set(rapidjson::kParseErrorTermination, in_.Tell());
    return false;
  }

  /// A key, its colon, ready for the value. Expects to be at the '"'.
  bool MemberKey(rapidjson::ParseErrorCode missing) {
    if (Peek() != '"') return Fail(missing);
    const char* s;
    size_t n;
    if (!ScanString(&s, &n)) return false;
    if (!h_.Key(s, static_cast<rapidjson::SizeType>(std::min<size_t>(n, UINT32_MAX)), false)) return Stop();
    SkipWs();
    if (Peek() != ':') return Fail(rapidjson::kParseErrorObjectMissColon);
    ++in_.pos_;
    return true;
  }

  bool Close() {
    const bool object = stack_.back() == '{';
    ++in_.pos_;
    stack_.pop_back();
    bool ok = object ? h_.EndObject(0) : h_.EndArray(0);
    return ok ? true : Stop();
  }

  bool ParseValue() {
    char c = Peek();
    switch (c) {
      case '{':
        ++in_.pos_;
        if (!h_.StartObject()) return Stop();
        stack_.push_back('{');
        opened_ = true;
        return true;
      case '[':
        ++in_.pos_;
        if (!h_.StartArray()) return Stop();
        stack_.push_back('[');
        opened_ = true;
        return true;
      case '"': {
        const char* s;
        size_t n;
        if (!ScanString(&s, &n)) return false;
        return h_.String(s, static_cast<rapidjson::SizeType>(std::min<size_t>(n, UINT32_MAX)), false) ? true
                                                                                                      : Stop();
      }
      case 't': return Literal("true") && (h_.Bool(true) || Stop());
      case 'f': return Literal("false") && (h_.Bool(false) || Stop());
      case 'n': return Literal("null") && (h_.Null() || Stop());
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return Number();
        return Fail(rapidjson::kParseErrorValueInvalid);
    }
  }

  bool Literal(const char* word) {
    const size_t n = std::strlen(word);
    for (size_t i = 0; i < n; ++i) {
      if (Peek() != word[i]) return Fail(rapidjson::kParseErrorValueInvalid);
      ++in_.pos_;
    }
    return true;
  }

  /// Makes buf[pos_] readable (refilling while keeping [start, len_));
  /// false at the end of input.
  bool Have(size_t& start) {
    if (in_.pos_ < in_.len_) return true;
    return in_.More(start);
  }

  static bool Digit(char c) { return c >= '0' && c <= '9'; }

  bool Number() {
    // Usually the whole number is in the buffer: scan it up to the '\0'
    // sentinel at len_ without a bounds check per character.
    if (in_.len_ - in_.pos_ < kNumberLookahead) {
      size_t keep = in_.pos_;
      in_.More(keep);
    }
    if (in_.len_ - in_.pos_ >= kNumberLookahead || in_.AtEndOfInput()) {
      // The digits are gathered on the way (the handler needs the value).
      const char* d = in_.data();
      size_t i = in_.pos_;
      const size_t start = i;
      NumberDigits nd;
      if (d[i] == '-') {
        nd.negative = true;
        ++i;
      }
      if (!Digit(d[i])) return FailAt(i, rapidjson::kParseErrorValueInvalid);
      const size_t int_start = i;
      if (d[i] == '0') {
        ++i;
      } else {
        while (Digit(d[i])) nd.mant = nd.mant * 10 + static_cast<uint64_t>(d[i++] - '0');
      }
      nd.digits = static_cast<int>(std::min<size_t>(i - int_start, 20));
      if (d[i] == '.') {
        ++i;
        if (!Digit(d[i])) return FailAt(i, rapidjson::kParseErrorNumberMissFraction);
        const size_t frac_start = i;
        while (Digit(d[i])) nd.mant = nd.mant * 10 + static_cast<uint64_t>(d[i++] - '0');
        nd.frac = static_cast<int>(std::min<size_t>(i - frac_start, 20));
        nd.digits += nd.frac;
      }
      if (d[i] == 'e' || d[i] == 'E') {
        ++i;
        if (d[i] == '+' || d[i] == '-') ++i;
        if (!Digit(d[i])) return FailAt(i, rapidjson::kParseErrorNumberMissExponent);
        while (Digit(d[i])) ++i;
        nd.digits = 0;  // the text decides
      }
      if (nd.digits > 19) nd.digits = 0;  // the integer wrapped: the text decides
      if (i - start < kNumberLookahead || in_.AtEndOfInput()) {
        in_.pos_ = i;
        if (!h_.Number(d + start, static_cast<rapidjson::SizeType>(i - start), nd)) return Stop();
        return true;
      }
      // Longer than the lookahead: read it with refills below.
    }
    size_t start = in_.pos_;
    if (in_.data()[in_.pos_] == '-') {
      ++in_.pos_;
      if (!Have(start) || !Digit(in_.data()[in_.pos_])) return Fail(rapidjson::kParseErrorValueInvalid);
    }
    if (in_.data()[in_.pos_] == '0') {
      ++in_.pos_;
    } else {
      while (Have(start) && Digit(in_.data()[in_.pos_])) ++in_.pos_;
    }
    if (Have(start) && in_.data()[in_.pos_] == '.') {
      ++in_.pos_;
      if (!Have(start) || !Digit(in_.data()[in_.pos_])) return Fail(rapidjson::kParseErrorNumberMissFraction);
      while (Have(start) && Digit(in_.data()[in_.pos_])) ++in_.pos_;
    }
    if (Have(start) && (in_.data()[in_.pos_] == 'e' || in_.data()[in_.pos_] == 'E')) {
      ++in_.pos_;
      if (Have(start) && (in_.data()[in_.pos_] == '+' || in_.data()[in_.pos_] == '-')) ++in_.pos_;
      if (!Have(start) || !Digit(in_.data()[in_.pos_])) return Fail(rapidjson::kParseErrorNumberMissExponent);
      while (Have(start) && Digit(in_.data()[in_.pos_])) ++in_.pos_;
    }
    const size_t n = in_.pos_ - start;
    if (!h_.RawNumber(in_.data() + start, static_cast<rapidjson::SizeType>(n), false)) return Stop();
    return true;
  }

  /// Position of the first '"', '\\' or control character in [p, end), or end.
  __attribute__((always_inline)) static size_t ScanPlain(const char* p, size_t from, size_t end) {
    size_t i = from;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
    for (; i + 16 <= end; i += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      // Control characters: unsigned v < 0x20 (compare with the sign bit flipped).
      __m128i ctrl = _mm_cmplt_epi8(_mm_xor_si128(v, flip), _mm_xor_si128(space, flip));
      __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), ctrl);
      int mask = _mm_movemask_epi8(hit);
      if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
#endif
    for (; i < end; ++i) {
      unsigned char c = static_cast<unsigned char>(p[i]);
      if (c == '"' || c == '\\' || c < 0x20) return i;
    }
    return end;
  }

  /// A string at in_.pos_ (the opening quote). On return *s/*n point into
  /// the buffer (no escapes) or into scratch_ (escapes decoded); in_.pos_ is
  /// after the closing quote.
  __attribute__((always_inline)) bool ScanString(const char** s, size_t* n) {
    // Fast path: no escape, the closing quote in the buffer.
    const size_t start = in_.pos_ + 1;
    const size_t i = ScanPlain(in_.data(), start, in_.len_);
    if (i < in_.len_ && in_.data()[i] == '"') {
      *s = in_.data() + start;
      *n = i - start;
      in_.pos_ = i + 1;
      return true;
    }
    return ScanStringSlow(s, n);
  }

  __attribute__((noinline)) bool ScanStringSlow(const char** s, size_t* n) {
    ++in_.pos_;  // opening quote
    size_t start = in_.pos_;
    bool escaped = false;
    for (;;) {
      size_t i = ScanPlain(in_.data(), in_.pos_, in_.len_);
      if (escaped) scratch_.append(in_.data() + in_.pos_, i - in_.pos_);
      in_.pos_ = i;
      if (i - start > kMaxTraceString + 2 && !escaped) {
        // Hand on the length only: the handler refuses strings this long.
        *s = in_.data() + start;
        *n = i - start;
        return true;
      }
      if (escaped && scratch_.size() > kMaxTraceString + 2) {
        *s = scratch_.data();
        *n = scratch_.size();
        return true;
      }
      if (i >= in_.len_) {
        if (!in_.More(start)) return Fail(rapidjson::kParseErrorStringMissQuotationMark);
        continue;
      }
      unsigned char c = static_cast<unsigned char>(in_.data()[i]);
      if (c == '"') {
        if (escaped) {
          *s = scratch_.data();
          *n = scratch_.size();
        } else {
          *s = in_.data() + start;
          *n = i - start;
        }
        ++in_.pos_;
        return true;
      }
      if (c < 0x20)
        return Fail(c == 0 ? rapidjson::kParseErrorStringMissQuotationMark : rapidjson::kParseErrorStringEscapeInvalid);
      // A backslash: switch to decoding into scratch_.
      if (!escaped) {
        escaped = true;
        scratch_.assign(in_.data() + start, i - start);
      }
      if (!Escape(start)) return false;
    }
  }

  /// Decodes the escape at in_.pos_ (the backslash) into scratch_. Every
  /// error of an escape is reported at its backslash (as RapidJSON does).
  bool Escape(size_t& start) {
    const size_t escape_at = in_.pos_;
    auto bad = [&](rapidjson::ParseErrorCode code) { return FailAt(escape_at, code); };
    ++in_.pos_;
    if (!Have(start)) return bad(rapidjson::kParseErrorStringEscapeInvalid);
    char e = in_.data()[in_.pos_];
    switch (e) {
      case '"': scratch_ += '"'; break;
      case '\\': scratch_ += '\\'; break;
      case '/': scratch_ += '/'; break;
      case 'b': scratch_ += '\b'; break;
      case 'f': scratch_ += '\f'; break;
      case 'n': scratch_ += '\n'; break;
      case 'r': scratch_ += '\r'; break;
      case 't': scratch_ += '\t'; break;
      case 'u': {
        ++in_.pos_;
        unsigned cp;
        if (!Hex4(start, &cp)) return bad(rapidjson::kParseErrorStringUnicodeEscapeInvalidHex);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          // A high surrogate must be followed by \u and a low surrogate.
          if (!Have(start) || in_.data()[in_.pos_] != '\\') return bad(rapidjson::kParseErrorStringUnicodeSurrogateInvalid);
          ++in_.pos_;
          if (!Have(start) || in_.data()[in_.pos_] != 'u') return bad(rapidjson::kParseErrorStringUnicodeSurrogateInvalid);
          ++in_.pos_;
          unsigned low;
          if (!Hex4(start, &low)) return bad(rapidjson::kParseErrorStringUnicodeEscapeInvalidHex);
          if (low < 0xDC00 || low > 0xDFFF) return bad(rapidjson::kParseErrorStringUnicodeSurrogateInvalid);
          cp = (((cp - 0xD800) << 10) | (low - 0xDC00)) + 0x10000;
        }
        AppendUtf8(cp);
        return true;
      }
      default: return bad(rapidjson::kParseErrorStringEscapeInvalid);
    }
    ++in_.pos_;
    return true;
  }

  /// Four hex digits at in_.pos_; false (nothing reported) when they are not.
  bool Hex4(size_t& start, unsigned* out) {
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      if (!Have(start)) return false;
      char c = in_.data()[in_.pos_];
      unsigned d;
      if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
      else return false;
      v = v * 16 + d;
      ++in_.pos_;
    }
    *out = v;
    return true;
  }

  void AppendUtf8(unsigned cp) { gpugate::AppendUtf8(scratch_, cp); }

  TraceStream& in_;
  H& h_;
  std::vector<char> stack_;   ///< '{' or '[' per open container
  std::string scratch_;
  rapidjson::ParseResult result_;
  bool opened_ = false;
};

Result<TraceInfo> Read(const Origin& origin, TraceEventSink& sink) {
  auto gz = origin.IsGzip();
  if (!gz.ok()) return gz.error();
  auto source = origin.Open(*gz);
  if (!source.ok()) return source.error();

  TraceInfo info;
  info.path = origin.name;
  info.compressed = *gz;
  TraceStream stream(source->get());
  Handler handler(sink, info, stream);
  rapidjson::ParseResult ok = TraceJsonParser<Handler>(stream, handler).Parse();
  info.bytes_read = static_cast<int64_t>(stream.Tell());

  const std::string& source_error = (*source)->error();
  if (!source_error.empty() && (*source)->too_large())
    return InputError(origin.name + ": " + source_error);
  if (!source_error.empty())
    return InputError(origin.name + ": " + source_error + " (after " +
                      std::to_string((*source)->total()) + " decompressed bytes)");
  if (!ok) {
    std::string message;
    size_t offset = ok.Offset();
    if (!handler.error().empty()) {
      message = handler.error();
      offset = handler.error_offset();
    } else if (ok.Code() == rapidjson::kParseErrorDocumentEmpty) {
      message = stream.Tell() == 0 ? "empty trace file" : "no JSON value (only whitespace)";
    } else if (const std::optional<std::string> wide = WideEncodingText(BytesAt(origin, *gz, 0, 4)); wide && offset < 4) {
      message = *wide;
    } else if (const std::string at = BytesAt(origin, *gz, offset, 1); at.size() == 1 && at[0] == '\0') {
      message = kJsonNulByteText;
    } else if (*gz && offset == 0 && BytesAt(origin, *gz, 0, 2) == "\x1f\x8b") {
      message = "gzip data inside gzip data (compressed twice?): decompress it once (gunzip) "
                "and give the result";
    } else if (BytesAt(origin, *gz, offset, 2) == "\x1f\x8b") {
      message = kJsonGzipDataText;
    } else if (const std::string at = BytesAt(origin, *gz, offset, 1);
               ok.Code() == rapidjson::kParseErrorStringEscapeInvalid && at.size() == 1 &&
               static_cast<unsigned char>(at[0]) < 0x20) {
      // JSON has no raw control characters in strings; PyTorch's legacy
      // exporter writes names as they are, so a name holding one breaks
      // its file here.
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(at[0])));
      message = std::string("not valid JSON: a control character (") + code +
                ") inside a string, not escaped by the program that wrote the trace";
    } else if (stream.AtEnd() && offset >= stream.Tell()) {
      message = std::string("unexpected end of file (truncated trace?): ") +
                rapidjson::GetParseError_En(ok.Code());
    } else {
      message = std::string("not valid JSON: ") + rapidjson::GetParseError_En(ok.Code());
    }
    return InputError(origin.name + ":" + LineColumn(origin, *gz, offset) + ": " + message);
  }
  if (!handler.saw_events())
    return InputError(origin.name + ":1:1: not a Chrome trace: no \"traceEvents\" array");
  return info;
}

}  // namespace

Result<TraceInfo> ReadTrace(const std::string& path, TraceEventSink& sink) {
  Result<int64_t> limit = MaxInputBytes(InputKind::kData);
  if (!limit.ok()) return limit.error();
  if (!IsRegularFile(path) && ::access(path.c_str(), F_OK) == 0) {
    // A FIFO or device cannot be reopened for the error position: read it
    // once, bounded, and parse it from memory.
    Result<std::string> bytes = ReadFile(path, InputKind::kData);
    if (!bytes.ok()) return bytes.error();
    return ReadTraceFromString(*bytes, path, sink);
  }
  Origin origin;
  origin.name = path;
  origin.path = &path;
  origin.limit = static_cast<size_t>(*limit);
  return Read(origin, sink);
}

Result<TraceInfo> ReadTraceFromString(std::string_view bytes, const std::string& name,
                                      TraceEventSink& sink) {
  Result<int64_t> limit = MaxInputBytes(InputKind::kData);
  if (!limit.ok()) return limit.error();
  Origin origin;
  origin.name = name;
  origin.bytes = bytes;
  origin.limit = static_cast<size_t>(*limit);  // bounds the decompressed size
  return Read(origin, sink);
}

}  // namespace gpugate
