// Scenarios' options (issue 16): --scenario FILE, -u/--users, --spawn-rate,
// --max-users, and how they go with the rest of the command line (exit 2 with
// the reason when they do not).
#pragma once

#include <array>
#include <optional>

#include <string>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// The flags as the user spelled them (empty: not given), for messages.
struct ScenarioFlags {
  std::string scenario;
  std::string users;
  std::string spawn_rate;
  std::string max_users;
  std::string stop_timeout;
  std::string tags;  // --tags or --exclude-tags
};

Status apply_scenario_path(const ScannedOption& option, Config& config);
Status apply_spawn_rate(const ScannedOption& option, Config& config);
// --lua-memory SIZE: the cap of each Lua state (-s and --scenario), at least 1 MiB.
Status apply_lua_memory(const ScannedOption& option, Config& config);

// --tags/--exclude-tags a,b (repeatable; commas or spaces between tags): appended to `tags`.
Status apply_tags(const ScannedOption& option, std::vector<std::string>& tags);
// After every option: the checks between them, then the connections a
// scenario needs (one per user: -u, default -c; open model: --max-users).
Status finish_scenario_options(Config& config, const ScenarioFlags& flags);

// The scenario's options: --scenario, -u, --spawn-rate, --max-users, --tags,
// --exclude-tags, --stop-timeout, and --lua-memory (scripts' too). Their own option table and
// apply function, scanned with the run's (cli.cc).
namespace users {

enum Option : int {
  kScenario = 6000,  // past the load options' ids
  kUsers,
  kSpawnRate,
  kMaxUsers,
  kLuaMemory,
  kTags,
  kExcludeTags,
  kStopTimeout,
};

inline constexpr std::array<OptionSpec, 8> kOptions{{
    {kScenario, '\0', "scenario", true},
    {kUsers, 'u', "users", true},
    {kSpawnRate, '\0', "spawn-rate", true},
    {kMaxUsers, '\0', "max-users", true},
    {kLuaMemory, '\0', "lua-memory", true},
    {kTags, '\0', "tags", true},
    {kExcludeTags, '\0', "exclude-tags", true},
    {kStopTimeout, '\0', "stop-timeout", true},
}};

// Applies `option` if it is one of these (noting its flag); nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config, ScenarioFlags& flags);

}  // namespace users

}  // namespace pacer::cli
