// The recorder: the only writer of a worker's result (counters, histograms, the
// first errors) and of its interval ring. The other parts tell it what happened
// (a request sent, a response, an error) with the times they know; it decides
// what is recorded (nothing scheduled before the warm-up ends) and under which
// name. Two parts of it share the result and what is recorded: the connection
// record (connects, handshakes, the first failures: record/connection_record.h)
// and the interval writer (rate samples and the interval ring, closed with the
// gauges the loop hands it: record/interval_writer.h).
// Per request it only counts and records into histograms allocated before the
// run: no allocation, no lock. One worker thread; the controller reads the
// ring's published slots (record/interval.h) and the result after the join.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/clock.h"
#include "engine/loop/clock.h"
#include "engine/record/connection_record.h"
#include "engine/record/interval.h"
#include "engine/record/interval_writer.h"
#include "engine/run_plan.h"
#include "evidence/worker_load.h"
#include "stats/counters.h"
#include "stats/name_stats.h"

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
  bool recorded(TimeNs t_sched) const { return from_.holds(t_sched); }

  // A request (or a script's batch of `count`) left at t_send, due at t_sched.
  void sent(stats::NameId name, std::uint64_t count, TimeNs t_sched, TimeNs t_send, bool queue_delay) {
    if (!recorded(t_sched)) return;
    result_.counters.requests_sent += count;
    result_.names.counts(name).requests_sent += count;
    if (draining_) result_.sent_while_draining += count;  // -d is over: the drain sends what was due
    if (queue_delay) result_.queue_delay.record(t_send - t_sched);
  }
  // A sent request its response named anew (a scenario's pacer.name_from): its send moves to the new name.
  void renamed(stats::NameId from, stats::NameId to, TimeNs t_sched) {
    if (!recorded(t_sched) || from == to) return;
    std::uint64_t& before = result_.names.counts(from).requests_sent;
    if (before > 0) --before;
    ++result_.names.counts(to).requests_sent;
  }
  // A sent request the server refused unprocessed (a graceful GOAWAY): it is sent again.
  void unsent_again(stats::NameId name, TimeNs t_sched);
  // A response: latency from t_sched to done, TTFB from t_send to the first byte
  // (t_first, 0: none), service time (open model) from t_send to done.
  void response(stats::NameId name, int status, TimeNs t_sched, TimeNs t_send, TimeNs t_first, TimeNs done,
                bool service);
  // A recorded response's body length (decoded bytes), added to its name's.
  void body(stats::NameId name, std::uint64_t body_bytes) { result_.names.counts(name).body_bytes += body_bytes; }
  // u:success() (a scenario): the recorded response of `name` due at t_sched,
  // counted a `status` error (status >= 400), is a success. Its status code
  // stays counted. An interval already published keeps the error it had.
  void succeeded(stats::NameId name, int status, TimeNs t_sched);
  // A request that ended without a response (counted for the run and its name).
  void failed(stats::NameId name, TimeNs t_sched, ErrorField error);
  // A request that ended before it was sent, by a failure the run has counted
  // already (a connection's set-up, count()): counted under its name too (a
  // scenario user's request to another origin, drive/origin_links.h).
  void failed_unsent(stats::NameId name, TimeNs t_sched, ErrorField error) {
    if (recorded(t_sched)) ++(result_.names.counts(name).errors.*error);
  }
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
    if (from_.holds(now_ns)) result_.counters.bytes_read += bytes;
  }
  void bytes_written(TimeNs now_ns, std::uint64_t bytes) {
    if (from_.holds(now_ns)) result_.counters.bytes_written += bytes;
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
  // The connections' connects, handshakes, tunnels and first failures.
  ConnectionRecord& connections() { return connections_; }

  // The loop waited ns for events (the worker's busy share, issue 28).
  void waited(TimeNs ns) { load_.waited(ns); }

  // The rate samples and the interval ring: the loop closes them.
  IntervalWriter& intervals() { return intervals_; }
  const IntervalWriter& intervals() const { return intervals_; }
  // The run's end (at_ns: -d's, or a load shape's) cuts the interval it falls in
  // (IntervalWriter::cut); what is sent from now on is the drain's, in its
  // figures and its record alike.
  template <typename ReadGauges>
  void cut_interval(TimeNs at_ns, TimeNs now_ns, ReadGauges&& gauges) {
    draining_ = true;
    intervals_.cut(at_ns, now_ns, gauges);
  }
  // The loop ended at now_ns; `scenario`: the run's scenario figures (tasks,
  // checks, names) to keep, or null.
  void finish(TimeNs now_ns, scenario::ScenarioStats* scenario) {
    result_.finished_ns = now_ns;
    result_.recorded_from_ns = from_.ns();
    result_.load = load_.total(now_ns);
    if (scenario != nullptr) result_.scenario = std::move(*scenario);
  }

  WorkerResult& result() { return result_; }

 private:
  // A new result as prepare() makes it: names sized, no allocation when recording.
  WorkerResult fresh_result() const;

  const SharedRun& shared_;
  RecordFrom from_;
  WorkerResult result_;
  evidence::LoadMeter load_;
  IntervalWriter intervals_;
  ConnectionRecord connections_;
  bool draining_ = false;  // cut_interval has been called: -d's (or a load shape's) end has passed
};

// `count` requests never written (the open model's arrivals, the closed loop's
// requests a GOAWAY refused in the drain), given up at now_ns after waiting
// waited_ns: not a server timeout, pacer's connections could not take them. Their
// true latency is at least that wait (censored, unless --no-record-timeouts), like
// a timeout's; leaving it out would make the latency look better the further the
// run falls behind.
inline void record_unsent(Recorder& recorder, TimeNs now_ns, TimeNs waited_ns, std::uint64_t count, bool censor) {
  recorder.count(&stats::ErrorCounts::unsent, now_ns, count);
  if (censor) recorder.censored(kUnsent, waited_ns, static_cast<std::int64_t>(count));
}

}  // namespace pacer::engine
