// The one schema check (see schema.h).
#include "model/schema.h"

#include <charconv>

namespace gpugate {
namespace {

// A run of ASCII digits, whole: "12" -> 12; "", "1a", "+1" or past int -> false.
bool WholeNumber(std::string_view text, int* out) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string SchemaName(std::string_view kind, int major) {
  return "gpugate/" + std::string(kind) + "/v" + std::to_string(major);
}

std::string CheckSchema(std::string_view value, std::string_view kind, int major, int* minor) {
  const std::string expected = SchemaName(kind, major);
  const std::string prefix = "gpugate/" + std::string(kind) + "/v";
  if (value.substr(0, prefix.size()) != prefix)
    return "not a gpugate " + std::string(kind) + " file: schema '" + std::string(value) + "', expected '" +
           expected + "'";
  const std::string_view version = value.substr(prefix.size());
  const size_t dot = version.find('.');
  int file_major = -1, file_minor = 0;
  const bool well_formed = WholeNumber(version.substr(0, dot), &file_major) &&
                           (dot == std::string_view::npos || WholeNumber(version.substr(dot + 1), &file_minor));
  if (!well_formed || file_major != major)
    return "unsupported " + std::string(kind) + " schema '" + std::string(value) + "' (this gpugate reads v" +
           std::to_string(major) + ")";
  if (minor != nullptr) *minor = file_minor;
  return "";
}

}  // namespace gpugate
