// Scenarios' options (issue 16): --scenario FILE, -u/--users, --spawn-rate,
// --max-users, and how they go with the rest of the command line (exit 2 with
// the reason when they do not).
#pragma once

#include <span>

#include <string>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
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
// apply function, scanned with the run's (cli/run_options.h).
namespace users {

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

}  // namespace users

}  // namespace pacer::cli
