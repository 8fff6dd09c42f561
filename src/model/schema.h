// gpugate's one schema convention. Every JSON file gpugate writes names its
// format first: "schema": "gpugate/<kind>/v<major>" (results, baseline,
// verdicts, device-profile, trace-analysis, ...). A reader accepts the major
// it knows with any minor, "v<major>.<minor>": a minor version only adds
// members, which readers ignore. Readers of every kind check it here.
#pragma once

#include <string>
#include <string_view>

namespace gpugate {

/// "gpugate/<kind>/v<major>", the value writers put in "schema".
std::string SchemaName(std::string_view kind, int major);

/// Checks a "schema" value against `kind` and the `major` version this
/// gpugate reads. Returns "" when it names them (with any minor, stored in
/// `*minor` when given, 0 when the value has none), else the sentence to
/// report at the member: "not a gpugate <kind> file: schema 'X', expected
/// 'gpugate/<kind>/v1'" or "unsupported <kind> schema 'X' (this gpugate reads
/// v1)".
std::string CheckSchema(std::string_view value, std::string_view kind, int major, int* minor = nullptr);

}  // namespace gpugate
