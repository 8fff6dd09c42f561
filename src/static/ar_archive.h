// Reader of Unix ar archives (static libraries, `.a`): the members with
// their names, the GNU long-name table resolved. Bounds-checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace gpugate {

struct ArMember {
  std::string name;
  uint64_t offset = 0;     ///< file offset of the member's bytes
  std::string_view bytes;  ///< views the archive
};

/// Whether `data` starts with "!<arch>\n".
bool IsArArchive(std::string_view data);

/// The members of the archive `data`, without the symbol tables ("/",
/// "/SYM64/", "__.SYMDEF") and the long-name table ("//"). Errors (exit 2)
/// name `name` and the offset.
Result<std::vector<ArMember>> ParseArArchive(std::string_view data, const std::string& name);

}  // namespace gpugate
