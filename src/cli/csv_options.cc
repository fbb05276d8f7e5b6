// See csv_options.h.
#include "cli/csv_options.h"

#include <fmt/format.h>

namespace pacer::cli {

Status apply_csv_format(const ScannedOption& option, Config& config) {
  if (option.value == "locust") {
    config.csv_locust = true;
  } else if (option.value == "pacer") {
    config.csv_locust = false;
  } else {
    return bad_argument(fmt::format("{}: expected pacer or locust, got '{}'", option.flag, option.value));
  }
  return Ok{};
}

Status finish_csv_options(const Config& config) {
  if (config.csv_prefix.empty() && (config.csv_locust || config.csv_full_history)) {
    return bad_argument(config.csv_locust ? "--csv-format: only with --csv PREFIX"
                                          : "--csv-full-history: only with --csv PREFIX --csv-format locust");
  }
  if (config.csv_full_history && !config.csv_locust) {
    return bad_argument("--csv-full-history: only with --csv-format locust (Locust's per-name history)");
  }
  return Ok{};
}

}  // namespace pacer::cli
