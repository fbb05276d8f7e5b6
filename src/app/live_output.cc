#include "app/live_output.h"

#include <cerrno>

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/shard_share.h"
#include "report/interval_report.h"
#include "report/series_json.h"
#include "report/units.h"
#include "ui/dashboard_render.h"
#include "ui/plain_progress.h"

namespace pacer::app {

ui::RunInfo run_info_for(const Config& config) {
  ui::RunInfo info;
  info.url = config.target.url;
  info.threads = static_cast<int>(connections_per_worker(config.threads, config.connections).size());
  info.connections = config.connections;
  info.warmup_ns = config.warmup_ns;
  info.duration_ns = config.duration_bounds_run() ? config.duration_ns : 0;
  info.request_count = config.request_count;
  info.open_model = config.is_open_model();
  info.requests_per_connection = config.requests_per_connection();
  info.http2 = config.http2 || config.http3;  // streams per connection (HTTP/3 too)
  info.interval_ns = config.interval_ns;
  // A shard shows its own part of the test's rates and says which part it is.
  const ShardShare share = shard_share(config);
  info.shard_label = share.label();
  info.shard_summary = share.describe();
  const auto rate = [&share](double r) { return fmt::format("{:g}/s", share.rate(r)); };
  switch (config.load_model) {
    case LoadModel::kClosed: info.load_model = "closed loop"; break;
    case LoadModel::kConstant: info.load_model = "open, constant " + rate(config.rate_per_s); break;
    case LoadModel::kRamp:
      info.load_model = "open, ramp " + rate(config.rate_per_s) + " to " + rate(config.rate_end_per_s);
      break;
    case LoadModel::kStages: info.load_model = fmt::format("open, {} stages", config.stages.size()); break;
  }
  if (config.is_open_model() && config.poisson) info.load_model += ", Poisson";
  return info;
}

LiveOutput::LiveOutput(const Config& config, const ui::DisplayChoice& display, std::FILE* series,
                       IntervalListener listener)
    : config_(config),
      display_(display),
      series_(series),
      listener_(std::move(listener)),
      engine_interval_ns_(config.interval_ns /
                          (display.live ? report::intervals_per_interval(config.interval_ns, config.refresh_ns) : 1)),
      grid_(config.interval_ns),
      run_info_(run_info_for(config)) {
  if (config.keeps_timeseries()) kept_series_.emplace();
  if (display_.live) {
    model_.emplace(run_info_);
    screen_ = std::make_unique<ui::LiveScreen>(STDOUT_FILENO);
    draw(true);
  }
}

LiveOutput::~LiveOutput() { finish(); }

engine::IntervalSink LiveOutput::interval_sink() {
  return [this](const report::IntervalReport& interval) { on_engine_interval(interval); };
}

engine::TickSink LiveOutput::tick_sink() {
  if (!display_.live) return nullptr;
  return [this](TimeNs since_start_ns) {
    model_->on_tick(since_start_ns);
    draw(false);
  };
}

void LiveOutput::on_engine_interval(const report::IntervalReport& interval) {
  if (model_) model_->on_refresh(interval);
  // The engine cuts the interval that holds -d's end there (Recorder::cut_interval):
  // what follows is the drain (responses still in flight, arrivals still waiting),
  // summed into one record of its own, marked as the drain and with no target.
  // Without a -d that ends the run (a load shape ends it), the engine says which record is the drain.
  const bool in_drain = run_info_.duration_ns > 0 ? interval.start_ns >= run_info_.duration_ns : report::is_drain(interval);
  if (in_drain) {
    if (!sum_.empty()) emit_interval(sum_);  // the run's last (partial) interval first
    drain_.add(interval);
  } else {
    sum_.add(interval);
    const TimeNs end_ns = interval.start_ns + interval.duration_ns;
    const bool reaches_end = run_info_.duration_ns > 0 && end_ns >= run_info_.duration_ns;
    if (grid_.closes(end_ns) || reaches_end) emit_interval(sum_);
  }
  if (model_) draw(false);
}

void LiveOutput::emit_interval(report::IntervalSum& sum) {
  report::IntervalReport interval = sum.sum(next_index_++);
  if (run_info_.duration_ns > 0) {
    // All of the drain's record; part of an interval only when the controller fell
    // behind and the engine could not cut at the end.
    interval.drain_ns = std::clamp<TimeNs>(interval.start_ns + interval.duration_ns - run_info_.duration_ns, 0,
                                           interval.duration_ns);
  }
  if (report::is_drain(interval)) interval.target_rate_per_s.reset();
  completed_ += interval.completed;
  if (watch_ != nullptr) watch_->sample(interval);  // the client's health and the server's side, now
  if (series_ != nullptr || listener_ || kept_series_) {
    // The interval's figures, copied once for the file, the web view and the kept series.
    report::SeriesPoint point = report::make_series_point(interval, config_.shard_index, config_.shard_count);
    if (series_ != nullptr || listener_) {
      const std::string line = report::render_series_ndjson(point, config_.timeseries_histogram);
      if (series_ != nullptr) {
        // The first failed write (ENOSPC on a full disk, /dev/full) is kept for the
        // end of the run: the run goes on, and its exit code says the file is incomplete.
        errno = 0;
        if ((std::fputs(line.c_str(), series_) == EOF || std::fflush(series_) != 0) && series_errno_ == 0) {
          series_errno_ = errno != 0 ? errno : EIO;
        }
      }
      if (listener_) listener_(interval, line);
    }
    if (kept_series_) kept_series_->push_back(std::move(point));
  }
  if (model_) {
    model_->on_interval(interval);
  } else if (!display_.silent) {
    std::fputs(ui::render_plain_line(interval, run_info_, completed_).c_str(), stderr);
  }
  sum.clear();
}

void LiveOutput::draw(bool force) {
  if (!screen_) return;  // finished
  const TimeNs now = monotonic_now_ns();
  if (!force && now - last_draw_ns_ < config_.refresh_ns) return;
  last_draw_ns_ = now;
  ui::RenderOptions options;
  options.width = ui::terminal_size(STDOUT_FILENO).columns;
  options.colour = display_.colour;
  options.unicode = display_.unicode;
  options.interval_ns = config_.interval_ns;
  screen_->draw(ui::render(model_->snapshot(), options));
}

void LiveOutput::finish() {
  if (!sum_.empty()) emit_interval(sum_);
  if (!drain_.empty()) emit_interval(drain_);
  screen_.reset();
}

}  // namespace pacer::app
