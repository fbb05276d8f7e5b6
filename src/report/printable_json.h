// The one place the JSON report and the NDJSON intervals become text: every
// string in the document (values and keys) first goes through the reports'
// sanitiser (stats::printable_name), so a server's or a script's bytes (a
// failure message with a binary body, a Lua error with "\255", a Server header)
// can neither stop the serialiser (nlohmann throws on invalid UTF-8) nor reach
// a reader raw (an ESC, a NUL) in -o, --html, --csv, the web view or the time
// series (issue 44). Pure; any thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pacer::report {

// Makes every string of doc (values and keys) printable, in place.
void make_printable(nlohmann::ordered_json& doc);

// doc's text (nlohmann's dump(indent); -1: one line), its strings made printable in place.
std::string dump_printable(nlohmann::ordered_json& doc, int indent);

}  // namespace pacer::report
