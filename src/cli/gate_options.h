// Parsing of the CI gate options: --slo "p99<250ms,p50<20ms,max<2s,mean<50ms" and
// --max-error-rate 1% (or 0.01).
#pragma once

#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

Result<std::vector<LatencyGate>> parse_slo(std::string_view text, std::string_view flag);

// "1%", "0.5%" or a fraction "0.01"; must lie in [0, 1].
Result<double> parse_error_rate(std::string_view text, std::string_view flag);

}  // namespace pacer::cli
