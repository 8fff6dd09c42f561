// Output to a file descriptor that keeps the reason of a failed write.
#include "util/fd_streambuf.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <ostream>
#include <string>

namespace gpugate {
namespace {

/// What can be read from `fd` now (non-blocking).
std::string Available(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  return got;
}

TEST(FdStreambuf, BuffersUntilFlushOrLineEnd) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  {
    FdStreambuf buf(p[1], /*line_buffered=*/false);
    std::ostream out(&buf);
    out << "one\n" << 2 << '\n';
    EXPECT_EQ(Available(p[0]), "");
    out.flush();
    EXPECT_EQ(Available(p[0]), "one\n2\n");
    out << std::string(20000, 'x');  // larger than the buffer: written through
    EXPECT_EQ(Available(p[0]).size(), 20000u);
    EXPECT_TRUE(out.good());
    EXPECT_EQ(buf.error(), 0);
  }
  {
    FdStreambuf buf(p[1], /*line_buffered=*/true);
    std::ostream out(&buf);
    out << "line\npart";
    EXPECT_EQ(Available(p[0]), "line\npart");  // a newline flushes all that is pending
  }
  ::close(p[0]);
  ::close(p[1]);
}

TEST(FdStreambuf, KeepsTheReasonOfAFailedWrite) {
  int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "no /dev/full here";
  FdStreambuf buf(fd, false);
  std::ostream out(&buf);
  out << "small";
  EXPECT_TRUE(out.good());  // still in the buffer
  out.flush();
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(buf.error(), ENOSPC);
  out.clear();
  out << "later";  // every later write fails too
  out.flush();
  EXPECT_TRUE(out.bad());
  ::close(fd);
}

TEST(FdStreambuf, AReaderThatWentAwayIsEpipe) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ::close(p[0]);
  struct sigaction ignore {}, saved {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &saved), 0);
  FdStreambuf buf(p[1], false);
  std::ostream out(&buf);
  out << "nobody reads this" << std::flush;
  ::sigaction(SIGPIPE, &saved, nullptr);
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(buf.error(), EPIPE);
  ::close(p[1]);
}

}  // namespace
}  // namespace gpugate
