// Device profile JSON (see device_profile.h, docs/kernels.md).
#include "model/device_profile.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cmath>

#include "model/schema.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/json_writer.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {

std::string DeviceProfileToJson(const DeviceProfile& p) {
  JsonStringBuffer buffer;
  rapidjson::PrettyWriter<JsonStringBuffer> w(buffer);
  w.StartObject();
  WriteJsonField(w, "schema", kDeviceProfileSchema);
  WriteJsonField(w, "device_name", p.device_name);
  WriteJsonField(w, "kind", p.kind);
  WriteJsonField(w, "peak_bytes_per_second", p.peak_bytes_per_second);
  WriteJsonField(w, "peak_fp32_flops", p.peak_fp32_flops);
  WriteJsonField(w, "peak_fp16_flops", p.peak_fp16_flops);
  WriteJsonField(w, "launch_overhead_s", p.launch_overhead_s);
  WriteJsonField(w, "method", p.method);
  WriteJsonField(w, "measured_utc", p.measured_utc);
  WriteJsonField(w, "tool_version", p.tool_version);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

Result<DeviceProfile> DeviceProfileFromJson(std::string_view text, const std::string& name) {
  Result<JsonValue> parsed = ParseJson(text, name);
  if (!parsed.ok()) return parsed.error();
  const JsonValue& root = *parsed;
  if (!root.IsObject()) return JsonError(name, root, "", "expected an object (a device profile)");
  const JsonValue* schema = root.Find("schema");
  if (schema == nullptr) return JsonError(name, root, "", "missing 'schema' (expected '" + std::string(kDeviceProfileSchema) + "')");
  if (!schema->IsString())
    return JsonError(name, *schema, "schema", "expected a string ('" + std::string(kDeviceProfileSchema) + "')");
  if (std::string error = CheckSchema(schema->string, "device-profile", 1); !error.empty())
    return JsonError(name, *schema, "schema", error);
  DeviceProfile p;
  bool have_name = false, have_bw = false, have_fp32 = false, have_launch = false;
  for (const auto& member : root.members) {
    const std::string& key = member.first;
    const JsonValue& v = member.second;
    auto number = [&](double* out, bool positive) -> Status {
      if (!v.IsNumber() || !std::isfinite(v.number) || v.number < 0 || (positive && v.number == 0))
        return JsonError(name, v, key,
                         std::string("expected a finite number ") + (positive ? "greater than 0" : "of 0 or more") +
                             ", got " + (v.IsNumber() ? FormatExactNumber(v.number) : v.TypeName()));
      *out = v.number;
      return {};
    };
    auto text_field = [&](std::string* out) -> Status {
      if (!v.IsString()) return JsonError(name, v, key, std::string("expected a string, got ") + v.TypeName());
      *out = v.string;
      return {};
    };
    Status st;
    if (key == "schema") {
      continue;
    } else if (key == "device_name") {
      st = text_field(&p.device_name);
      have_name = true;
    } else if (key == "kind") {
      st = text_field(&p.kind);
      if (st.ok() && p.kind != "gpu" && p.kind != "cpu")
        return JsonError(name, v, key, "expected \"gpu\" or \"cpu\", got " + QuoteInput(p.kind));
    } else if (key == "peak_bytes_per_second") {
      st = number(&p.peak_bytes_per_second, true);
      have_bw = true;
    } else if (key == "peak_fp32_flops") {
      st = number(&p.peak_fp32_flops, true);
      have_fp32 = true;
    } else if (key == "peak_fp16_flops") {
      if (!v.IsNull()) {
        double x = 0;
        st = number(&x, true);
        p.peak_fp16_flops = x;
      }
    } else if (key == "launch_overhead_s") {
      st = number(&p.launch_overhead_s, false);
      have_launch = true;
    } else if (key == "method") {
      st = text_field(&p.method);
    } else if (key == "measured_utc") {
      st = text_field(&p.measured_utc);
    } else if (key == "tool_version") {
      st = text_field(&p.tool_version);
    } else {
      return JsonError(name, v, key, "unknown key '" + key + "' in a device profile");
    }
    if (!st.ok()) return st.error();
  }
  const char* missing = !have_name ? "device_name" : !have_bw ? "peak_bytes_per_second"
                        : !have_fp32 ? "peak_fp32_flops" : !have_launch ? "launch_overhead_s" : nullptr;
  if (missing) return JsonError(name, root, "", std::string("missing required '") + missing + "'");
  return p;
}

Result<DeviceProfile> ReadDeviceProfileFile(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.error();
  return DeviceProfileFromJson(*text, path);
}

}  // namespace gpugate
