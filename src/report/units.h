// Human-readable numbers in wrk's style: times (us/ms/s/m/h), metric counts
// (k/M/G, base 1000) and byte sizes (KB/MB/GB, base 1024), two decimals.
// Pure functions; used by every text formatter.
#pragma once

#include <string>

#include "core/clock.h"

namespace pacer::report {

std::string format_time_ns(double ns);        // 236.00us, 1.50ms, 2.00s, 1.50m
std::string format_metric(double value);      // 14.46k, 1.20M, 950.00
std::string format_bytes(double bytes);       // 291.35MB, 29.04KB, 100.00B
std::string format_duration_short(TimeNs ns); // "10s", "1m", "500ms", "1m30s" for the run header

// wrk's column layout: right-aligns `text` in `width` columns, counting a unit
// of fewer than two letters as padded (so 1.50ms and 2.00s line up). A text
// wider than its column gets one leading space so columns never run together.
std::string pad_units(const std::string& text, int width);

}  // namespace pacer::report
