// See config_layers.h. The file is read by toml++ (Debian's libtomlplusplus-dev,
// used header-only); its keys are the long option names ('_' may stand for '-').
#include "cli/config_layers.h"

#include <algorithm>
#include <cstdint>
#include <cctype>
#include <limits>
#include <optional>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
#include <toml++/toml.h>

#include "core/read_fd.h"
#include "core/unique_fd.h"

namespace pacer::cli {
namespace {

constexpr std::string_view kCommandLine = "command line";

struct Setting {
  const OptionSpec* spec = nullptr;  // null: the URL
  std::string value;                 // empty with a flag
  bool is_flag = false;              // a flag given (no value)
  std::string origin;
  std::uint32_t line = 0;            // in the file (its keys come back sorted by name)
};

// -h and -v answer at once: not settings (PACER_VERSION is a build's variable).
bool is_setting(const OptionSpec& spec) { return spec.long_name != "help" && spec.long_name != "version"; }

const OptionSpec* find_long(std::span<const OptionSpec> specs, std::string_view name) {
  const auto it = std::find_if(specs.begin(), specs.end(), [name](const OptionSpec& s) { return s.long_name == name; });
  return it == specs.end() ? nullptr : &*it;
}

const OptionSpec* find_short(std::span<const OptionSpec> specs, char name) {
  const auto it = std::find_if(specs.begin(), specs.end(), [name](const OptionSpec& s) { return s.short_name == name; });
  return it == specs.end() ? nullptr : &*it;
}

// The command line without --config and --print-config (the scanner's rules: a
// separated value is skipped whatever it looks like; `--` ends the options).
struct CommandLine {
  std::vector<std::string> args;
  std::optional<std::string> config_path;
  bool print_config = false;
};

Result<CommandLine> take_own_options(std::span<const std::string> args, std::span<const OptionSpec> specs) {
  CommandLine out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      out.args.insert(out.args.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (arg.starts_with("--")) {
      const std::string_view body = std::string_view(arg).substr(2);
      const std::size_t eq = body.find('=');
      const std::string_view name = body.substr(0, eq);
      if (name == "print-config") {
        if (eq != std::string_view::npos) return bad_argument("--print-config: takes no value");
        out.print_config = true;
        continue;
      }
      if (name == "config") {
        if (eq != std::string_view::npos) {
          out.config_path = std::string(body.substr(eq + 1));
        } else if (i + 1 < args.size()) {
          out.config_path = args[++i];
        } else {
          return bad_argument("--config: missing value (a TOML file of long option names)");
        }
        if (out.config_path->empty()) return bad_argument("--config: the file name is empty");
        continue;
      }
      out.args.push_back(arg);
      const OptionSpec* spec = find_long(specs, name);
      if (spec != nullptr && spec->takes_value && eq == std::string_view::npos && i + 1 < args.size()) {
        out.args.push_back(args[++i]);
      }
      continue;
    }
    out.args.push_back(arg);
    if (arg.size() < 2 || arg[0] != '-') continue;
    for (std::size_t c = 1; c < arg.size(); ++c) {  // a cluster: the first option with a value takes the rest
      const OptionSpec* spec = find_short(specs, arg[c]);
      if (spec == nullptr || !spec->takes_value) continue;
      if (c + 1 == arg.size() && i + 1 < args.size()) out.args.push_back(args[++i]);
      break;
    }
  }
  return out;
}

// TOML scalar -> the option's text.
std::optional<std::string> scalar_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* f = node.as_floating_point()) return fmt::format("{}", f->get());
  return std::nullopt;
}

