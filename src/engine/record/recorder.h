// The recorder: the only writer of a worker's result (counters, histograms, the
// first errors) and of its interval ring. The other parts tell it what happened
// (a request sent, a response, an error, a connect) with the times they know; it
// decides what is recorded (nothing scheduled before the warm-up ends), under
// which name, and closes each interval with the gauges the loop hands it.
// Per request it only counts and records into histograms allocated before the
// run: no allocation, no lock. One worker thread; the controller reads the
// ring's published slots (record/interval.h) and the result after the join.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "core/clock.h"
#include "engine/loop/clock.h"
#include "engine/record/interval.h"
#include "engine/run_plan.h"
#include "evidence/worker_load.h"
#include "stats/counters.h"
#include "stats/name_stats.h"

namespace pacer::net {
class TlsStream;
}

namespace pacer::engine {

// An error class: a member of stats::ErrorCounts.
using ErrorField = std::uint64_t stats::ErrorCounts::*;

// The class's name as the reports print it ("timeout"), "error" for none of them.
inline const char* error_class_name(ErrorField error) {
  for (const auto& field : stats::ErrorCounts::kFields) {
    if (field.member == error) return field.name;
  }
  return "error";
}

// The name under which the latency of an arrival never sent is kept (it has none yet).
inline constexpr stats::NameId kUnsent = ~stats::NameId{0};

// The gauges an interval closes with, read by the loop from the parts that own them.
struct IntervalGauges {
  std::uint64_t open_connections = 0;
  std::uint64_t backlog = 0;
  TimeNs schedule_lag_ns = 0;
  std::uint64_t in_flight = 0;
  TimeNs oldest_in_flight_ns = 0;
  std::uint64_t in_flight_over_interval = 0;
  std::optional<stats::ScenarioErrorCounts> scenario_totals;  // --scenario: checks and script errors so far
  std::uint64_t users = 0;  // --scenario: users running (started, not stopped)
};

class Recorder {
 public:
  explicit Recorder(const SharedRun& shared);

  // Before the run: per-name records for the names known now, the interval ring.
  void prepare();
  // The loop starts at now_ns: the first rate sample and interval boundaries.
  void start(TimeNs now_ns);
  // The statistics start again at from_ns (POST /stats/reset; now_ns >= from_ns,
  // the intervals up to it closed): what was recorded so far is dropped and what
  // was scheduled before from_ns is not recorded, as the warm-up's end does. What
  // the loop learned once (the first errors, the first response's Server, when
  // every connection had opened) and the busy share stay.
  void reset(TimeNs from_ns, TimeNs now_ns);
  bool recorded(TimeNs t_sched) const { return t_sched >= record_from(); }

  // A request (or a script's batch of `count`) left at t_send, due at t_sched.
  void sent(stats::NameId name, std::uint64_t count, TimeNs t_sched, TimeNs t_send, bool queue_delay) {
    if (!recorded(t_sched)) return;
    result_.counters.requests_sent += count;
    result_.names.counts(name).requests_sent += count;
    if (draining_) result_.sent_while_draining += count;  // -d is over: the drain sends what was due
    if (queue_delay) result_.queue_delay.record(t_send - t_sched);
  }
  // A sent request the server refused unprocessed (a graceful GOAWAY): it is sent again.
  void unsent_again(stats::NameId name, TimeNs t_sched);
  // A response: latency from t_sched to done, TTFB from t_send to the first byte
  // (t_first, 0: none), service time (open model) from t_send to done.
  void response(stats::NameId name, int status, TimeNs t_sched, TimeNs t_send, TimeNs t_first, TimeNs done,
                bool service);
  // u:success() (a scenario): the recorded response of `name` due at t_sched,
  // counted a `status` error (status >= 400), is a success. Its status code
  // stays counted. An interval already published keeps the error it had.
  void succeeded(stats::NameId name, TimeNs t_sched);
  // A request that ended without a response (counted for the run and its name).
  void failed(stats::NameId name, TimeNs t_sched, ErrorField error);
  // A timed-out (or never sent: kUnsent) request's latency, a lower bound; `count` alike.
  void censored(stats::NameId name, TimeNs latency_ns, std::int64_t count = 1);
  // Errors of no request (connects, handshakes, arrivals given up), at now_ns.
  void count(ErrorField error, TimeNs now_ns, std::uint64_t n = 1);
  // Open model: arrivals scheduled (recorded ones only), the backlog's depth.
  // A plain count goes up (counters.h: scheduled arrivals, redialled connects).
  void add(std::uint64_t stats::Counters::*count, std::uint64_t n) { result_.counters.*count += n; }
  void backlog_depth(std::uint64_t depth);
  // The session's events on a request: a redirect followed, a body decoded.
  void redirect(TimeNs t_sched);
  void decoded(TimeNs t_sched, std::uint64_t bytes);
  void bytes_read(TimeNs now_ns, std::uint64_t bytes) {
    if (now_ns >= record_from()) result_.counters.bytes_read += bytes;
  }
  void bytes_written(TimeNs now_ns, std::uint64_t bytes) {
    if (now_ns >= record_from()) result_.counters.bytes_written += bytes;
  }
  // ab's fields (record/document.h), for a recorded response of `name` with
  // `status` that ended at done: its body length is compared with the name's
  // document length (2xx only); the worker's first one keeps `server`, which is
  // read (server()) only while wants_server().
  bool wants_server() const { return result_.first_response.response_ns < 0; }
  template <typename Server>
  void document(stats::NameId name, int status, TimeNs done, std::uint64_t body_bytes, Server&& server) {
    FirstResponse& first = result_.first_response;
    if (first.response_ns < 0) {
      first.response_ns = done;
      first.server.assign(server());  // once per worker
    }
    if (status < 200 || status > 299 || shared_.documents == nullptr) return;
    if (shared_.documents->differs(name, body_bytes)) ++result_.counters.length_mismatches;
    if (first.document_ns < 0) {
      first.document_ns = done;
      first.document_name = name;
    }
  }
  // A connection's TCP connect took took_ns (-1: not measured, as QUIC's, whose
  // handshake is its connect); its TLS or QUIC handshake took took_ns.
  void connected(TimeNs now_ns, TimeNs took_ns);
  void handshaken(TimeNs now_ns, TimeNs took_ns, bool resumed);
  // Every connection of the worker has opened once (the connect burst is over).
  void all_connected(TimeNs now_ns) { result_.connections_up_ns = now_ns; }
  // A proxy's CONNECT tunnel took took_ns to open (issue 33).
  void tunneled(TimeNs now_ns, TimeNs took_ns);
  // The first connection failure's text (err's strerror appended when not 0).
  void note_error(int err, const char* what);
  bool has_first_error() const { return !result_.first_error.empty(); }
  // The first TLS failure: `reason`, or (null) the stream's own description.
  void note_tls_failure(TimeNs now_ns, const char* reason, const net::TlsStream& tls);

