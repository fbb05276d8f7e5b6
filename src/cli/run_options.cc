// The run's option tables joined; see the header.
#include "cli/run_options.h"

#include <cassert>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "cli/capacity_options.h"
#include "cli/connect_options.h"
#include "cli/cookie_options.h"
#include "cli/evidence_options.h"
#include "cli/general_options.h"
#include "cli/load_options.h"
#include "cli/log_options.h"
#include "cli/output_options.h"
#include "cli/prometheus_options.h"
#include "cli/request_options.h"
#include "cli/scenario_options.h"
#include "cli/tls_options.h"
#include "cli/wire_options.h"

namespace pacer::cli {
namespace {

std::vector<RunOptionRow> join_rows() {
  std::vector<RunOptionRow> rows;
  for (std::span<const RunOptionRow> module :
       {general::option_rows(), load::option_rows(), users::option_rows(), wire_option_rows(), output::option_rows(),
        request::option_rows(), tls::option_rows(), prometheus_option_rows(), connect::option_rows(),
        cookies::option_rows(), request_log::option_rows(), evidence_flags::option_rows(),
        capacity_flags::option_rows()}) {
    rows.insert(rows.end(), module.begin(), module.end());
  }
#ifndef NDEBUG  // every id claimed by exactly one row with a handler, else stop here naming what is wrong
  const std::vector<std::string> faults = table_faults<RunDraft>(rows, opt::kCount);
  for (const std::string& fault : faults) std::fprintf(stderr, "pacer: the run's option table: %s\n", fault.c_str());
  assert(faults.empty());
#endif
  return rows;
}

}  // namespace

std::span<const RunOptionRow> run_option_rows() {
  static const std::vector<RunOptionRow> rows = join_rows();
  return rows;
}

std::span<const OptionSpec> run_option_specs() {
  static const std::vector<OptionSpec> specs = specs_of(run_option_rows());
  return specs;
}

Status apply_run_options(std::span<const ScannedOption> options, RunDraft& draft) {
  return apply_options(options, run_option_rows(), draft);
}

}  // namespace pacer::cli
