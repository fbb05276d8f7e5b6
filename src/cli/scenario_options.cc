// See scenario_options.h.
#include "cli/scenario_options.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "cli/load_options.h"
#include "cli/run_draft.h"
#include "cli/units.h"

namespace pacer::cli {

Status apply_scenario_path(const ScannedOption& option, Config& config) {
  if (option.value.empty()) return bad_argument(fmt::format("{}: scenario path is empty", option.flag));
  config.scenario_path = option.value;
  return Ok{};
}

Status apply_spawn_rate(const ScannedOption& option, Config& config) {
  auto rate = parse_rate(option.value, option.flag, false);
  if (!rate) return rate.error();
  config.spawn_rate_per_s = *rate;
  return Ok{};
}

Status apply_lua_memory(const ScannedOption& option, Config& config) {
  auto size = parse_byte_size(option.value, option.flag);
  if (!size) return size.error();
  constexpr std::uint64_t kMinBytes = std::uint64_t{1} << 20;  // LuaJIT's libraries alone take about 100 KiB
  if (*size < kMinBytes) {
    return bad_argument(fmt::format("{}: at least 1M (the Lua libraries need some), got {}", option.flag, option.value));
  }
  config.lua_memory_bytes = *size;
  return Ok{};
}

Status apply_tags(const ScannedOption& option, std::vector<std::string>& tags) {
  std::size_t added = 0;
  for (std::size_t at = 0; at < option.value.size();) {
    const std::size_t end = option.value.find_first_of(", ", at);
    const std::string tag = option.value.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (!tag.empty()) {
      tags.push_back(tag);
      ++added;
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  if (added == 0) return bad_argument(fmt::format("{}: no tag given (a list such as checkout,browse)", option.flag));
  return Ok{};
}

Status finish_scenario_options(Config& config, const ScenarioFlags& flags) {
  if (!config.is_scenario()) {
    for (const std::string* flag : {&flags.users, &flags.spawn_rate, &flags.max_users, &flags.tags, &flags.stop_timeout}) {
      if (!flag->empty()) return bad_argument(fmt::format("{}: only with --scenario FILE", *flag));
    }
    return Ok{};
  }
  if (!config.script_path.empty()) {
    return bad_argument("--scenario and -s/--script cannot be used together: a scenario is its own script");
  }
  if (config.http2) return bad_argument("--http2: not supported with --scenario (scenarios speak HTTP/1.1)");
  if (config.http3) return bad_argument("--http3: not supported with --scenario (scenarios speak HTTP/1.1)");
  if (config.pipeline > 1) return bad_argument("--pipeline: not supported with --scenario (one request per user at a time)");
  if (config.is_open_model()) {
    if (!flags.users.empty()) {
      return bad_argument(fmt::format("{}: not with -R/--stages: the open model starts tasks at the rate and creates "
                                      "users as they are needed, up to --max-users", flags.users));
    }
    if (!flags.spawn_rate.empty()) {
      return bad_argument(fmt::format("{}: not with -R/--stages (users are created as tasks need them)", flags.spawn_rate));
    }
    config.connections = config.max_users;
    return Ok{};
  }
  if (config.users > 0) config.connections = config.users;
  config.users = config.connections;
  if (!flags.max_users.empty()) {
    // The closed model's ceiling: a load shape or the web view may run up to
    // --max-users users (each has its connection, allocated before the run).
    if (flags.users.empty()) config.users = std::min(config.users, config.max_users);  // -c's default
    if (config.max_users < config.users) {
      return bad_argument(fmt::format("{} {}: fewer than the {} users the run starts with (-u)", flags.max_users,
                                      config.max_users, config.users));
    }
    config.connections = config.max_users;
  }
  return Ok{};
}

namespace users {

namespace {

constexpr std::array<RunOptionRow, 8> kRows{{
    {{opt::kScenario, '\0', "scenario", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.scenario.scenario = o.flag;
       return apply_scenario_path(o, d.config);
     }},
    {{opt::kUsers, 'u', "users", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.scenario.users = o.flag;
       return store(parse_positive_int(o, "users"), d.config.users);
     }},
    {{opt::kSpawnRate, '\0', "spawn-rate", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.scenario.spawn_rate = o.flag;
       return apply_spawn_rate(o, d.config);
     }},
    {{opt::kMaxUsers, '\0', "max-users", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.scenario.max_users = o.flag;
       return store(parse_positive_int(o, "max users"), d.config.max_users);
     }},
    {{opt::kLuaMemory, '\0', "lua-memory", true},
     [](const ScannedOption& o, RunDraft& d) { return apply_lua_memory(o, d.config); }},
    {{opt::kTags, '\0', "tags", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.scenario.tags = o.flag;
       return apply_tags(o, d.config.scenario_tags);
     }},
    {{opt::kExcludeTags, '\0', "exclude-tags", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.scenario.tags = o.flag;
       return apply_tags(o, d.config.scenario_exclude_tags);
     }},
    {{opt::kStopTimeout, '\0', "stop-timeout", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.scenario.stop_timeout = o.flag;
       return store(parse_duration(o.value, o.flag), d.config.stop_timeout_ns);
     }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

}  // namespace users

}  // namespace pacer::cli
