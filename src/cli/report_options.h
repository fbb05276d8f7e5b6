// `pacer report [options] FILE...`: the options of the command that
// draws JSON reports as HTML (and CSV), or compares two. Main thread, at parse time.
#pragma once

#include <span>
#include <string>

#include "cli/cli.h"
#include "cli/option_table.h"
#include "core/expected.h"

namespace pacer::cli {

// args: what follows "report". Yields kReport, or kHelp with report_usage(). Files
// are not opened here (the app reads them and names any it cannot); -o and the
// CSV files are checked to be writable, --max-regression's syntax is checked.
Result<Invocation> parse_report(std::span<const std::string> args);

// Its option table's specs and faults (option_table.h), for the tests.
OptionTableReport report_options_table();

}  // namespace pacer::cli
