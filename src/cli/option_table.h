// An option table: each option's spec (what the scanner, --config and PACER_*
// read) beside the function that applies it, so that an option cannot be scanned
// without a handler. Every command's options are such a table, its ids from one
// enum of that command (the run's: cli/run_option_ids.h). Dispatch goes by id
// through the table; an id no row claims is pacer's own fault, reported as an
// internal error, never a silent success. Pure; any thread.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/option_scan.h"
#include "core/expected.h"

namespace pacer::cli {

template <typename Draft>
struct OptionRow {
  OptionSpec spec;
  // Checks option.value and records it in the draft; the error names option.flag.
  Status (*apply)(const ScannedOption& option, Draft& draft) = nullptr;
};

// The rows' specs, in the rows' order (for scan_options).
template <typename Draft>
std::vector<OptionSpec> specs_of(std::span<const OptionRow<Draft>> rows) {
  std::vector<OptionSpec> specs;
  specs.reserve(rows.size());
  for (const OptionRow<Draft>& row : rows) specs.push_back(row.spec);
  return specs;
}

// Applies each option by its row's function, in command-line order; the first
// error stops it. An option whose id no row has is an internal error (exit 1).
template <typename Draft>
Status apply_options(std::span<const ScannedOption> options, std::span<const OptionRow<Draft>> rows, Draft& draft) {
  for (const ScannedOption& option : options) {
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const OptionRow<Draft>& r) { return r.spec.id == option.id; });
    if (row == rows.end() || row->apply == nullptr) {
      return runtime_error(fmt::format("internal error: {} (option id {}) has no handler", option.flag, option.id));
    }
    if (Status applied = row->apply(option, draft); !applied) return applied;
  }
  return Ok{};
}

// What is wrong with a table whose ids are 0 .. id_count-1: an id no row claims,
// an id two rows claim, an id out of range, a row without a handler, a long or
// short name two rows share. Empty when nothing is (the tests and, in debug
// builds, the start-up assertion check this).
template <typename Draft>
std::vector<std::string> table_faults(std::span<const OptionRow<Draft>> rows, int id_count) {
  std::vector<std::string> faults;
  std::vector<int> claims(static_cast<std::size_t>(id_count), 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const OptionSpec& spec = rows[i].spec;
    if (spec.id < 0 || spec.id >= id_count) faults.push_back(fmt::format("--{}: id {} out of range", spec.long_name, spec.id));
    else ++claims[static_cast<std::size_t>(spec.id)];
    if (rows[i].apply == nullptr) faults.push_back(fmt::format("--{}: no handler", spec.long_name));
    for (std::size_t j = 0; j < i; ++j) {
      const OptionSpec& other = rows[j].spec;
      if (other.long_name == spec.long_name) faults.push_back(fmt::format("--{}: two rows", spec.long_name));
      if (spec.short_name != '\0' && other.short_name == spec.short_name) {
        faults.push_back(fmt::format("-{}: both --{} and --{}", spec.short_name, other.long_name, spec.long_name));
      }
    }
  }
  for (std::size_t id = 0; id < claims.size(); ++id) {
    if (claims[id] != 1) faults.push_back(fmt::format("option id {}: claimed by {} rows, not 1", id, claims[id]));
  }
  return faults;
}

// A command's option table as the tests see it (the subcommands keep theirs private).
struct OptionTableReport {
  std::vector<OptionSpec> specs;
  std::vector<std::string> faults;  // table_faults
};

template <typename Draft>
OptionTableReport report_of(std::span<const OptionRow<Draft>> rows, int id_count) {
  return {specs_of(rows), table_faults(rows, id_count)};
}

}  // namespace pacer::cli
