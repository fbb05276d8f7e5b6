// Remote-write pushes (docs/prometheus.md), on a thread of their own so that a
// slow or dead receiver never slows the load: the main thread hands each
// interval's body to push() and goes on; the push thread ("pacer-push") POSTs
// them in order with the remote-write 1.0 headers, retrying with exponential
// backoff (100 ms doubling to 5 s, or the receiver's Retry-After) on a network
// error, a 5xx or a 429, never on another 4xx. The queue holds at most
// `capacity` bodies; when it is full the oldest waiting one is dropped and
// counted (each body carries running totals, so the newer one supersedes it).
// Nothing here runs on a worker's thread. libcurl does the HTTP (and TLS).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "core/clock.h"
#include "report/run_report.h"

namespace pacer::prom {

struct CurlApi;

struct PushTarget {
  std::string url;
  std::string basic_auth;    // USER:PASSWORD, or ""
  std::string bearer_token;  // or ""
  TimeNs timeout_ns = 5 * kNsPerS;  // one attempt's limit
};

// What became of the pushes: the report's own figures (its warning, JSON
// "prometheus_remote_write").
using PushStats = report::RemoteWriteSummary;

inline constexpr std::size_t kPushQueueCapacity = 8;

class RemoteWriter {
 public:
  explicit RemoteWriter(PushTarget target, std::size_t capacity = kPushQueueCapacity);  // starts the thread
  ~RemoteWriter();  // finish(0) if not finished
  RemoteWriter(const RemoteWriter&) = delete;
  RemoteWriter& operator=(const RemoteWriter&) = delete;

  // Main thread: queues one request body (snappy-compressed WriteRequest).
  void push(std::string body);
  // Gives the queue up to flush_ns to empty (retries included), stops the
  // thread and returns the final figures; what is left unsent counts as failed.
  // `interrupt` (may be null): if it becomes set while the flush goes on (a
  // Ctrl-C after the run), the flush ends at once, a transfer in progress too.
  PushStats finish(TimeNs flush_ns, const std::atomic<bool>* interrupt = nullptr);
  PushStats stats() const;

 private:
  void loop();
  // One body, retried until it is sent, refused or the flush deadline passes.
  // http: the thread's curl handle (connections are reused).
  void send_until_done(void* http, const std::string& body);
  bool past_deadline() const;  // mutex_ held

  PushTarget target_;
  std::size_t capacity_;
  const CurlApi* api_ = nullptr;  // null: libcurl could not be loaded (load_error_), every push fails
  std::string load_error_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  bool sending_ = false;       // the thread holds a body taken from the queue
  bool stopping_ = false;      // finish() was called: stop when the queue is empty or at the deadline
  TimeNs deadline_ns_ = 0;     // monotonic; meaningful once stopping_
  std::atomic<bool> abort_{false};  // the flush was interrupted: curl aborts its transfer
  std::atomic<bool> done_{false};   // the thread has left its loop
  PushStats stats_;
  std::thread thread_;
};

}  // namespace pacer::prom
