// A worker: one thread, one epoll loop, its share of the connections, and its
// own counters and histograms (shared-nothing; merged after join). The hot path
// (wake-up -> read/write -> parse -> complete -> record) takes no lock and
// allocates nothing: every buffer and connection is created by prepare().
//
// Sockets are registered once, edge-triggered, for input and output, so a
// request costs one write and one read besides epoll_wait: no epoll_ctl.
//
// Closed loop: a connection sends its next request when the previous one
// completes; t_sched is when the slot became free. Open model: arrivals come
// from an ArrivalSchedule at nanosecond times (epoll_pwait2, 1 ns timer slack);
// each goes to an idle connection or waits in a bounded FIFO backlog, its
// latency clock already running (t_sched is the arrival time).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "core/expected.h"
#include "core/unique_fd.h"
#include "engine/connection.h"
#include "engine/interval.h"
#include "engine/run_plan.h"
#include "engine/time_ring.h"
#include "engine/worker_script.h"
#include "load/schedule.h"

#include <sys/epoll.h>

namespace pacer::engine {

class Worker {
 public:
  // worker_index: 0..worker_count-1 (its share of the schedule); connections: its
  // share of -c; request_quota: its share of -n.
  Worker(const SharedRun& shared, int worker_index, int connections, std::optional<std::uint64_t> request_quota);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Allocates everything the loop needs. Main thread, before the clock starts.
  Status prepare();
  // Uses an already connected socket (the start-up probe's) as the first
  // connection instead of opening a new one. Before run().
  void adopt_first_connection(UniqueFd fd, TimeNs connect_ns);
  // The thread body: runs until the end of the run, -n, or the stop flag.
  void run();
  WorkerResult& result() { return result_; }
  // Per-interval figures for the controller (null unless SharedRun::interval_ns > 0).
  IntervalRing* intervals() { return intervals_.get(); }
  // Set (release) once run() has returned and published its last interval.
  bool is_done() const { return done_.load(std::memory_order_acquire); }

 private:
  static void on_response_complete(void* context, int status, bool keep_alive);

  bool is_recorded(TimeNs t_sched) const { return t_sched >= shared_.record_from_ns; }
  // With -n: reserves one of the worker's remaining requests for c before it
  // connects or sends, so no connection opens for a request that will never be
  // sent. Always true without -n and during warm-up; false once draining.
  bool claim_request(Connection& c);
  bool finished() const;
  bool is_open() const { return schedule_.has_value(); }
  TimeNs next_wake_ns() const;
  void wait_for_events();

  void start_connect(Connection& c);
  bool register_socket(Connection& c);  // epoll ADD, once per socket; on failure counts a connect error
  void finish_connect(Connection& c);
  void connect_failed(Connection& c, int err);
  // Closed loop: sends c's next request (t_sched = when its slot became free).
  // Open model: hands c the oldest queued arrival, or parks it on the idle list.
  void connection_ready(Connection& c);
  void send_request(Connection& c, TimeNs t_sched);
  void continue_write(Connection& c);
  void handle_readable(Connection& c, std::uint32_t events);
  void handle_response(Connection& c, int status, bool keep_alive);
  void after_response(Connection& c);
  // A request in flight failed; counts `error` (if recorded) and reopens.
  void fail_request(Connection& c, std::uint64_t stats::ErrorCounts::*error);
  void close_connection(Connection& c);
  void reopen(Connection& c);
  void reopen_idle(Connection& c);  // the peer closed with nothing in flight
  void expire_timeouts();
  void run_due_reconnects();
  void sample_rate();
  void handle_event(const epoll_event& event);
  void note_error(int err, const char* what);
  // Records a recorded request's latency in the run's and the interval's histograms.
  void record_latency(TimeNs latency_ns, bool censored);
  void close_intervals(bool final);

  // Scripts (-s): connections whose delay() has passed send now (closed loop).
  void send_delayed();

  // Open model (worker_open.cc).
  void dispatch_arrivals();
  void take_arrival(TimeNs t_sched);
  bool pop_backlog(TimeNs& t_sched);     // the oldest arrival still within --deadline
  void expire_backlog_at_drain_end();

  const SharedRun& shared_;
  const int worker_index_;
  const int connection_count_;
  std::optional<std::uint64_t> quota_left_;  // recorded requests still to start (-n)
  std::uint64_t claims_held_ = 0;            // connections holding a claim_request() reservation
  UniqueFd epoll_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> backoff_;         // min-heap on reconnect_at_ns; capacity reserved
  std::vector<epoll_event> events_;
  std::unique_ptr<char[]> read_buffer_;
  InFlightList in_flight_;                   // oldest send first: its head is the next timeout
  UniqueFd adopted_fd_;                      // see adopt_first_connection
  TimeNs adopted_connect_ns_ = 0;
  TimeNs now_ = 0;                           // read once per wake-up
  bool draining_ = false;                    // past end_ns: no new requests, finish in-flight ones
  TimeNs next_sample_ns_ = 0;
  std::uint64_t responses_at_sample_ = 0;
  // Open model.
  std::optional<load::ArrivalSchedule> schedule_;
  TimeNs next_arrival_ns_ = std::numeric_limits<TimeNs>::max();  // absolute; max: none (closed loop, or ended)
  TimeRing backlog_;
  IdleList idle_;
  WorkerResult result_;
  // Scripts (-s): null without a script. address_: where connections go (thread.addr).
  std::unique_ptr<WorkerScript> script_;
  net::Address address_;
  // Intervals (optional).
  std::unique_ptr<IntervalRing> intervals_;
  std::unique_ptr<stats::Histogram> interval_latency_;
  stats::Counters at_interval_start_;
  TimeNs next_interval_ns_ = std::numeric_limits<TimeNs>::max();
  std::atomic<bool> done_{false};
};

}  // namespace pacer::engine
