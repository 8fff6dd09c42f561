// ar archive reader (see ar_archive.h). Each member: a 60-byte header
// (name[16], date[12], uid[6], gid[6], mode[8], size[10], "`\n"), then the
// bytes, padded to an even offset. GNU names: "name/", or "/123" into the
// "//" table; BSD "#1/N" puts N name bytes before the data.
#include "static/ar_archive.h"

#include "static/elf.h"

namespace gpugate {

namespace {

constexpr uint64_t kHeaderSize = 60;
constexpr size_t kMaxMemberName = 4096;  // PATH_MAX
constexpr std::string_view kMagic = "!<arch>\n";

std::string Trim(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

/// A decimal field; false when it holds anything but digits and spaces.
bool Decimal(std::string_view field, uint64_t* out) {
  uint64_t v = 0;
  bool any = false;
  for (char c : field) {
    if (c == ' ') break;
    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
    any = true;
  }
  *out = v;
  return any;
}

}  // namespace

bool IsArArchive(std::string_view data) { return data.substr(0, kMagic.size()) == kMagic; }

Result<std::vector<ArMember>> ParseArArchive(std::string_view data, const std::string& name) {
  std::vector<ArMember> members;
  if (!IsArArchive(data)) return BinaryError(name, 0, "not an ar archive");
  std::string_view long_names;
  uint64_t p = kMagic.size();
  while (p < data.size()) {
    if (data.size() - p < kHeaderSize) return BinaryError(name, p, "ar member header truncated");
    const std::string_view h = data.substr(p, kHeaderSize);
    if (h.substr(58, 2) != "`\n") return BinaryError(name, p + 58, "ar member header without its end marker");
    uint64_t size = 0;
    if (!Decimal(h.substr(48, 10), &size)) return BinaryError(name, p + 48, "ar member size is not a number");
    const uint64_t start = p + kHeaderSize;
    if (!detail::InBounds(start, size, data.size()))
      return BinaryError(name, p + 48,
                         "ar member of " + std::to_string(size) + " bytes runs past the end of the archive");
    std::string_view bytes = data.substr(start, size);
    std::string member = Trim(h.substr(0, 16));
    uint64_t offset = start;
    if (member == "//") {
      long_names = bytes;
    } else if (member != "/" && member != "/SYM64/") {  // GNU symbol tables
      if (member.size() > 1 && member[0] == '/') {
        uint64_t at = 0;
        if (!Decimal(std::string_view(member).substr(1), &at) || at >= long_names.size())
          return BinaryError(name, p, "ar member long name " + member + " outside the name table");
        const size_t end = long_names.find("/\n", at);
        member = std::string(long_names.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
      } else if (member.rfind("#1/", 0) == 0) {
        uint64_t n = 0;
        if (!Decimal(std::string_view(member).substr(3), &n) || n > bytes.size())
          return BinaryError(name, p, "ar member BSD name length outside the member");
        // BSD pads the name with NULs to a multiple of 4 or 8 bytes.
        member = std::string(bytes.substr(0, n));
        while (!member.empty() && member.back() == '\0') member.pop_back();
        bytes.remove_prefix(n);
        offset += n;
      } else if (!member.empty() && member.back() == '/') {
        member.pop_back();
      }
      // A member's name is a file's: longer than any path is damage (a BSD
      // name length that takes the member's whole body).
      if (member.size() > kMaxMemberName)
        return BinaryError(name, p, "ar member name of " + std::to_string(member.size()) +
                                        " bytes, longer than a file name can be");
      // BSD symbol tables: "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64",
      // in the header or (Darwin) as a "#1/N" name.
      if (member.rfind("__.SYMDEF", 0) != 0) members.push_back(ArMember{member, offset, bytes});
    }
    p = start + size + (size & 1);
  }
  return members;
}

}  // namespace gpugate
