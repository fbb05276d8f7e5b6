// A worker: one thread, one epoll loop, its share of the connections, and its
// own counters and histograms (shared-nothing; merged after join). The hot path
// (wake-up -> read/write -> parse -> complete -> record) takes no lock and
// allocates nothing: every buffer and connection is created by prepare().
//
// Sockets are registered once, edge-triggered, for input and output, so a
// request costs one write and one read besides epoll_wait: no epoll_ctl.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/expected.h"
#include "core/unique_fd.h"
#include "engine/connection.h"
#include "engine/run_plan.h"

#include <sys/epoll.h>

namespace pacer::engine {

class Worker {
 public:
  // connections: this worker's share; request_quota: its share of -n.
  Worker(const SharedRun& shared, int connections, std::optional<std::uint64_t> request_quota);
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

 private:
  static void on_response_complete(void* context, int status, bool keep_alive);

  bool is_recorded(TimeNs t_sched) const { return t_sched >= shared_.record_from_ns; }
  // With -n: reserves one of the worker's remaining requests for c before it
  // connects or sends, so no connection opens for a request that will never be
  // sent. Always true without -n and during warm-up; false once draining.
  bool claim_request(Connection& c);
  bool finished() const;
  int wait_timeout_ms() const;

  void start_connect(Connection& c);
  bool register_socket(Connection& c);  // epoll ADD, once per socket; on failure counts a connect error
  void finish_connect(Connection& c);
  void connect_failed(Connection& c, int err);
  void send_request(Connection& c);
  void continue_write(Connection& c);
  void handle_readable(Connection& c, std::uint32_t events);
  void handle_response(Connection& c, int status, bool keep_alive);
  void after_response(Connection& c);
  // A request in flight failed; counts `error` (if recorded) and reopens.
  void fail_request(Connection& c, std::uint64_t stats::ErrorCounts::*error);
  void close_connection(Connection& c);
  void reopen(Connection& c);
  void expire_timeouts();
  void run_due_reconnects();
  void sample_rate();
  void handle_event(const epoll_event& event);

  void link_in_flight(Connection& c);
  void unlink_in_flight(Connection& c);
  void note_error(int err, const char* what);

  const SharedRun& shared_;
  const int connection_count_;
  std::optional<std::uint64_t> quota_left_;  // recorded requests still to start (-n)
  std::uint64_t in_flight_ = 0;
  std::uint64_t claims_held_ = 0;            // connections holding a claim_request() reservation
  UniqueFd epoll_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> backoff_;         // min-heap on reconnect_at_ns; capacity reserved
  std::vector<epoll_event> events_;
  std::unique_ptr<char[]> read_buffer_;
  Connection* in_flight_head_ = nullptr;     // oldest send first: its deadline is the next timeout
  Connection* in_flight_tail_ = nullptr;
  UniqueFd adopted_fd_;                      // see adopt_first_connection
  TimeNs adopted_connect_ns_ = 0;
  TimeNs now_ = 0;                           // read once per wake-up
  bool draining_ = false;                    // past end_ns: no new requests, finish in-flight ones
  TimeNs next_sample_ns_ = 0;
  std::uint64_t responses_at_sample_ = 0;
  WorkerResult result_;
};

}  // namespace pacer::engine
