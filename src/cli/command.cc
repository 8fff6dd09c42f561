// Shared command-line plumbing: option parsing, errors, version.
#include "cli/command.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "util/file_write.h"
#include "util/strings.h"
#include "util/text/escape.h"

namespace po = boost::program_options;

namespace gpugate {

const char* Version() { return GPUGATE_VERSION; }

namespace {

// A message's later lines are indented (those that are not already), so that
// no line of it can pass for a line of gpugate's own output ("PASS: ...",
// "gpugate: error: ...") when it quotes a file name holding a line feed.
std::string MessageLines(const std::string& message) {
  const std::string text = EscapeTerminalLines(message);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\t' &&
        text[i + 1] != '\n')
      out += "  ";
  }
  return out;
}

}  // namespace

int ReportError(const Error& error) {
  std::cerr << "gpugate: error: " << MessageLines(error.message) << "\n";
  return static_cast<int>(error.code);
}

void ReportWarning(const std::string& message) {
  std::cerr << "gpugate: warning: " << MessageLines(message) << "\n";
}

std::optional<int> ParseCommandLine(const CommandSpec& self, const Args& args,
                                    po::options_description& options,
                                    const po::positional_options_description& positional,
                                    po::variables_map& vm) {
  options.add_options()("help,h", "show this help");
  try {
    // Options are given in full: an abbreviation ("--filt" for --filter) is
    // an unknown option with a suggestion, so a script's words mean one thing
    // in every version (a check for "--filter" cannot miss "--fil").
    const po::parsed_options parsed =
        po::command_line_parser(args)
            .options(options)
            .positional(positional)
            .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
            .run();
    // An unsigned option would take "-1" as 2^64 - 1 (lexical_cast wraps).
    for (const po::option& o : parsed.options) {
      const po::option_description* d = options.find_nothrow(o.string_key, false);
      if (d == nullptr || o.value.empty() || o.value.front().empty() || o.value.front().front() != '-') continue;
      const po::value_semantic* v = d->semantic().get();
      if (dynamic_cast<const po::typed_value<uint64_t>*>(v) != nullptr ||
          dynamic_cast<const po::typed_value<uint32_t>*>(v) != nullptr ||
          dynamic_cast<const po::typed_value<unsigned long long>*>(v) != nullptr)
        throw po::error("--" + d->long_name() + " must not be negative, got " + o.value.front());
    }
    po::store(parsed, vm);
    if (vm.count("help")) {
      std::cout << "usage: " << self.usage << "\n\n" << self.summary << "\n\n" << options << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    std::vector<std::string> names;
    for (const auto& opt : options.options()) names.push_back("--" + opt->long_name());
    std::string bad = e.get_option_name();
    std::cerr << "gpugate: error: " << self.name << ": unknown option '" << EscapeTerminal(bad) << "'"
              << DidYouMean(bad, names) << "\n"
              << "usage: " << self.usage << " (see 'gpugate " << self.name << " --help')\n";
    return 2;
  } catch (const po::required_option& e) {
    // A positional argument is named as the usage line names it, not as the
    // option that holds it ("--baseline").
    std::string name = e.get_option_name();
    if (name.rfind("--", 0) == 0) name = name.substr(2);
    bool is_positional = false;
    const unsigned count = positional.max_total_count();
    for (unsigned i = 0; i < count && i < 16; ++i) is_positional = is_positional || positional.name_for_position(i) == name;
    std::string upper;
    for (char c : name) upper += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::cerr << "gpugate: error: " << self.name << ": "
              << (is_positional ? "missing the " + upper + " argument"
                                : "the option '--" + name + "' is required but missing")
              << "\n"
              << "usage: " << self.usage << " (see 'gpugate " << self.name << " --help')\n";
    return 2;
  } catch (const po::error& e) {
    // One line: a value quoted in it shows a line feed as \x0a.
    std::cerr << "gpugate: error: " << self.name << ": " << EscapeTerminal(e.what()) << "\n"
              << "usage: " << self.usage << " (see 'gpugate " << self.name << " --help')\n";
    return 2;
  }
  return std::nullopt;
}

namespace {

// Why the folder an output goes in is not one: a file on its way
// ("b.json/reports/v.json": b.json is a file), or it does not exist.
std::string MissingFolderText(const std::filesystem::path& folder) {
  std::error_code ec;
  for (std::filesystem::path at = folder; !at.empty(); at = at.parent_path()) {
    const std::filesystem::file_status st = std::filesystem::status(at, ec);
    if (std::filesystem::is_directory(st)) break;
    if (std::filesystem::exists(st)) return at.string() + " is a file, not a folder";
    if (at == at.parent_path()) break;
  }
  return "the folder " + folder.string() + " does not exist";
}

}  // namespace

Status CheckOutputPaths(const po::variables_map& vm, std::vector<std::string> inputs) {
  namespace fs = std::filesystem;
  // The command's own input options are inputs too.
  for (const char* option : {"suite", "baseline", "current", "policy", "device-profile", "inputs", "results", "trace",
                             "file", "ptxas-log", "baselines"}) {
    if (!vm.count(option)) continue;
    const boost::any& value = vm[option].value();
    if (const auto* one = boost::any_cast<std::string>(&value)) inputs.push_back(*one);
    if (const auto* many = boost::any_cast<std::vector<std::string>>(&value))
      inputs.insert(inputs.end(), many->begin(), many->end());
  }
  struct Out {
    std::string option, path;
    fs::path where;  // absolute, normal, links of its folder resolved
    bool special = false;  // an existing device, FIFO or socket: written in place
  };
  std::vector<Out> outs;
  std::string to_stdout;  // the option that writes to stdout, if one does
  for (const char* option :
       {"output", "junit", "markdown", "pr-comment", "json", "html", "base-results", "head-results", "flame", "timeline", "memory"}) {
    if (!vm.count(option)) continue;
    const po::variable_value& v = vm[option];
    const std::string* path = boost::any_cast<std::string>(&v.value());
    if (path == nullptr) continue;
    if (path->empty()) return InputError("--" + std::string(option) + " '': an empty name; name a file");
    if (IsStdoutPath(*path)) {
      // Two documents on one stream cannot be read apart by any parser.
      if (!to_stdout.empty())
        return InputError("--" + std::string(option) + " " + *path + ": --" + to_stdout +
                          " writes to stdout too; give one of them a file");
      to_stdout = option;
      continue;
    }
    std::error_code ec;
    // A symlink is followed even when its target does not exist yet: the
    // write would create the target, which another output may name.
    const std::string target = ResolveFinalSymlinks(*path);
    Out o{option, *path, fs::weakly_canonical(fs::absolute(target, ec), ec), false};
    if (ec) o.where = fs::absolute(target, ec).lexically_normal();
    const fs::file_status st = fs::status(*path, ec);
    o.special = fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
    outs.push_back(std::move(o));
  }
  auto same = [](const fs::path& a, const std::string& b) {
    std::error_code ec;
    if (fs::equivalent(a, b, ec) && !ec) return true;
    const fs::path other = fs::weakly_canonical(fs::absolute(b, ec), ec);
    return !ec && other == a;
  };
  for (size_t i = 0; i < outs.size(); ++i) {
    const Out& o = outs[i];
    const std::string flag = "--" + o.option;
    if (o.special) continue;  // /dev/null takes any number of outputs
    for (const std::string& in : inputs) {
      if (in.empty()) continue;
      if (same(o.where, in))
        return InputError(flag + " " + o.path + ": that is the input " + in +
                          "; writing there would replace it: name another file");
      // Into a folder given as an input (baselines, rank traces): a .json or
      // .json.gz there is one it reads, or may read next time; and any file
      // the folder holds, a symlink to one outside included, is an input.
      std::error_code ec;
      if (fs::is_directory(in, ec)) {
        const std::string name = o.where.filename().string();
        const bool readable = name.ends_with(".json") || name.ends_with(".json.gz");
        const fs::path folder = fs::weakly_canonical(fs::absolute(in, ec), ec);
        const auto [end, at] = std::mismatch(folder.begin(), folder.end(), o.where.begin(), o.where.end());
        if (!ec && end == folder.end() && readable)
          return InputError(flag + " " + o.path + ": inside the input folder " + in +
                            ", where it could replace a file it reads; write it elsewhere");
        size_t seen = 0;
        for (auto it = fs::recursive_directory_iterator(in, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
          if (++seen > 100000) break;  // bounded: folders of histories and traces are small
          if (it.depth() >= 2) it.disable_recursion_pending();  // <suite>/<class>.json is as deep as inputs go
          std::error_code type_ec;
          if (it->is_regular_file(type_ec) && same(o.where, it->path().string()))
            return InputError(flag + " " + o.path + ": that is " + it->path().string() + " in the input folder " +
                              in + "; writing there would replace it: name another file");
        }
      }
    }
    for (size_t j = 0; j < i; ++j)
      if (!outs[j].special && outs[j].where == o.where)
        return InputError(flag + " " + o.path + ": --" + outs[j].option +
                          " writes that file too; give each output its own file");
    std::error_code ec;
    const fs::file_status st = fs::status(o.path, ec);
    if (fs::is_directory(st)) return InputError(flag + " " + o.path + ": is a folder; name a file in it");
    fs::path folder = fs::path(o.path).parent_path();
    if (folder.empty()) folder = ".";
    if (!fs::is_directory(folder, ec)) return InputError(flag + " " + o.path + ": " + MissingFolderText(folder));
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
      return InputError(flag + " " + o.path + ": cannot write in " + folder.string() + ": " +
                        std::strerror(errno));
  }
  // --github on GitHub Actions appends to the step summary and the outputs
  // file: a path there that cannot take the append fails now, not after
  // every workload ran and the other reports said pass.
  const char* actions = std::getenv("GITHUB_ACTIONS");
  if (vm.count("github") && actions != nullptr && std::string(actions) == "true") {
    for (const char* variable : {"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"}) {
      const char* value = std::getenv(variable);
      if (value == nullptr || *value == '\0') continue;
      const std::string shown = "--github: $" + std::string(variable) + " '" + value + "'";
      std::error_code ec;
      const fs::file_status st = fs::status(value, ec);
      if (fs::is_directory(st)) return InputError(shown + " is a folder, not a file");
      if (fs::exists(st)) {
        if (::access(value, W_OK) != 0) return InputError(shown + ": cannot append to it: " + std::strerror(errno));
        continue;
      }
      fs::path folder = fs::path(value).parent_path();
      if (folder.empty()) folder = ".";
      if (!fs::is_directory(folder, ec)) return InputError(shown + ": " + MissingFolderText(folder));
      if (::access(folder.c_str(), W_OK | X_OK) != 0)
        return InputError(shown + ": cannot write in " + folder.string() + ": " + std::strerror(errno));
    }
  }
  return Status::Ok();
}

Status CheckOutputFolder(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string flag = "--" + option;
  if (path.empty()) return InputError(flag + " '': an empty name; name a folder");
  if (IsStdoutPath(path)) return InputError(flag + " " + path + ": it writes a folder of files; name a folder");
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (!fs::is_directory(path, ec)) return InputError(flag + " " + path + ": is a file, not a folder; name a folder");
    if (::access(path.c_str(), W_OK | X_OK) != 0)
      return InputError(flag + " " + path + ": cannot write in it: " + std::strerror(errno));
    return Status::Ok();
  }
  // A missing folder is created with its missing parents: the nearest one
  // that exists must be a folder we can write in.
  // A dangling symbolic link on the way cannot be created through: say so
  // now, not as "File exists" after the work. The path as written first:
  // "link/../site" goes through link before "..", whatever the text reads.
  fs::path prefix;
  for (const fs::path& part : fs::absolute(path, ec)) {
    prefix /= part;
    if (part == "." || part == ".." || prefix == prefix.root_path()) continue;
    if (fs::is_symlink(fs::symlink_status(prefix, ec)) && !fs::exists(prefix, ec)) {
      std::error_code read_ec;
      const fs::path target = fs::read_symlink(prefix, read_ec);
      return InputError(flag + " " + path + ": " + prefix.string() + " is a symbolic link to " +
                        (read_ec ? std::string("?") : target.string()) + ", which does not exist");
    }
  }
  fs::path at = fs::absolute(path, ec).lexically_normal();
  if (!at.has_filename()) at = at.parent_path();
  while (at.has_relative_path() && !fs::exists(at, ec)) {
    if (fs::is_symlink(fs::symlink_status(at, ec))) {
      std::error_code read_ec;
      const fs::path target = fs::read_symlink(at, read_ec);
      return InputError(flag + " " + path + ": " + at.string() + " is a symbolic link to " +
                        (read_ec ? std::string("?") : target.string()) + ", which does not exist");
    }
    at = at.parent_path();
  }
  if (!fs::is_directory(at, ec))
    return InputError(flag + " " + path + ": " + at.string() + " is a file, not a folder");
  if (::access(at.c_str(), W_OK | X_OK) != 0)
    return InputError(flag + " " + path + ": cannot create it in " + at.string() + ": " + std::strerror(errno));
  return Status::Ok();
}

void AddReportOptions(po::options_description& options) {
  options.add_options()
      ("junit", po::value<std::string>(), "write JUnit XML to this file ('-' = stdout)")
      ("markdown", po::value<std::string>(), "write a Markdown report to this file ('-' = stdout)")
      ("pr-comment", po::value<std::string>(),
       "write the Markdown report fitted to one pull-request comment (60,000 bytes: folded rows "
       "left out first, then the last rows of each table, counted) to this file ('-' = stdout)")
      ("json", po::value<std::string>(), "write gpugate/verdicts/v2 JSON to this file ('-' = stdout)")
      ("html", po::value<std::string>(), "write a self-contained HTML report to this file ('-' = stdout)")
      ("github", "on GitHub Actions: step summary, outputs and ::error annotations");
}

}  // namespace gpugate
