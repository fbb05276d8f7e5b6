// Every option of a run (pacer URL, pacer demo): the modules' tables (their
// specs and apply functions) as one, in the order they are scanned. The scanner,
// --config and PACER_* (cli/config_layers.h) and the command line shown in
// reports (cli/secrets.h) read its specs; cli.cc applies the scanned options
// through it. In debug builds the first call asserts that every id of
// cli/run_option_ids.h is claimed by exactly one row. Main thread.
#pragma once

#include <span>

#include "cli/option_scan.h"
#include "cli/run_draft.h"
#include "cli/run_option_ids.h"

namespace pacer::cli {

std::span<const RunOptionRow> run_option_rows();
std::span<const OptionSpec> run_option_specs();  // the rows' specs, in the same order

// Applies the scanned options to the draft in command-line order (the first
// error stops it; an option no row claims is an internal error).
Status apply_run_options(std::span<const ScannedOption> options, RunDraft& draft);

}  // namespace pacer::cli
