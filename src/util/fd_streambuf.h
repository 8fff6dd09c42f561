// A streambuf over a file descriptor that remembers why a write failed, so
// gpugate can say "cannot write to standard output: No space left on
// device" at the end instead of losing its output in silence (main.cc).
#pragma once

#include <streambuf>

namespace gpugate {

/// Buffered output to `fd` with write(2). The first failed write (ENOSPC,
/// EFBIG, EIO, EPIPE...) is kept in error(); from then on every write and
/// sync fails, so the ostream on top turns bad. With `line_buffered` (a
/// terminal) each newline flushes. Not thread-safe, as std::cout is not
/// when unsynchronised.
class FdStreambuf final : public std::streambuf {
 public:
  FdStreambuf(int fd, bool line_buffered);
  ~FdStreambuf() override;
  FdStreambuf(const FdStreambuf&) = delete;
  FdStreambuf& operator=(const FdStreambuf&) = delete;

  /// errno of the first failed write, 0 while none failed.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Flush();
  bool WriteAll(const char* data, size_t size);
  int fd_;
  bool line_buffered_;
  int error_ = 0;
  char buffer_[8192];
};

}  // namespace gpugate
