// See the header. Plain text, no side effects.
#include "app/run_description.h"

#include "engine/run.h"

#include <fmt/format.h>

#include "targets/target_file.h"

#include "core/shard_share.h"
#include "report/text.h"
#include "report/units.h"

namespace pacer::app {

namespace {

std::string utc_time(std::int64_t unix_ns) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / kNsPerS);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// --capacity, --sweep: the steps, not one run (each step's length is the header's).
std::string capacity_line(const Config& c) {
  const CapacityOptions& k = c.capacity;
  std::string out;
  if (!k.sweep_rates.empty()) {
    std::string rates;
    for (double r : k.sweep_rates) rates += fmt::format("{}{:g}", rates.empty() ? "" : ", ", r);
    out = fmt::format("a capacity sweep: open-model steps at {} requests/s, each run {} time{}", rates,
                      k.step_repeat, k.step_repeat == 1 ? "" : "s");
    if (k.search) out += ", judged by " + k.objective_text;
  } else {
    out = fmt::format("a capacity search for {}: open-model steps from {}, doubling, then bisecting to {:g}%; a "
                      "rate near a limit runs up to {} times; budget {}",
                      k.objective_text,
                      k.start_rate_per_s > 0 ? fmt::format("{:g} requests/s", k.start_rate_per_s)
                                             : std::string("half a closed-loop probe's rate"),
                      k.precision * 100, k.step_repeat, report::format_duration_short(k.budget_ns));
  }
  return out + (c.poisson ? ", Poisson arrivals" : ", uniform arrivals");
}

std::string load_line(const Config& c) {
  if (c.capacity.enabled()) return capacity_line(c);
  std::string out;
  switch (c.load_model) {
    case LoadModel::kClosed: out = "closed loop (each connection sends when its response is in)"; break;
    case LoadModel::kConstant: out = fmt::format("open model, {} requests/s in total", c.rate_per_s); break;
    case LoadModel::kRamp:
      out = fmt::format("open model, {} to {} requests/s in total", c.rate_per_s, c.rate_end_per_s);
      break;
    case LoadModel::kStages: out = fmt::format("open model, {} stages", c.stages.size()); break;
  }
  if (c.is_open_model()) out += c.poisson ? ", Poisson arrivals" : ", uniform arrivals";
  // The shard's own figures, as its report will give them (core/shard_share.h).
  if (const ShardShare share = shard_share(c); share.is_part()) out += "; " + share.describe();
  if (c.request_count) out += fmt::format("; stops after {} requests", *c.request_count);
  return out;
}

std::string start_line(const Config& c, std::int64_t now_unix_ns) {
  if (c.start_at_unix_ns) {
    return fmt::format("at {} (in {:.0f} s)", utc_time(*c.start_at_unix_ns),
                       static_cast<double>(*c.start_at_unix_ns - now_unix_ns) / 1e9);
  }
  if (c.shard_count > 1 && c.shard_starts_together) {
    return fmt::format("at once ({} comes from an engine that starts every shard together)", c.shard_source);
  }
  return "at once";
}

std::string outputs_line(const Config& c) {
  std::string out = c.json_format ? "JSON" : "text";
  out += c.output_path.empty() ? " on stdout" : " to " + c.output_path;
  if (!c.hgrm_path.empty()) out += ", .hgrm to " + c.hgrm_path;
  if (!c.timeseries_path.empty()) out += ", time series to " + c.timeseries_path;
  return out;
}

// Where connections go and what responses get, when the options ask for more.
std::string wire_line(const Config& c) {
  std::string out;
  if (!c.unix_socket_path.empty()) out += "Unix socket " + c.unix_socket_path;
  if (c.follow_redirects > 0) out += fmt::format("{}follows up to {} redirects", out.empty() ? "" : "; ", c.follow_redirects);
  if (c.compressed) out += std::string(out.empty() ? "" : "; ") + "decodes gzip, deflate, br, zstd";
  return out;
}

}  // namespace

report::RunReport header_fields(const Config& config) {
  report::RunReport fields = engine::make_report(config);
  fields.threads = static_cast<int>(connections_per_worker(config.threads, config.connections).size());
  if (config.is_scenario()) {  // the header counts virtual users, not -c connections
    fields.scenario.active = true;
    fields.scenario.open_model = config.is_open_model();
    fields.scenario.user_limit = static_cast<std::uint64_t>(config.is_open_model() ? config.max_users : config.connections);
    fields.users_at_start = config.users;
  }
  return fields;
}

std::string describe_run(const Config& config, std::int64_t now_unix_ns) {
  std::string out = "pacer --check-args: the arguments are valid; this would run (no connection opened):\n";
  out += report::render_header(header_fields(config));
  out += fmt::format("  Load:    {}\n", load_line(config));
  out += fmt::format("  Start:   {}\n", start_line(config, now_unix_ns));
  out += fmt::format("  Report:  {}\n", outputs_line(config));
  if (const std::string wire = wire_line(config); !wire.empty()) out += fmt::format("  Wire:    {}\n", wire);
  if (!config.script_path.empty()) out += fmt::format("  Script:  {} (not loaded by --check-args)\n", config.script_path);
  // --targets: the file was read and checked already.
  if (!config.targets.empty()) {
    out += fmt::format("  Targets: {} from {}, {}\n", config.targets.size(), config.targets_path,
                       targets::targets_order_name(config.targets_order));
  }
  if (config.is_scenario()) {  // scenarios (issue 16)
    out += fmt::format("  Scenario: {}, {} (not loaded by --check-args)\n", config.scenario_path,
                       config.is_open_model() ? fmt::format("tasks at the rate, up to {} users", config.max_users)
                                              : fmt::format("{} users", config.users));
  }
  const std::string note = unsynchronised_start_note(config);
  if (!note.empty()) out += "  Note:    " + note + "\n";
  for (const std::string& proxy_note : config.proxy_notes) out += "  Note:    " + proxy_note + "\n";
  return out;
}

std::string unsynchronised_start_note(const Config& config) {
  if (config.shard_source.empty() || config.shard_count < 2 || config.shard_starts_together ||
      config.start_at_unix_ns) {
    return {};
  }
  return fmt::format(
      "shard {} of {} from {} starts as soon as it is started: that engine does not start its shards together, "
      "so give them one --start-at",
      config.shard_index, config.shard_count, config.shard_source);
}

}  // namespace pacer::app
