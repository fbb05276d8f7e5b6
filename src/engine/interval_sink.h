// What the controller hands the run's outputs while the run goes on (the live
// view, the web view, the time series): each interval's figures, and the time as
// it passes. Main thread.
#pragma once

#include <functional>

#include "core/clock.h"
#include "report/interval_report.h"

namespace pacer::engine {

// Called on the main thread once per interval, in order, while the run goes on.
using IntervalSink = std::function<void(const report::IntervalReport&)>;
// Called on the main thread every few milliseconds while intervals are collected,
// with the time since the load started (warm-up included): lets a live view show
// time passing when no interval has closed yet (during --warmup).
using TickSink = std::function<void(TimeNs since_start_ns)>;

}  // namespace pacer::engine
