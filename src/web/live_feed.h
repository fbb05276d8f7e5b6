// What the web view serves, handed from the main thread (which has the run's
// interval figures) to the web thread (which serves them): the interval events
// in order (with a capacity search's "search" events among them), the JSON report
// so far, the Prometheus metrics (/metrics), a capacity search's progress
// (/search.json), and whether the run has ended. The main
// thread publishes; the web thread reads. One mutex, held only to copy a
// shared pointer or push one; an eventfd wakes the web thread. The workers
// never see this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/expected.h"
#include "core/unique_fd.h"
#include "web/load_steering.h"

namespace pacer::web {

// The newest intervals kept for a page that connects late (or reconnects):
// older ones are dropped once these many bytes are held (docs/limits.md).
inline constexpr std::size_t kHistoryMaxBytes = std::size_t{8} << 20;

// One event of /events: an interval (name empty: the stream's default "message"
// event) or a capacity search's progress (name "search").
struct FeedEvent {
  std::string name;
  std::string json;  // one line
};

class LiveFeed {
 public:
  LiveFeed();
  LiveFeed(const LiveFeed&) = delete;
  LiveFeed& operator=(const LiveFeed&) = delete;

  // Main thread. publish_interval takes one interval's JSON object (the NDJSON
  // line, without its newline); events are numbered from 0 in publish order.
  void publish_interval(std::string json);
  void publish_report(std::string json);
  // The final report: /report.json serves it from now on, and /events ends
  // with it (event "end").
  void publish_final(std::string json);
  // /metrics (issue 29): the run's series in both text formats, replaced whole.
  void publish_metrics(std::string text, std::string openmetrics);
  // A capacity search's progress (issue 41), replaced whole: /search.json serves it
  // from now on, and the stream carries it as an event "search", in order with the
  // intervals (so a page knows which step an interval is of).
  void publish_search(std::string json);
  // The same document, not streamed: the search's last state, whose result the
  // end event carries anyway.
  void replace_search(std::string json);

  // Web thread. Events [begin_seq, end_seq) are held; event(seq) is null
  // outside that range.
  std::uint64_t begin_seq() const;
  std::uint64_t end_seq() const;
  std::shared_ptr<const FeedEvent> event(std::uint64_t seq) const;
  bool finished() const;
  struct ReportState {
    std::shared_ptr<const std::string> json;
    bool final = false;
  };
  ReportState report_state() const;  // the report and whether it is the final one, read together
  struct MetricsPages {
    std::string text;         // Prometheus text format 0.0.4
    std::string openmetrics;  // OpenMetrics 1.0
  };
  std::shared_ptr<const MetricsPages> metrics() const;  // null before the first publish_metrics
  std::shared_ptr<const std::string> search() const;    // null: no capacity search
  // The run's load, lent by the main thread while the run goes (null takes it
  // back; it returns only when no web-thread call is using it). POST /users, /rate.
  void lend_steering(LoadSteering* steering);
  // Web thread: `change` applied to what is lent; nullopt when nothing is (no
  // run, or a closed loop, whose load cannot change).
  std::optional<Status> steer(const std::function<Status(LoadSteering&)>& change) const;
  std::optional<std::string> steering_state() const;
  int wake_fd() const { return wake_.get(); }  // readable after each publish (eventfd)
  void drain_wake() const;

 private:
  void push_event(FeedEvent event);
  void wake() const;

  mutable std::mutex mutex_;
  std::deque<std::shared_ptr<const FeedEvent>> history_;
  std::uint64_t begin_seq_ = 0;
  std::size_t history_bytes_ = 0;
  std::shared_ptr<const std::string> report_;
  std::shared_ptr<const MetricsPages> metrics_;
  std::shared_ptr<const std::string> search_;
  bool finished_ = false;
  UniqueFd wake_;
  mutable std::mutex steering_mutex_;  // held through each call, so a lent object is never used after its return
  LoadSteering* steering_ = nullptr;
};

}  // namespace pacer::web
