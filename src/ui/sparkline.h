// Sparklines: a series of values drawn as one row of bar characters, and the
// resampling of the run's history onto the columns there are. Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ui/dashboard_model.h"

namespace pacer::ui {

// One character per value, scaled so that the largest value is a full bar. A
// value <= 0 is a blank (nothing happened); any positive value is at least the
// lowest bar. unicode: U+2581..U+2588 blocks; otherwise ASCII ".:-=+*#@".
std::string sparkline(const std::vector<double>& values, bool unicode);

// The history squeezed into at most `columns` values (one per point while they
// fit): requests/second of each column's span, and the worst p99 (ns) within it
// (an interval's p99, or the age of its oldest request still in flight when larger).
std::vector<double> throughput_series(const std::vector<HistoryPoint>& history, std::size_t columns);
std::vector<double> p99_series(const std::vector<HistoryPoint>& history, std::size_t columns);

}  // namespace pacer::ui
