// Plain counters a worker keeps for its share of the run; merged at the end.
// Each worker owns one Counters; no atomics (merged after join).
#pragma once

#include <array>
#include <cstdint>

namespace pacer::stats {

// Errors by class (DESIGN.md section 1). `status` counts responses with a status
// >= 400: they are responses, so they are also counted in `responses`.
struct ErrorCounts {
  std::uint64_t connect = 0;
  std::uint64_t tls = 0;
  std::uint64_t read = 0;
  std::uint64_t write = 0;
  std::uint64_t timeout = 0;
  std::uint64_t parse = 0;
  std::uint64_t deadline = 0;   // open model: shed before sending (queued past --deadline)
  std::uint64_t backlog = 0;    // open model: an arrival found the backlog full
  std::uint64_t unsent = 0;     // open model: waited in the backlog past --timeout, never written
  std::uint64_t stream_reset = 0;  // HTTP/2: the server reset the request's stream (RST_STREAM)
  std::uint64_t goaway = 0;        // HTTP/2: the server's GOAWAY refused the request's stream
  std::uint64_t status = 0;

  // Failures that produced no response (everything but `status`).
  std::uint64_t socket_total() const {
    return connect + tls + read + write + timeout + parse + deadline + backlog + unsent + stream_reset + goaway;
  }
  void merge(const ErrorCounts& o);
  void subtract(const ErrorCounts& o);  // o must be an earlier snapshot of this
};

constexpr int kMaxStatusCode = 999;

struct Counters {
  std::uint64_t responses = 0;          // complete responses recorded (any status)
  std::uint64_t requests_sent = 0;      // recorded requests whose bytes were written
  std::uint64_t bytes_read = 0;         // every byte read after the warm-up, headers included
  std::uint64_t warmup_responses = 0;   // responses to requests scheduled during --warmup (not recorded)
  std::uint64_t connects = 0;           // successful connects (initial and reconnects)
  std::uint64_t tls_handshakes = 0;     // completed TLS handshakes (like connects, warm-up included)
  std::uint64_t tls_resumed = 0;        // ...of which resumed a session
  std::uint64_t scheduled = 0;          // open model: recorded arrivals the schedule produced
  std::uint64_t peak_backlog = 0;       // open model: most arrivals waiting for a connection at once
                                        // (merge: the sum of the workers' peaks, an upper bound)
  ErrorCounts errors;
  std::array<std::uint64_t, kMaxStatusCode + 1> status_counts{};  // index = status code

  // Responses with a status below 400.
  std::uint64_t successes() const { return responses - errors.status; }
  void merge(const Counters& o);
};

inline void ErrorCounts::merge(const ErrorCounts& o) {
  connect += o.connect;
  tls += o.tls;
  read += o.read;
  write += o.write;
  timeout += o.timeout;
  parse += o.parse;
  deadline += o.deadline;
  backlog += o.backlog;
  unsent += o.unsent;
  stream_reset += o.stream_reset;
  goaway += o.goaway;
  status += o.status;
}

inline void ErrorCounts::subtract(const ErrorCounts& o) {
  connect -= o.connect;
  tls -= o.tls;
  read -= o.read;
  write -= o.write;
  timeout -= o.timeout;
  parse -= o.parse;
  deadline -= o.deadline;
  backlog -= o.backlog;
  unsent -= o.unsent;
  stream_reset -= o.stream_reset;
  goaway -= o.goaway;
  status -= o.status;
}

inline void Counters::merge(const Counters& o) {
  responses += o.responses;
  requests_sent += o.requests_sent;
  bytes_read += o.bytes_read;
  warmup_responses += o.warmup_responses;
  connects += o.connects;
  tls_handshakes += o.tls_handshakes;
  tls_resumed += o.tls_resumed;
  scheduled += o.scheduled;
  peak_backlog += o.peak_backlog;
  errors.merge(o.errors);
  for (std::size_t i = 0; i < status_counts.size(); ++i) status_counts[i] += o.status_counts[i];
}

}  // namespace pacer::stats
