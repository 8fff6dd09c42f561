// gzip decompression (zlib) for inputs that may come compressed: the one
// inflate loop behind the streaming trace reader and the benchmark readers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <zlib.h>

#include "util/result.h"

namespace gpugate {

/// True when `bytes` starts with the gzip magic (1f 8b). Inline: readers
/// that only refuse gzip (model/) need no zlib code.
inline bool HasGzipMagic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

/// Inflates a gzip stream, member after member (concatenated members are one
/// stream, as gzip(1) reads them), pulling compressed bytes from `read`.
/// Header and trailer (CRC, length) are checked; zero bytes after the last
/// member are padding, any other byte there is an error.
class GzipInflater {
 public:
  /// Fills up to `cap` compressed bytes; 0 at the end of the input (or when
  /// the reader failed: the caller knows why and says so itself).
  using Reader = std::function<size_t(char* buf, size_t cap)>;

  explicit GzipInflater(Reader read);
  ~GzipInflater();
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;

  /// Up to `cap` decompressed bytes; 0 at the clean end of the last member,
  /// or on an error (error() then says which: a truncated or corrupt stream).
  size_t Read(char* buf, size_t cap);
  const std::string& error() const { return error_; }

 private:
  /// Consumes the rest of the input; false at its first non-zero byte.
  bool SkipZeroPadding();

  Reader read_;
  std::string inbuf_;
  z_stream z_;
  std::string error_;
  bool ok_ = false;
  bool in_eof_ = false;
  bool member_done_ = false;
};

/// The decompressed text of gzip data in memory. At most `max_out` bytes:
/// with `prefix_only` the first `max_out` bytes (enough to tell a format),
/// otherwise more is an input error that names `name` and the limit (and
/// sets `*too_large` when given).
Result<std::string> Gunzip(std::string_view data, size_t max_out, const std::string& name,
                           bool prefix_only = false, bool* too_large = nullptr);

}  // namespace gpugate
