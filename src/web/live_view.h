// The live web view of a run (--web): binds before the run, says where on
// stderr, publishes each --interval's figures (the time series' NDJSON object,
// as it is) and the report so far, then the final report, and keeps serving
// it for --web-linger. A capacity search (issue 41) is one page for all its
// steps: each step's run streams its intervals as a run does, but only the
// search's end ends the page. Main thread; the server has its own
// (web/http_server.h).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "core/config.h"
#include "core/expected.h"
#include "report/interval_report.h"
#include "report/run_report.h"
#include "web/http_server.h"
#include "web/live_feed.h"
#include "web/partial_report.h"

namespace pacer::web {

class LiveView {
 public:
  // Binds config.web's address (errors: kBadArgument, exit 2) and prints the
  // page's URL on stderr. A non-loopback bind without --web-token gets a
  // generated token, printed with the URL. on_stop runs on the web thread.
  static Result<std::unique_ptr<LiveView>> start(const Config& config, std::function<void()> on_stop);
  LiveView(const Config& config, std::function<void()> on_stop);
  ~LiveView();
  LiveView(const LiveView&) = delete;
  LiveView& operator=(const LiveView&) = delete;

  std::string url() const;  // with ?token= when there is one

  // One --interval: its NDJSON line (newline optional) and figures.
  void on_interval(const report::IntervalReport& interval, const std::string& ndjson_line);
  // /metrics' pages (issue 29), replaced whole: after each interval and at the end.
  void publish_metrics(std::string text, std::string openmetrics) {
    feed_.publish_metrics(std::move(text), std::move(openmetrics));
  }
  // A running scenario's user count, for POST /users (null takes it back). Never
  // during a capacity search: a step's rate is the search's to choose.
  void lend_steering(LoadSteering* steering);
  // The run is over: the final report (or why the run failed, as {"error": ...}).
  // A search's step: that step is over, its report is /report.json's until the
  // next step starts, and the page goes on.
  void finish(const std::string& report_json);

  // A capacity search or sweep: the runs that follow are its steps. progress_json
  // (capacity/progress_json.h) is /search.json's and a "search" event's, replaced
  // whole at each publish_search.
  void begin_search(std::string progress_json);
  void publish_search(std::string progress_json) { feed_.publish_search(std::move(progress_json)); }
  // The next run is configured as `run` (a step of the search, or a run whose
  // load shape was loaded and ends it): the report so far starts again.
  void begin_run(const Config& run);
  // The search is over: its last progress (with its result) and its
  // "pacer-capacity" JSON, which /report.json and the end event carry from now on.
  void finish_search(std::string progress_json, const std::string& capacity_json);
  // Whether the page has had its end: a run's finish, or finish_search.
  bool finished() const { return feed_.finished(); }
  // Keeps serving the final page for linger_ns, or until `stop` is set.
  void linger(TimeNs linger_ns, const std::atomic<bool>& stop);
  // Stops the server, giving open pages a moment to take the end event.
  void close();

 private:
  const Config& config_;
  std::string host_;
  std::string token_;
  LiveFeed feed_;
  PartialReport so_far_;
  bool searching_ = false;  // begin_search came: finish() ends a step, not the page
  std::function<void()> on_stop_;
  std::unique_ptr<HttpServer> server_;
};

// A fresh random token (32 hex digits, from getrandom).
std::string generate_token();

// What the page is told when the run fails before it has a report: {"error": "..."}.
std::string failure_json(const Error& error);

}  // namespace pacer::web
