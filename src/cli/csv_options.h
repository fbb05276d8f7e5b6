// --csv-format pacer|locust and --csv-full-history (issue 27): which files
// --csv PREFIX writes. Exit 2 with the reason when they do not fit together.
#pragma once

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

Status apply_csv_format(const ScannedOption& option, Config& config);
// After every option: --csv-format and --csv-full-history need --csv; the
// full history needs Locust's format (pacer's history has no names).
Status finish_csv_options(const Config& config);

}  // namespace pacer::cli
