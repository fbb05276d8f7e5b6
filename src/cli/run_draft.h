// A run's options as they are applied (cli/run_options.h): the Config being
// filled, and which options were given, for the checks between them once all are
// read (cli.cc's finish). Plain data; main thread, at parse time.
#pragma once

#include <optional>

#include "cli/connect_options.h"
#include "cli/load_options.h"
#include "cli/log_options.h"
#include "cli/option_scan.h"
#include "cli/scenario_options.h"
#include "core/config.h"

namespace pacer::cli {

struct RunDraft {
  Config config;
  bool is_method_given = false;
  bool json_body = false;  // the body came from --json
  load::Flags load;  // which load options were given
  bool streams_given = false;
  bool pipeline_given = false;
  bool targets_order_given = false;
  bool web_token_given = false;
  bool web_linger_given = false;
  ScenarioFlags scenario;  // which scenario options were given
  connect::Flags connect;  // proxy and --user, decided once the URL is known
  request_log::Flags request_log;  // which --log-* options were given
  std::optional<ScannedOption> body;  // -b, read once --max-request-body is known
};

}  // namespace pacer::cli
