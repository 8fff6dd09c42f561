// A stand-in for an nvbench program, for tests of `kind: nvbench` on machines
// without a GPU. It takes the part of nvbench's command line gpugate uses
// (--benchmark/-b NAME, --axis/-a "Elements=[...]", --jsonbin/--json PATH)
// and writes nvbench's JSON format 1.0 with --jsonbin sample files
// (little-endian float32 seconds in "<PATH>-bin/<k>.bin"):
//  - "copy" and "hash": CPU-only benchmarks (nvbench's set_is_cpu_only), one
//    state per Elements value, 20 samples each, timed for real here;
//  - "gpu_reduce": a GPU benchmark; with no device its states are skipped
//    with a reason, as nvbench skips states it cannot run.
// NVBENCH_STANDIN_HASH_PERCENT=30 makes "hash" do 30% more work.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct State {
  std::string benchmark;
  int64_t elements = 0;
  bool skipped = false;
  std::vector<float> samples;
};

volatile uint64_t g_sink = 0;

double TimeOnce(const std::string& benchmark, int64_t elements, int extra_percent) {
  std::vector<uint64_t> a(static_cast<size_t>(elements), 1), b(a.size());
  const auto start = std::chrono::steady_clock::now();
  if (benchmark == "copy") {
    std::memcpy(b.data(), a.data(), a.size() * sizeof(uint64_t));
    g_sink = g_sink + b[b.size() / 2];
  } else {
    const int64_t steps = elements + elements * extra_percent / 100;
    uint64_t h = 1469598103934665603ull;
    for (int64_t i = 0; i < steps; ++i) h = (h ^ static_cast<uint64_t>(i)) * 1099511628211ull;
    g_sink = g_sink + h;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<int64_t> ParseElements(const std::string& axis) {
  // "Elements=[1024,4096]" or "Elements=1024"
  std::vector<int64_t> out;
  std::string v = axis.substr(axis.find('=') + 1);
  for (char& c : v)
    if (c == '[' || c == ']' || c == ',') c = ' ';
  char* p = v.data();
  while (*p) {
    char* end = nullptr;
    long long x = std::strtoll(p, &end, 10);
    if (end == p) {
      ++p;
      continue;
    }
    out.push_back(x);
    p = end;
  }
  return out;
}

std::string Summary(const std::string& tag, const std::string& type, const std::string& value) {
  return R"({"tag": ")" + tag + R"(", "data": [{"name": "value", "type": ")" + type + R"(", "value": ")" +
         value + R"("}]})";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> selected;
  std::vector<int64_t> elements = {4096, 65536};
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "nvbench_standin: %s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--benchmark" || a == "-b") {
      selected.push_back(next());
    } else if (a == "--axis" || a == "-a") {
      std::string axis = next();
      if (axis.rfind("Elements", 0) == 0) elements = ParseElements(axis);
    } else if (a == "--jsonbin" || a == "--json") {
      out = next();
    } else {
      std::fprintf(stderr, "nvbench_standin: unknown argument '%s'\n", a.c_str());
      return 1;
    }
  }
  const char* percent = std::getenv("NVBENCH_STANDIN_HASH_PERCENT");
  const int extra = percent ? std::atoi(percent) : 0;
  const std::vector<std::string> all = {"copy", "hash", "gpu_reduce"};
  if (selected.empty()) selected = all;
  for (const std::string& s : selected) {
    bool known = false;
    for (const std::string& a : all) known = known || a == s;
    if (!known) {
      std::fprintf(stderr, "nvbench_standin: no benchmark named '%s'\n", s.c_str());
      return 1;
    }
  }

  std::vector<State> states;
  for (const std::string& b : all) {
    bool want = false;
    for (const std::string& s : selected) want = want || s == b;
    if (!want) continue;
    for (int64_t n : elements) {
      State st{b, n, b == "gpu_reduce", {}};
      if (!st.skipped) {
        for (int k = 0; k < 3; ++k) TimeOnce(b, n, extra);  // warmup
        for (int k = 0; k < 20; ++k) st.samples.push_back(static_cast<float>(TimeOnce(b, n, extra)));
      }
      states.push_back(std::move(st));
    }
  }
  if (out.empty()) return 0;  // nvbench prints markdown to stdout; nothing to write

  const std::string bin_dir = out + "-bin";
  std::filesystem::create_directories(bin_dir);
  std::string json = R"({"meta": {"argv": [)";
  for (int i = 0; i < argc; ++i) json += std::string(i ? ", " : "") + "\"" + argv[i] + "\"";
  json += R"(], "version": {"json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"}, )"
          R"("nvbench": {"major": 0, "minor": 1, "patch": 0, "string": "0.1.0"}}}, "devices": [], "benchmarks": [)";
  size_t file_index = 0;
  for (size_t bi = 0; bi < all.size(); ++bi) {
    std::string body;
    int count = 0;
    for (const State& st : states) {
      if (st.benchmark != all[bi]) continue;
      if (count++) body += ", ";
      body += R"({"name": "Elements=)" + std::to_string(st.elements) +
              R"(", "axis_values": [{"name": "Elements", "type": "int64", "value": ")" +
              std::to_string(st.elements) + R"("}], "summaries": [)";
      if (st.skipped) {
        body += R"(], "is_skipped": true, "skip_reason": "No CUDA device is available."})";
        continue;
      }
      double mean = 0;
      for (float f : st.samples) mean += f;
      mean /= static_cast<double>(st.samples.size());
      const std::string file = std::filesystem::path(bin_dir).filename().string() + "/" +
                               std::to_string(file_index++) + ".bin";
      std::ofstream bin(std::filesystem::path(out).parent_path() / file, std::ios::binary);
      for (float f : st.samples) {
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        for (int i = 0; i < 4; ++i) bin.put(static_cast<char>((bits >> (8 * i)) & 0xff));
      }
      char mean_text[64];
      std::snprintf(mean_text, sizeof mean_text, "%.9g", mean);
      body += Summary("nv/cpu_only/sample_size", "int64", std::to_string(st.samples.size())) + ", " +
              Summary("nv/cpu_only/time/cpu/mean", "float64", mean_text) + ", " +
              R"({"tag": "nv/json/bin:nv/cpu_only/sample_times", "data": [{"name": "filename", "type": "string", "value": ")" +
              file + R"("}, {"name": "size", "type": "int64", "value": ")" + std::to_string(st.samples.size()) +
              R"("}]}], "is_skipped": false})";
    }
    if (count == 0) continue;
    if (json.back() == '}') json += ", ";
    json += R"({"name": ")" + all[bi] + R"(", "index": )" + std::to_string(bi) +
            R"(, "devices": [], "axes": [{"name": "Elements", "type": "int64", "flags": "", "values": []}], "states": [)" +
            body + "]}";
  }
  json += "]}\n";
  std::ofstream(out) << json;
  return 0;
}
