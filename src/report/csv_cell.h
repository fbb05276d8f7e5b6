// A CSV text cell, for every CSV pacer writes (--csv in pacer's shape and in
// Locust's, --log-requests' CSV rows): quoted as Python's csv module quotes (a
// cell with a comma, quote or line break in quotes, quotes doubled), and one a
// spreadsheet would run as a formula neutralised as OWASP recommends (a leading
// ' inside quotes), so "=HYPERLINK(...)" from a target's or a task's name stays
// text. Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace pacer::report {

// Whether a spreadsheet would run text as a formula: its first byte is =, +, -,
// @, TAB or CR (OWASP's "CSV injection" list).
bool starts_like_formula(std::string_view text);

// text as one CSV cell (allocates; --log-requests writes its rows in place with
// starts_like_formula).
std::string csv_cell(std::string_view text);

}  // namespace pacer::report