std::string normalized_key(std::string_view key) {
  std::string out(key);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

// One file key's settings (an array gives one per element: -H, --slo, ...).
Status file_setting(const OptionSpec* spec, const std::string& key, const toml::node& node, const std::string& where,
                    std::vector<Setting>& out) {
  const bool is_flag_option = !spec->takes_value && spec->accepts_next_as_value == nullptr;
  if (const auto* b = node.as_boolean()) {
    if (spec->takes_value) return bad_input(fmt::format("{}: {} takes a value, not true/false", where, key));
    if (b->get()) out.push_back({spec, {}, true, where});
    return Ok{};
  }
  if (is_flag_option) return bad_input(fmt::format("{}: {} is a flag: give true or false", where, key));
  if (const auto* array = node.as_array()) {
    for (const toml::node& element : *array) {
      auto text = scalar_text(element);
      if (!text) return bad_input(fmt::format("{}: {}: the list holds something that is not a string or number", where, key));
      out.push_back({spec, std::move(*text), false, where});
    }
    return Ok{};
  }
  auto text = scalar_text(node);
  if (!text) return bad_input(fmt::format("{}: {}: expected a string, a number or a list of them", where, key));
  out.push_back({spec, std::move(*text), false, where});
  return Ok{};
}

constexpr std::uint64_t kMaxConfigBytes = 1 << 20;

// The file's text: a regular file of at most 1 MiB (not a directory, whose read
// toml++ takes as an empty file, nor /dev/zero).
Result<std::string> read_config_text(const std::string& path) {
  const std::string prefix = fmt::format("--config {}: ", path);
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) return bad_input(prefix + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    return bad_input(prefix + (S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file") +
                     " (a TOML file of settings is expected)");
  }
  ReadToEnd read = read_to_end(fd.get(), kMaxConfigBytes);
  if (read.err != 0) return bad_input(prefix + std::strerror(read.err));
  if (read.past_cap) return bad_input(prefix + "larger than 1 MiB");
  return std::move(read.bytes);
}

Result<std::vector<Setting>> read_file(const std::string& path, std::span<const OptionSpec> specs) {
  auto text = read_config_text(path);
  if (!text) return text.error();
  toml::table table;
  try {
    table = toml::parse(*text, path);
  } catch (const toml::parse_error& e) {
    const auto line = e.source().begin.line;
    return bad_input(fmt::format("--config {}:{}: {}", path, line, e.description()));
  } catch (const std::exception& e) {
    return bad_input(fmt::format("--config {}: {}", path, e.what()));
  }
  std::vector<Setting> out;
  for (const auto& [toml_key, node] : table) {
    const std::string key(toml_key.str());
    const std::uint32_t line = node.source().begin.line;
    const std::string where = fmt::format("{}:{}", path, line);
    const std::size_t first = out.size();
    const std::string name = normalized_key(key);
    if (name == "url") {
      const auto* url = node.as_string();
      if (url == nullptr) return bad_input(fmt::format("{}: url must be a string", where));
      out.push_back({nullptr, url->get(), false, where, line});
      continue;
    }
    const OptionSpec* spec = name == "config" || name == "print-config" ? nullptr : find_long(specs, name);
    if (spec == nullptr || !is_setting(*spec)) {
      return bad_input(fmt::format("{}: unknown key '{}' (keys are the long option names of pacer --help, and url)",
                                   where, key));
    }
    if (Status s = file_setting(spec, key, node, where, out); !s) return s.error();
    for (std::size_t i = first; i < out.size(); ++i) out[i].line = line;
  }
  std::stable_sort(out.begin(), out.end(), [](const Setting& a, const Setting& b) { return a.line < b.line; });
  return out;
}

std::optional<bool> env_flag(std::string_view value) {
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* yes : {"1", "true", "yes", "on"}) {
    if (lower == yes) return true;
  }
  for (const char* no : {"0", "false", "no", "off", ""}) {
    if (lower == no) return false;
  }
  return std::nullopt;
}

Result<std::vector<Setting>> read_env(std::span<const std::string> env, std::span<const OptionSpec> specs) {
  std::vector<Setting> out;
  for (const std::string& entry : env) {
    if (!entry.starts_with("PACER_")) continue;
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    const std::string value = entry.substr(eq + 1);
    const std::string origin = "environment " + name;
    if (name == "PACER_URL") {
      if (!value.empty()) out.push_back({nullptr, value, false, origin});
      continue;
    }
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return is_setting(s) && env_name(s.long_name) == name; });
    if (spec == specs.end()) continue;  // not an option's variable (PACER_BIN, PACER_HTTP3_MODULE, ...)
    if (spec->takes_value) {
      out.push_back({&*spec, value, false, origin});
      continue;
    }
    const std::optional<bool> flag = env_flag(value);
    if (spec->accepts_next_as_value != nullptr && !flag) {  // --web's optional address
      out.push_back({&*spec, value, false, origin});
    } else if (!flag) {
      return bad_argument(fmt::format("{}: --{} is a flag: expected 1/0, true/false, yes/no or on/off, got '{}'", name,
                                      spec->long_name, value));
    } else if (*flag) {
      out.push_back({&*spec, {}, true, origin});
    }
  }
  return out;
}

