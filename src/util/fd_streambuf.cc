// Buffered, error-remembering output to a file descriptor (fd_streambuf.h).
#include "util/fd_streambuf.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpugate {

FdStreambuf::FdStreambuf(int fd, bool line_buffered) : fd_(fd), line_buffered_(line_buffered) {
  setp(buffer_, buffer_ + sizeof buffer_);
}

FdStreambuf::~FdStreambuf() { Flush(); }

bool FdStreambuf::WriteAll(const char* data, size_t size) {
  while (size > 0 && error_ == 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
    } else if (n == 0) {
      error_ = EIO;
    } else {
      data += n;
      size -= static_cast<size_t>(n);
    }
  }
  return error_ == 0;
}

bool FdStreambuf::Flush() {
  const size_t pending = static_cast<size_t>(pptr() - pbase());
  setp(buffer_, buffer_ + sizeof buffer_);  // failed bytes are dropped: the error is kept
  return pending == 0 ? error_ == 0 : WriteAll(buffer_, pending);
}

FdStreambuf::int_type FdStreambuf::overflow(int_type c) {
  if (!Flush()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  if (line_buffered_ && traits_type::to_char_type(c) == '\n' && !Flush()) return traits_type::eof();
  return c;
}

std::streamsize FdStreambuf::xsputn(const char* s, std::streamsize n) {
  if (error_ != 0) return 0;
  const size_t size = static_cast<size_t>(n);
  const size_t room = static_cast<size_t>(epptr() - pptr());
  if (size <= room) {
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(size));
  } else if (!Flush() || !WriteAll(s, size)) {
    return 0;
  }
  if (line_buffered_ && std::memchr(s, '\n', size) != nullptr && !Flush()) return 0;
  return n;
}

int FdStreambuf::sync() { return Flush() ? 0 : -1; }

}  // namespace gpugate
