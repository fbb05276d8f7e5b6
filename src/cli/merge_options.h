// `pacer merge [options] FILE...`: the options of the command that combines the
// JSON reports of several shards (src/report/merge.h). Main thread, at parse time.
#pragma once

#include <span>
#include <string>

#include "cli/cli.h"
#include "cli/option_scan.h"
#include "cli/option_table.h"
#include "core/expected.h"

namespace pacer::cli {

// args: what follows "merge". Yields kMerge, or kHelp with merge_usage(). Files are
// not opened here (the app reads them and names any it cannot); -o is checked
// to be writable.
Result<Invocation> parse_merge(std::span<const std::string> args);

// Its option table's specs and faults (option_table.h), for the tests.
OptionTableReport merge_options_table();

// --max-report-size SIZE (pacer merge and pacer report): at least 1 byte.
Status parse_max_report_size(const ScannedOption& option, std::uint64_t& max_bytes);

}  // namespace pacer::cli
