#include "util/gzip.h"

#include <algorithm>
#include <cstring>

#include "util/fs.h"

namespace gpugate {

GzipInflater::GzipInflater(Reader read) : read_(std::move(read)), inbuf_(size_t{1} << 16, '\0') {
  std::memset(&z_, 0, sizeof(z_));
  ok_ = inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK;  // 16: gzip wrapper, checked
  if (!ok_) error_ = "zlib initialisation failed";
}

GzipInflater::~GzipInflater() { inflateEnd(&z_); }

size_t GzipInflater::Read(char* buf, size_t cap) {
  size_t produced = 0;
  while (ok_ && produced < cap) {
    if (z_.avail_in == 0 && !in_eof_) {
      size_t n = read_(inbuf_.data(), inbuf_.size());
      if (n == 0) in_eof_ = true;
      z_.next_in = reinterpret_cast<Bytef*>(inbuf_.data());
      z_.avail_in = static_cast<uInt>(n);
    }
    if (member_done_) {
      if (z_.avail_in == 0 && in_eof_) break;  // clean end of the last member
      if (*z_.next_in != 0x1f) {
        // Not another member: zero bytes to the end are padding (a tape or
        // block device's; gzip(1) ignores them too), anything else is not
        // gzip data.
        if (!SkipZeroPadding()) {
          error_ = "data after the end of the gzip stream that is neither a gzip member nor "
                   "zero padding";
          ok_ = false;
        }
        break;
      }
      inflateReset(&z_);
      member_done_ = false;
    }
    z_.next_out = reinterpret_cast<Bytef*>(buf + produced);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(cap - produced, 1u << 30));
    const uInt before = z_.avail_out;
    int ret = inflate(&z_, Z_NO_FLUSH);
    produced += before - z_.avail_out;
    if (ret == Z_STREAM_END) {
      member_done_ = true;
      continue;
    }
    if (ret == Z_OK) continue;
    if (ret == Z_BUF_ERROR && z_.avail_in == 0 && in_eof_) {
      error_ = "truncated gzip stream (compressed data ends early)";
      ok_ = false;
      break;
    }
    if (ret == Z_BUF_ERROR) continue;
    error_ = std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : zError(ret));
    ok_ = false;
  }
  return produced;
}

bool GzipInflater::SkipZeroPadding() {
  for (;;) {
    for (; z_.avail_in > 0; ++z_.next_in, --z_.avail_in)
      if (*z_.next_in != 0) return false;
    if (in_eof_) return true;
    size_t n = read_(inbuf_.data(), inbuf_.size());
    if (n == 0) in_eof_ = true;
    z_.next_in = reinterpret_cast<Bytef*>(inbuf_.data());
    z_.avail_in = static_cast<uInt>(n);
  }
}

Result<std::string> Gunzip(std::string_view data, size_t max_out, const std::string& name,
                           bool prefix_only, bool* too_large) {
  size_t pos = 0;
  GzipInflater inflater([&](char* buf, size_t cap) {
    size_t n = std::min(cap, data.size() - pos);
    std::memcpy(buf, data.data() + pos, n);
    pos += n;
    return n;
  });
  std::string out;
  std::string chunk(size_t{1} << 16, '\0');
  for (;;) {
    size_t n = inflater.Read(chunk.data(), chunk.size());
    if (out.size() + n > max_out) {
      if (prefix_only) {
        out.append(chunk.data(), max_out - out.size());
        return out;
      }
      if (too_large) *too_large = true;
      return InputError(name + ": decompresses to more than " +
                        InputLimitText(static_cast<int64_t>(max_out)));
    }
    out.append(chunk.data(), n);
    if (!inflater.error().empty()) {
      // A head for telling the format may end where a cut stream does.
      if (prefix_only && !out.empty()) return out;
      return InputError(name + ": " + inflater.error());
    }
    if (n == 0) break;
  }
  return out;
}

}  // namespace gpugate
