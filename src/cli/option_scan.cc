// getopt_long-style scanning of argv against a table of OptionSpec; see the header.
#include "cli/option_scan.h"

#include <limits>

#include <fmt/format.h>

#include "cli/units.h"

#include <algorithm>

#include <fmt/format.h>

namespace pacer::cli {
namespace {

const OptionSpec* find_short(std::span<const OptionSpec> specs, char name) {
  const auto it = std::find_if(specs.begin(), specs.end(),
                               [name](const OptionSpec& s) { return s.short_name == name; });
  return it == specs.end() ? nullptr : &*it;
}

const OptionSpec* find_long(std::span<const OptionSpec> specs, std::string_view name) {
  const auto it = std::find_if(specs.begin(), specs.end(),
                               [name](const OptionSpec& s) { return s.long_name == name; });
  return it == specs.end() ? nullptr : &*it;
}

class Scanner {
 public:
  Scanner(std::span<const std::string> args, std::span<const OptionSpec> specs,
          std::string_view help_hint)
      : args_(args), specs_(specs), help_hint_(help_hint) {}

  ScanResult run() {
    bool options_ended = false;
    for (next_ = 0; next_ < args_.size();) {
      const std::size_t scanned = out_.options.size();
      const std::string& arg = args_[next_++];
      if (options_ended || arg == "-" || arg.size() < 2 || arg[0] != '-') {
        out_.positionals.push_back(arg);
      } else if (arg == "--") {
        options_ended = true;
      } else if (arg[1] == '-') {
        scan_long(std::string_view(arg).substr(2));
      } else {
        scan_short_cluster(std::string_view(arg).substr(1));
      }
      // A value is this argument's end or the next argument, the last one taken.
      for (std::size_t i = scanned; i < out_.options.size(); ++i) out_.options[i].arg_index = next_ - 1;
    }
    return std::move(out_);
  }

 private:
  void fail(std::string message) {
    if (!out_.first_error) out_.first_error = bad_argument(std::move(message));
  }

  void unknown(std::string_view flag) {
    fail(fmt::format("unknown option '{}' (see {})", flag, help_hint_));
  }

  // The separated form: the next argument is the value whatever it looks like, as
  // with getopt (`-d --latency` makes "--latency" the duration, which then fails).
  std::optional<std::string> take_next_value(const std::string& flag) {
    if (next_ < args_.size()) return args_[next_++];
    fail(fmt::format("{}: missing value (see {})", flag, help_hint_));
    return std::nullopt;
  }

  void scan_long(std::string_view body) {
    const std::size_t eq = body.find('=');
    const std::string_view name = body.substr(0, eq);
    const std::string flag = fmt::format("--{}", name);
    const OptionSpec* spec = find_long(specs_, name);
    if (spec == nullptr) return unknown(flag);
    if (spec->accepts_next_as_value != nullptr) return scan_optional_value(*spec, flag, body, eq);
    if (!spec->takes_value) {
      if (eq != std::string_view::npos) return fail(fmt::format("{}: takes no value", flag));
      out_.options.push_back({spec->id, flag, {}});
      return;
    }
    if (eq != std::string_view::npos) {
      out_.options.push_back({spec->id, flag, std::string(body.substr(eq + 1))});
    } else if (auto value = take_next_value(flag)) {
      out_.options.push_back({spec->id, flag, std::move(*value)});
    }
  }

  // An option whose value may be left out (OptionSpec::accepts_next_as_value).
  void scan_optional_value(const OptionSpec& spec, const std::string& flag, std::string_view body, std::size_t eq) {
    if (eq != std::string_view::npos) {
      out_.options.push_back({spec.id, flag, std::string(body.substr(eq + 1))});
    } else if (next_ < args_.size() && spec.accepts_next_as_value(args_[next_])) {
      out_.options.push_back({spec.id, flag, args_[next_++]});
    } else {
      out_.options.push_back({spec.id, flag, {}});
    }
  }

  void scan_short_cluster(std::string_view cluster) {
    for (std::size_t i = 0; i < cluster.size(); ++i) {
      const std::string flag = fmt::format("-{}", cluster[i]);
      const OptionSpec* spec = find_short(specs_, cluster[i]);
      if (spec == nullptr) return unknown(flag);
      if (!spec->takes_value) {
        out_.options.push_back({spec->id, flag, {}});
        continue;
      }
      const std::string_view attached = cluster.substr(i + 1);
      if (!attached.empty()) {
        out_.options.push_back({spec->id, flag, std::string(attached)});
      } else if (auto value = take_next_value(flag)) {
        out_.options.push_back({spec->id, flag, std::move(*value)});
      }
      return;  // the rest of the cluster was this option's value
    }
  }

  std::span<const std::string> args_;
  std::span<const OptionSpec> specs_;
  std::string_view help_hint_;
  std::size_t next_ = 0;
  ScanResult out_;
};

}  // namespace

bool ScanResult::has(int id) const {
  return std::any_of(options.begin(), options.end(),
                     [id](const ScannedOption& o) { return o.id == id; });
}

ScanResult scan_options(std::span<const std::string> args, std::span<const OptionSpec> specs,
                        std::string_view help_hint) {
  return Scanner(args, specs, help_hint).run();
}

Result<int> parse_positive_int(const ScannedOption& option, std::string_view what) {
  auto count = parse_count(option.value, option.flag);
  if (!count) return count.error();
  if (*count < 1) {
    return bad_argument(
        fmt::format("{}: {} must be at least 1, got {}", option.flag, what, option.value));
  }
  constexpr int kMax = std::numeric_limits<int>::max();
  if (*count > static_cast<std::uint64_t>(kMax)) {
    return bad_argument(fmt::format("{}: {} must be at most {}, got {}", option.flag, what,
                                    kMax, option.value));
  }
  return static_cast<int>(*count);
}

Result<TimeNs> parse_positive_duration(const ScannedOption& option, std::string_view what) {
  auto ns = parse_duration(option.value, option.flag);
  if (!ns) return ns.error();
  if (*ns <= 0) {
    return bad_argument(fmt::format("{}: {} must be greater than 0, got {}", option.flag, what,
                                    option.value));
  }
  return *ns;
}


}  // namespace pacer::cli