void append(const Setting& s, LayeredArgs& out) {
  if (s.spec == nullptr) {
    out.args.push_back(s.value);
    out.origins.push_back({"url", s.value, s.origin});
  } else if (s.is_flag) {
    out.args.push_back(fmt::format("--{}", s.spec->long_name));
    out.origins.push_back({std::string(s.spec->long_name), "true", s.origin, true});
  } else {
    out.args.push_back(fmt::format("--{}={}", s.spec->long_name, s.value));
    out.origins.push_back({std::string(s.spec->long_name), s.value, s.origin});
  }
}

}  // namespace

std::vector<std::string> pacer_environment() {
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (std::string_view(*entry).starts_with("PACER_")) out.emplace_back(*entry);
  }
  return out;
}

std::string env_name(std::string_view long_name) {
  std::string out = "PACER_";
  for (char c : long_name) out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

Result<LayeredArgs> apply_config_layers(std::span<const std::string> args, std::span<const std::string> env,
                                        std::span<const OptionSpec> specs, bool takes_url) {
  auto command_line = take_own_options(args, specs);
  if (!command_line) return command_line.error();
  std::vector<Setting> file;
  if (command_line->config_path) {
    auto read = read_file(*command_line->config_path, specs);
    if (!read) return read.error();
    file = std::move(*read);
  }
  auto environment = read_env(env, specs);
  if (!environment) return environment.error();

  const ScanResult scan = scan_options(command_line->args, specs, "pacer --help");
  std::set<int> given;  // option ids given on a higher layer; a lower layer's values of them are dropped
  for (const ScannedOption& o : scan.options) given.insert(o.id);
  constexpr int kUrl = std::numeric_limits<int>::min();
  if (!scan.positionals.empty() || !takes_url) given.insert(kUrl);
  const auto id_of = [&](const Setting& s) { return s.spec == nullptr ? kUrl : s.spec->id; };

  LayeredArgs out;
  out.print_config = command_line->print_config;
  std::set<int> from_env;
  for (const Setting& s : environment.value()) from_env.insert(id_of(s));
  // Options first, the URL after them (it is the first positional whatever the order).
  for (bool urls : {false, true}) {
    for (const Setting& s : file) {
      if ((s.spec == nullptr) == urls && !given.contains(id_of(s)) && !from_env.contains(id_of(s))) append(s, out);
    }
    for (const Setting& s : environment.value()) {
      if ((s.spec == nullptr) == urls && !given.contains(id_of(s))) append(s, out);
    }
  }
  for (const ScannedOption& o : scan.options) {
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.id == o.id; });
    const std::string name = spec != specs.end() ? std::string(spec->long_name) : o.flag;
    const bool is_flag = o.value.empty() && spec != specs.end() && !spec->takes_value;
    out.origins.push_back({name, is_flag ? "true" : o.value, std::string(kCommandLine), is_flag});
  }
  for (std::size_t i = 0; i < scan.positionals.size(); ++i) {
    out.origins.push_back({i == 0 ? "url" : "argument", scan.positionals[i], std::string(kCommandLine)});
  }
  out.args.insert(out.args.end(), command_line->args.begin(), command_line->args.end());
  return out;
}

Error with_origin(Error error, const LayeredArgs& layered) {
  for (const SettingOrigin& s : layered.origins) {
    if (s.origin == kCommandLine) continue;
    const std::string flag = fmt::format("--{}", s.name);
    const bool names_it = error.message.starts_with(flag) && error.message.size() > flag.size() &&
                          (error.message[flag.size()] == ':' || error.message[flag.size()] == ' ');
    if (names_it || (s.name == "url" && error.message.find(s.value) != std::string::npos)) {
      error.message = fmt::format("{} ({}): {}", s.origin, s.name, error.message);
      return error;
    }
  }
  return error;
}

}  // namespace pacer::cli
