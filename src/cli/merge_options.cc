// `pacer merge` options; see the header. The merging itself is report/merge.h.
#include "cli/merge_options.h"

#include <array>
#include <cassert>

#include <fmt/format.h>

#include "cli/option_scan.h"
#include "cli/units.h"
#include "core/atomic_file.h"

namespace pacer::cli {
namespace {

enum MergeOption : int {
  kFormat, kOutput, kForce, kAllowMissing, kStartTolerance, kLatency, kMaxReportSize, kHelp, kMergeOptionCount
};

Status apply_merge_format(const ScannedOption& option, MergeOptions& merge) {
  if (option.value != "text" && option.value != "json") {
    return bad_argument(fmt::format("{}: format must be 'text' or 'json', got '{}'", option.flag, option.value));
  }
  merge.json_format = option.value == "json";
  return Ok{};
}

constexpr std::array<OptionRow<MergeOptions>, kMergeOptionCount> kMergeRows{{
    {{kMaxReportSize, '\0', "max-report-size", true},
     [](const ScannedOption& o, MergeOptions& m) { return parse_max_report_size(o, m.max_report_bytes); }},
    {{kFormat, '\0', "format", true}, &apply_merge_format},
    {{kOutput, 'o', "output", true},
     [](const ScannedOption& o, MergeOptions& m) {
       m.output_path = o.value;
       return check_writable_path(o.value, o.flag);
     }},
    {{kForce, '\0', "force", false},
     [](const ScannedOption&, MergeOptions& m) -> Status {
       m.force = true;
       return Ok{};
     }},
    {{kAllowMissing, '\0', "allow-missing", false},
     [](const ScannedOption&, MergeOptions& m) -> Status {
       m.allow_missing = true;
       return Ok{};
     }},
    {{kStartTolerance, '\0', "start-tolerance", true},
     [](const ScannedOption& o, MergeOptions& m) { return store(parse_duration(o.value, o.flag), m.start_tolerance_ns); }},
    {{kLatency, '\0', "latency", false},
     [](const ScannedOption&, MergeOptions& m) -> Status {
       m.print_latency = true;
       return Ok{};
     }},
    {{kHelp, 'h', "help", false}, [](const ScannedOption&, MergeOptions&) -> Status { return Ok{}; }},  // read from the scan
}};

}  // namespace

Status parse_max_report_size(const ScannedOption& option, std::uint64_t& max_bytes) {
  auto size = parse_byte_size(option.value, option.flag);
  if (!size) return size.error();
  if (*size == 0) return bad_argument(fmt::format("{}: the cap must be at least 1 byte", option.flag));
  max_bytes = *size;
  return Ok{};
}

OptionTableReport merge_options_table() { return report_of<MergeOptions>(kMergeRows, kMergeOptionCount); }

Result<Invocation> parse_merge(std::span<const std::string> args) {
  assert(table_faults<MergeOptions>(kMergeRows, kMergeOptionCount).empty());  // tests/cli/run_options_test.cc names them
  const ScanResult scan = scan_options(args, specs_of<MergeOptions>(kMergeRows), "pacer merge --help");
  Invocation out;
  if (scan.has(kHelp)) {
    out.command = Command::kHelp;
    out.help_text = merge_usage();
    return out;
  }
  if (scan.first_error) return *scan.first_error;
  if (Status applied = apply_options<MergeOptions>(scan.options, kMergeRows, out.merge); !applied) {
    return applied.error();
  }
  if (scan.positionals.empty()) return bad_argument("merge: give at least one report file");
  out.merge.paths = scan.positionals;
  out.command = Command::kMerge;
  return out;
}

}  // namespace pacer::cli
