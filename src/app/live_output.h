// What the user sees while a run goes: the --timeseries NDJSON lines, and either
// the live view (ui::LiveScreen on stdout) or one plain progress line per
// --interval on stderr. Fed on the main thread by engine::run's interval and
// tick sinks, from the figures the controller already collects; it never
// touches a worker. With the live view the engine's intervals are --refresh
// long and are summed here, exactly, into --interval ones for the NDJSON.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "engine/run.h"
#include "evidence/watch.h"
#include "report/interval_sum.h"
#include "report/series_point.h"
#include "ui/dashboard_model.h"
#include "ui/display_mode.h"
#include "ui/terminal.h"

namespace pacer::app {

// Also told of each --interval with its NDJSON line: the live web view (--web).
using IntervalListener = std::function<void(const report::IntervalReport&, const std::string& ndjson_line)>;

class LiveOutput {
 public:
  // series: where the NDJSON lines go (nullptr: no --timeseries). The live view
  // starts at once (its first frame is drawn before the load). listener: may be null.
  LiveOutput(const Config& config, const ui::DisplayChoice& display, std::FILE* series,
             IntervalListener listener = nullptr);
  ~LiveOutput();
  LiveOutput(const LiveOutput&) = delete;
  LiveOutput& operator=(const LiveOutput&) = delete;

  // What to pass to engine::run.
  TimeNs engine_interval_ns() const { return engine_interval_ns_; }
  engine::IntervalSink interval_sink();
  engine::TickSink tick_sink();  // null without the live view

  // After the run: writes the last interval (partial, or the one that reached
  // -d's end) and the drain after -d's end, and gives the terminal back, so the
  // report prints on the normal screen. Idempotent.
  void finish();

  // With config.keeps_timeseries(), every interval's figures (report/series_point.h),
  // for the JSON report, --html and --csv; nullopt otherwise. Call after finish().
  std::optional<std::vector<report::SeriesPoint>> take_series() { return std::move(kept_series_); }

  // Issue 28: samples the process and the server at each --interval's end
  // (evidence/watch.h), before the line is written; may be null.
  void set_watch(evidence::Watch* watch) { watch_ = watch; }

  // The errno of the first --timeseries line that could not be written (0: none).
  int series_write_errno() const { return series_errno_; }

 private:
  void on_engine_interval(const report::IntervalReport& interval);
  void emit_interval(report::IntervalSum& sum);
  void draw(bool force);

  const Config& config_;
  ui::DisplayChoice display_;
  std::FILE* series_;
  IntervalListener listener_;
  TimeNs engine_interval_ns_;  // --interval, or a divisor of it near --refresh with the live view
  report::IntervalGrid grid_;  // where each --interval row closes
  report::IntervalSum sum_;    // the --interval being summed
  report::IntervalSum drain_;  // after -d's end: the drain, one record
  std::uint64_t next_index_ = 0;
  std::uint64_t completed_ = 0;
  ui::RunInfo run_info_;
  std::optional<ui::DashboardModel> model_;
  std::unique_ptr<ui::LiveScreen> screen_;
  TimeNs last_draw_ns_ = 0;
  std::optional<std::vector<report::SeriesPoint>> kept_series_;
  int series_errno_ = 0;
  evidence::Watch* watch_ = nullptr;
};

// The live view's short description of the load model ("closed loop", "open, constant 1000/s").
ui::RunInfo run_info_for(const Config& config);

}  // namespace pacer::app
