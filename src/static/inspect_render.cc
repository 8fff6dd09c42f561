// Inspect renderers (see inspect_render.h).
#include "static/inspect_render.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "util/json_writer.h"
#include "util/text/escape.h"

namespace gpugate {

namespace {

using Writer = rapidjson::PrettyWriter<JsonStringBuffer>;

constexpr size_t kMaxNameColumn = 60;

template <class T>
std::string Opt(const std::optional<T>& v) {
  return v.has_value() ? std::to_string(*v) : std::string("-");
}

std::string DimsText(const std::optional<std::array<int64_t, 3>>& d) {
  if (!d.has_value()) return "-";
  return std::to_string((*d)[0]) + "x" + std::to_string((*d)[1]) + "x" + std::to_string((*d)[2]);
}

void WriteDims(Writer& w, const char* key, const std::optional<std::array<int64_t, 3>>& d) {
  w.Key(key);
  if (!d.has_value()) {
    w.Null();
    return;
  }
  w.StartArray();
  for (int64_t v : *d) w.Int64(v);
  w.EndArray();
}

void WriteKernel(Writer& w, const KernelInfo& k, const KernelExtras* x) {
  w.StartObject();
  WriteJsonField(w, "name", k.name);
  WriteJsonField(w, "arch", ArchText(k));
  WriteJsonField(w, "registers", k.registers);
  WriteJsonField(w, "stack_frame_bytes", k.stack_frame);
  WriteJsonField(w, "min_stack_bytes", k.min_stack);
  WriteJsonField(w, "shared_bytes", k.shared_bytes);
  WriteJsonField(w, "shared_reserved_bytes", k.shared_reserved);
  WriteJsonField(w, "param_bytes", k.param_bytes);
  WriteJsonField(w, "cbank0_bytes", k.cbank0_bytes);
  WriteDims(w, "max_threads", k.max_threads);
  WriteDims(w, "required_threads", k.req_threads);
  WriteJsonField(w, "max_registers", k.max_registers);
  WriteJsonField(w, "barriers", k.barriers);
  WriteDims(w, "cluster_dims", k.cluster_dims);
  WriteJsonField(w, "sass_bytes", k.sass_bytes);
  WriteJsonField(w, "instructions", k.instructions);
  WriteJsonField(w, "sass_hash", SassHashText(k.sass_hash));
  WriteJsonField(w, "spill_stores_bytes", x ? x->spill_stores : std::nullopt);
  WriteJsonField(w, "spill_loads_bytes", x ? x->spill_loads : std::nullopt);
  w.Key("occupancy");
  if (x && x->occupancy) {
    const Occupancy& o = *x->occupancy;
    w.StartObject();
    WriteJsonField(w, "block_size", o.block_size);
    WriteJsonField(w, "blocks_per_sm", o.blocks_per_sm);
    WriteJsonField(w, "active_warps", o.active_warps);
    WriteJsonField(w, "max_warps", o.max_warps);
    WriteJsonField(w, "fraction", o.fraction);
    WriteJsonField(w, "limiter", o.limiter);
    w.EndObject();
  } else {
    w.Null();
  }
  if (x && !x->occupancy && !x->occupancy_note.empty()) WriteJsonField(w, "occupancy_note", x->occupancy_note);
  w.EndObject();
}

}  // namespace

std::string SassHashText(uint64_t hash) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

std::string RenderInspectTable(const InspectReport& report) {
  bool spills = false, occupancy = false;
  // Why kernels have no occupancy (an arch without known limits, a build
  // without cuda_occupancy.h): said once each under the table, not only in
  // the JSON.
  std::vector<std::string> occupancy_notes;
  for (const InspectedCubin& c : report.cubins)
    for (const KernelExtras& x : c.extras) {
      spills = spills || x.spill_stores.has_value();
      occupancy = occupancy || x.occupancy.has_value() || !x.occupancy_note.empty();
      if (!x.occupancy && !x.occupancy_note.empty() && occupancy_notes.size() < 8 &&
          std::find(occupancy_notes.begin(), occupancy_notes.end(), x.occupancy_note) == occupancy_notes.end())
        occupancy_notes.push_back(x.occupancy_note);
    }
  std::vector<std::string> header = {"kernel",      "arch", "regs",    "stack", "smem",  "param",
                                     "max threads", "bars", "cluster", "sass",  "instr"};
  if (spills) header.push_back("spill st/ld");
  if (occupancy) header.push_back("occupancy");
  header.push_back("sass hash");
  std::vector<std::vector<std::string>> rows;
  for (const InspectedCubin& c : report.cubins)
    for (size_t i = 0; i < c.cubin.kernels.size(); ++i) {
      const KernelInfo& k = c.cubin.kernels[i];
      const KernelExtras* x = i < c.extras.size() ? &c.extras[i] : nullptr;
      std::vector<std::string> row = {
          EscapeTerminal(k.name), ArchText(k),
          Opt(k.registers), Opt(k.stack_frame), std::to_string(k.shared_bytes), Opt(k.param_bytes),
          DimsText(k.max_threads), std::to_string(k.barriers), DimsText(k.cluster_dims),
          std::to_string(k.sass_bytes), Opt(k.instructions)};
      if (spills)
        row.push_back(x && x->spill_stores ? std::to_string(*x->spill_stores) + "/" + std::to_string(*x->spill_loads)
                                           : "-");
      if (occupancy) {
        std::string cell = "-";
        if (x && x->occupancy) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.0f%% @%d %s", x->occupancy->fraction * 100.0,
                        x->occupancy->block_size, x->occupancy->limiter.c_str());
          cell = buf;
        }
        row.push_back(cell);
      }
      row.push_back(SassHashText(k.sass_hash));
      rows.push_back(std::move(row));
    }
  // Kernel names (C++ templates run to thousands of characters) shortened,
  // two that would look alike told apart.
  std::vector<std::string> names;
  for (const auto& r : rows) names.push_back(r[0]);
  names = ShortenColumn(names, static_cast<int>(kMaxNameColumn));
  for (size_t j = 0; j < rows.size(); ++j) rows[j][0] = names[j];
  std::vector<int> width(header.size());
  for (size_t i = 0; i < header.size(); ++i) width[i] = DisplayWidth(header[i]);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], DisplayWidth(r[i]));
  std::string out = EscapeTerminal(report.file) + " (" + report.format + "): " + std::to_string(rows.size()) +
                    " kernel" + (rows.size() == 1 ? "" : "s") + " in " + std::to_string(report.cubins.size()) +
                    " cubin" + (report.cubins.size() == 1 ? "" : "s") + "\n";
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l = " ";
    for (size_t i = 0; i < cells.size(); ++i)
      l += " " + PadText(cells[i], width[i], /*align_right=*/i >= 2 && i + 1 < cells.size());
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  if (!rows.empty()) {
    line(header);
    for (const auto& r : rows) line(r);
  }
  for (const std::string& n : occupancy_notes) out += "  note: " + EscapeTerminal(n) + "\n";
  for (const InspectNote& n : report.notes)
    out += "  note: " + EscapeTerminal(n.source) + ": " + EscapeTerminal(n.message) + "\n";
  return out;
}

std::string InspectToJson(const InspectReport& report) {
  JsonStringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  WriteJsonField(w, "schema", kInspectSchema);
  WriteJsonField(w, "file", report.file);
  WriteJsonField(w, "format", report.format);
  w.Key("cubins");
  w.StartArray();
  for (const InspectedCubin& c : report.cubins) {
    w.StartObject();
    WriteJsonField(w, "source", c.source);
    WriteJsonField(w, "arch", ArchText(c.cubin.arch, c.cubin.arch_variant));
    WriteJsonField(w, "compression", ToString(c.compression));
    w.Key("kernels");
    w.StartArray();
    for (size_t i = 0; i < c.cubin.kernels.size(); ++i)
      WriteKernel(w, c.cubin.kernels[i], i < c.extras.size() ? &c.extras[i] : nullptr);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("notes");
  w.StartArray();
  for (const InspectNote& n : report.notes) {
    w.StartObject();
    WriteJsonField(w, "source", n.source);
    WriteJsonField(w, "message", n.message);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::string out(buffer.GetString(), buffer.GetSize());
  out += '\n';
  return out;
}

}  // namespace gpugate
