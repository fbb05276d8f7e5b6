// How a scenario's figures read in the reports: the text report's Tasks and
// Requests-by-name tables, the check and script lines with their first
// messages, and the JSON report's "scenario" object (docs/report.schema.json).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "scenario/scenario_stats.h"

namespace pacer::scenario {

// Lines within 80 columns; empty when no scenario ran.
std::string render_text(const ScenarioStats& s);
nlohmann::ordered_json to_json(const ScenarioStats& s);

}  // namespace pacer::scenario
