// `pacer merge` options; see the header. The merging itself is report/merge.h.
#include "cli/merge_options.h"

#include <array>

#include <fmt/format.h>

#include "cli/option_scan.h"
#include "cli/units.h"
#include "core/atomic_file.h"

namespace pacer::cli {
namespace {

enum MergeOption : int { kFormat, kOutput, kForce, kAllowMissing, kStartTolerance, kLatency, kMaxReportSize, kHelp };

constexpr std::array<OptionSpec, 8> kMergeOptions{{
    {kMaxReportSize, '\0', "max-report-size", true},
    {kFormat, '\0', "format", true},
    {kOutput, 'o', "output", true},
    {kForce, '\0', "force", false},
    {kAllowMissing, '\0', "allow-missing", false},
    {kStartTolerance, '\0', "start-tolerance", true},
    {kLatency, '\0', "latency", false},
    {kHelp, 'h', "help", false},
}};

Status apply_merge_option(const ScannedOption& option, MergeOptions& merge) {
  switch (option.id) {
    case kFormat:
      if (option.value != "text" && option.value != "json") {
        return bad_argument(fmt::format("{}: format must be 'text' or 'json', got '{}'", option.flag, option.value));
      }
      merge.json_format = option.value == "json";
      return Ok{};
    case kOutput:
      merge.output_path = option.value;
      return check_writable_path(option.value, option.flag);
    case kForce: merge.force = true; return Ok{};
    case kAllowMissing: merge.allow_missing = true; return Ok{};
    case kStartTolerance: {
      auto tolerance = parse_duration(option.value, option.flag);
      if (!tolerance) return tolerance.error();
      merge.start_tolerance_ns = *tolerance;
      return Ok{};
    }
    case kLatency: merge.print_latency = true; return Ok{};
    case kMaxReportSize: return parse_max_report_size(option, merge.max_report_bytes);
    default: return Ok{};
  }
}

}  // namespace

Status parse_max_report_size(const ScannedOption& option, std::uint64_t& max_bytes) {
  auto size = parse_byte_size(option.value, option.flag);
  if (!size) return size.error();
  if (*size == 0) return bad_argument(fmt::format("{}: the cap must be at least 1 byte", option.flag));
  max_bytes = *size;
  return Ok{};
}

Result<Invocation> parse_merge(std::span<const std::string> args) {
  const ScanResult scan = scan_options(args, kMergeOptions, "pacer merge --help");
  Invocation out;
  if (scan.has(kHelp)) {
    out.command = Command::kHelp;
    out.help_text = merge_usage();
    return out;
  }
  if (scan.first_error) return *scan.first_error;
  for (const ScannedOption& option : scan.options) {
    if (Status applied = apply_merge_option(option, out.merge); !applied) return applied.error();
  }
  if (scan.positionals.empty()) return bad_argument("merge: give at least one report file");
  out.merge.paths = scan.positionals;
  out.command = Command::kMerge;
  return out;
}

}  // namespace pacer::cli
