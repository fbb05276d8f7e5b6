// The run configuration: plain data produced by cli::parse, validated there, and
// passed down as const Config& (never mutated after parsing). Durations are
// nanoseconds (TimeNs); counts carry their unit in the name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"

namespace pacer {

// A parsed http:// or https:// URL.
struct Target {
  std::string url;           // as given by the user
  std::string scheme;        // "http" or "https"
  std::string host;          // without brackets for IPv6 literals
  std::uint16_t port = 0;    // explicit or the scheme's default
  bool has_explicit_port = false;
  std::string path = "/";    // path plus query, never empty
  bool is_tls() const { return scheme == "https"; }
  // Host header value: the host (bracketed if IPv6), plus ":port" when it is not
  // the scheme's default.
  std::string host_header() const;
};

struct Header {
  std::string name;
  std::string value;
};

struct Config {
  Target target;
  int threads = 2;
  int connections = 10;
  TimeNs duration_ns = 10 * kNsPerS;
  bool duration_given = false;            // -d was on the command line
  TimeNs timeout_ns = 2 * kNsPerS;        // from t_send; 0 would mean no timeout (rejected by cli)
  TimeNs warmup_ns = 0;                   // nothing completed before this is recorded
  std::optional<std::uint64_t> request_count;  // -n: stop after exactly this many requests finish
  std::string method = "GET";
  std::vector<Header> headers;            // -H, in order
  std::optional<std::string> body;        // -b; Content-Length is set when present
  bool keep_alive = true;                 // false: --disable-keepalive
  bool print_latency = false;             // --latency
  bool record_timeouts = true;            // false: --no-record-timeouts
};

// Connections each worker owns: exactly `connections` in total, remainders spread
// over the first workers (4/3/3 for 3 workers and 10 connections). Workers are
// capped at the number of connections.
std::vector<int> connections_per_worker(int threads, int connections);

}  // namespace pacer
