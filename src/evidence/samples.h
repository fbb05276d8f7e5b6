// What the run samples beside its own figures (issue 28, docs/output.md "client"
// and "server"): the client process's health and the server's side, per
// interval, and their summary over the run with the verdicts. Plain data; made
// on the main thread (evidence/watch.h), read by the formatters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "evidence/worker_load.h"

namespace pacer::evidence {

// Sockets from one local address to one destination, against the ephemeral range.
struct PortUse {
  std::string local;        // "127.0.0.1"
  std::string remote;       // "127.0.0.1:8080"
  std::uint64_t in_use = 0; // sockets in any state (TIME_WAIT included: they hold their port)
};

// The pacer process over one interval (main thread, at the interval's end).
struct ProcessSample {
  TimeNs cpu_ns = 0;             // user + system over the interval, all threads
  int cpus_allowed = 0;          // sched_getaffinity
  // cpu_ns / (interval x cpus_allowed); none when the sample's window or the
  // record it goes with is shorter than kMinShareWindowNs (worker_load.h: the
  // drain's instant).
  std::optional<double> cpu_share;
  std::uint64_t rss_bytes = 0;
  std::uint64_t open_fds = 0;
  std::uint64_t fd_limit = 0;    // RLIMIT_NOFILE (soft); 0: unlimited
  std::uint64_t port_range = 0;  // ports in ip_local_port_range (0: unknown)
  // Per (local, remote), from the kernel's count (evidence/sock_diag.h). Not
  // counted in every interval: ports_counted says whether this one was (the
  // count's CPU share is bounded, evidence/cost_budget.h).
  std::vector<PortUse> ports;
  bool ports_counted = false;
};

// A --server-pid process over one interval. On a failed read (the process
// ended, no permission) `error` says why and the figures are absent.
struct PidSample {
  int pid = 0;
  std::string error;
  TimeNs cpu_user_ns = 0;         // over the interval
  TimeNs cpu_system_ns = 0;
  std::uint64_t rss_bytes = 0;
  std::uint64_t threads = 0;
  std::optional<std::uint64_t> open_fds;        // nullopt: /proc/PID/fd not readable (another user's)
  std::uint64_t voluntary_switches = 0;         // over the interval
  std::uint64_t involuntary_switches = 0;
  bool ok() const { return error.empty(); }
};

// One chosen series of a --server-metrics endpoint: a counter's increase per
// second over the interval, or a gauge's value.
struct MetricValue {
  std::string series;          // name{labels} as exposed
  bool is_rate = false;        // a counter, shown as its rate per second
  std::optional<double> value; // nullopt: a counter's first scrape (no rate yet), or the series vanished
};

// One --server-metrics scrape, at the interval's end.
struct ScrapeSample {
  std::string url;
  std::string error;           // "" when the scrape succeeded
  TimeNs took_ns = 0;
  std::vector<MetricValue> values;
  bool ok() const { return error.empty(); }
};

struct IntervalEvidence {
  std::optional<ProcessSample> process;
  std::vector<PidSample> pids;
  std::vector<ScrapeSample> scrapes;
  std::vector<std::string> verdicts;  // this interval's (the client busy, fds or ports near the limit)
  bool server_saturated = false;      // the server's queue, not the connections, caps the rate (evidence/saturation.h)
};

// A --server-pid process over the run.
struct PidTotals {
  int pid = 0;
  TimeNs cpu_user_ns = 0;
  TimeNs cpu_system_ns = 0;
  std::uint64_t peak_rss_bytes = 0;
  std::uint64_t peak_threads = 0;
  std::optional<std::uint64_t> peak_open_fds;
  std::uint64_t failed_samples = 0;
  std::string last_error;
};

struct RunEvidence {
  std::vector<WorkerLoad> workers;   // per worker over its loop (warm-up included)
  double busy_threshold = 0.9;       // --client-busy-threshold
  bool spin = false;                 // --spin: the workers never wait, so their busy share is not judged
  bool has_users = false;            // a scenario's virtual users: the advice may name them
  // The process, over the sampled intervals (absent: nothing was sampled).
  std::optional<ProcessSample> peak;  // cpu_share: the run's mean; the rest: the peak (ports: per pair)
  std::uint64_t lag_busy_intervals = 0;  // open model: intervals whose lag grew while a worker was busy
  std::vector<PidTotals> pids;
  std::uint64_t failed_scrapes = 0;
  std::uint64_t scrapes = 0;
  std::vector<std::string> verdicts;  // "the client: worker 1 was busy 98 % of the run; ..."
  bool client_bound = false;          // a verdict blames the client's CPU
};

}  // namespace pacer::evidence
