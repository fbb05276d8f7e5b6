// The capacity search's live page; see capacity_web.h.
#include "app/capacity_web.h"

#include <cstdio>
#include <optional>
#include <string>

#include "app/capacity_run.h"
#include "capacity/progress_json.h"
#include "stats/name_table.h"

namespace pacer::app {

namespace {

// What the page is told of the search: the step running now and the steps so far,
// replaced whole at each step's start and end.
SearchListener progress_listener(web::LiveView& view) {
  SearchListener listener;
  listener.step_started = [&view](int index, double rate_per_s, const capacity::CapacityResult& so_far) {
    view.publish_search(capacity::render_progress_json(so_far, capacity::RunningStep{index, rate_per_s}));
  };
  listener.step_done = [&view](const capacity::CapacityResult& so_far) {
    view.publish_search(capacity::render_progress_json(so_far, std::nullopt));
  };
  listener.finished = [&view](const capacity::CapacityResult& result, const std::string& capacity_json) {
    view.finish_search(capacity::render_progress_json(result, std::nullopt, capacity_json), capacity_json);
  };
  return listener;
}

}  // namespace

ExitCode run_capacity_on_web(const Config& config, StopSignals& signals, const RunStepOnView& run_step) {
  auto view = web::LiveView::start(config, &StopSignals::request_stop);
  if (!view) {
    std::fprintf(stderr, "pacer: %s\n", stats::printable_name(view.error().message).c_str());
    return view.error().kind == ErrorKind::kRuntime ? ExitCode::kRunFailed : ExitCode::kBadArguments;
  }
  web::LiveView& page = **view;
  page.begin_search(capacity::render_progress_json(search_asked(config), std::nullopt));
  const ExitCode code = run_capacity(
      config,
      [&](const Config& step, report::RunReport* keep) {
        page.begin_run(step);
        return run_step(step, keep, &page);
      },
      [&] { return signals.received(); }, progress_listener(page));
  signals.rearm();  // a Ctrl-C or Stop now ends the linger
  page.linger(config.web.linger_ns, signals.flag());
  page.close();
  return code;
}

}  // namespace pacer::app