  // The loop waited ns for events (the worker's busy share, issue 28).
  void waited(TimeNs ns) { load_.waited(ns); }

  // Every 100 ms: the rate sample. Returns the window's mean latency (ns) when a
  // sample was taken, for the loop's coalescing pause; nullopt otherwise.
  std::optional<TimeNs> sample_rate(TimeNs now_ns);
  // Publishes every interval whose boundary now_ns passed (final: the partial
  // last one too), with the gauges gauges() reads then (only then: they walk lists).
  template <typename ReadGauges>
  void close_intervals(TimeNs now_ns, bool final, ReadGauges&& gauges) {
    if (final || now_ns >= next_interval_ns_) publish_intervals(now_ns, final, gauges());
  }
  // The run's end (at_ns: -d's, or a load shape's) cuts the interval it falls in:
  // the part before it is published now (at_ns its end), the drain after it
  // goes on in the next one, so no interval mixes the run and its drain.
  template <typename ReadGauges>
  void cut_interval(TimeNs at_ns, TimeNs now_ns, ReadGauges&& gauges) {
    draining_ = true;  // what is sent from now on is the drain's, in its figures and its record alike
    if (filling_ != nullptr) publish_cut(at_ns, now_ns, gauges());
  }
  // The next rate sample or interval boundary (no rate samples while draining).
  TimeNs next_due_ns(bool draining) const;
  // The loop ended at now_ns; `scenario`: the run's scenario figures (tasks,
  // checks, names) to keep, or null.
  void finish(TimeNs now_ns, scenario::ScenarioStats* scenario) {
    result_.finished_ns = now_ns;
    result_.recorded_from_ns = record_from();
    result_.load = load_.total(now_ns);
    if (scenario != nullptr) result_.scenario = std::move(*scenario);
  }

  WorkerResult& result() { return result_; }
  IntervalRing* intervals() { return intervals_.get(); }

 private:
  void publish_intervals(TimeNs now_ns, bool final, const IntervalGauges& gauges);
  void publish_cut(TimeNs at_ns, TimeNs now_ns, const IntervalGauges& gauges);
  void publish_slot(TimeNs end_ns, TimeNs now_ns, bool final, const IntervalGauges& gauges);

  // A new result as prepare() makes it: names sized, no allocation when recording.
  WorkerResult fresh_result() const;

  // The warm-up's end, or the last reset's time.
  TimeNs record_from() const { return std::max(shared_.record_from_ns, reset_from_ns_); }

  const SharedRun& shared_;
  TimeNs reset_from_ns_ = 0;  // the last statistics reset (0: none)
  WorkerResult result_;
  TimeNs window_latency_ns_ = 0;  // latencies recorded since the last rate sample, summed
  TimeNs service_ns_sum_ = 0;     // open model: every recorded service time, summed
  TimeNs service_ns_at_interval_start_ = 0;
  TimeNs next_sample_ns_ = 0;
  std::uint64_t responses_at_sample_ = 0;
  std::unique_ptr<IntervalRing> intervals_;  // null unless SharedRun::interval_ns > 0
  IntervalSnapshot* filling_ = nullptr;      // the ring slot the current interval records into
  stats::Counters at_interval_start_;
  stats::ScenarioErrorCounts scenario_errors_at_interval_start_;
  TimeNs next_interval_ns_ = kNeverNs;
  TimeNs closed_at_ns_ = 0;  // the end of the last interval published
  bool draining_ = false;    // cut_interval has been called: -d's (or a load shape's) end has passed
  evidence::LoadMeter load_;
};

}  // namespace pacer::engine
