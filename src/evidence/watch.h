// The run's evidence beside its figures (issue 28), sampled on the main thread
// at each --interval's end (app/live_output.cc): the pacer process (CPU against
// the CPUs it may use, RSS, open fds against RLIMIT_NOFILE, ephemeral ports per
// source and destination against ip_local_port_range), every --server-pid and
// --server-metrics target, and the interval's verdicts; over the run, the peaks
// and totals and the run's verdicts (evidence/verdict.h). Ports are counted by the
// kernel's sock_diag netlink dump (evidence/sock_diag.h), or from /proc/net/tcp{,6}
// where netlink is refused: every socket of the network namespace whose remote
// port is the URL's and whose local port lies in the ephemeral range (any
// process's: they draw on the same range), TIME_WAIT included. Main thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "evidence/cost_budget.h"
#include "evidence/proc.h"
#include "evidence/samples.h"
#include "evidence/scrape.h"
#include "evidence/saturation.h"
#include "report/interval_report.h"

namespace pacer::evidence {

class Watch {
 public:
  // remote_port: the URL's port (0: no port count, as over a Unix socket).
  // spin: --spin (the workers' busy share is not judged); has_users: a
  // scenario's virtual users (the verdicts' advice may name them).
  Watch(const EvidenceOptions& options, std::uint16_t remote_port, TimeNs interval_ns, bool open_model, bool spin,
        bool has_users = false);

  // Samples now, for `interval` (which ended just before); points
  // interval.evidence at the result (valid until the next call).
  void sample(report::IntervalReport& interval);
  // The run's summary and verdicts into run (its workers are the engine's).
  void finish(RunEvidence& run) const;

 private:
  ProcessSample sample_process(TimeNs now_ns, bool ports_due);  // ports_due: count the ports
  std::vector<PidSample> sample_pids();

  EvidenceOptions options_;
  std::uint16_t remote_port_;
  bool open_model_;
  bool spin_;
  bool has_users_;
  std::optional<std::pair<std::uint32_t, std::uint32_t>> port_range_;
  bool netlink_refused_ = false;  // the port count reads /proc/net/tcp{,6} (evidence/sock_diag.h)
  // The port count takes at most 0.2 % of one CPU: at -c10000 every 12 s or so, at a few
  // hundred connections every interval.
  CostBudget port_budget_{0.002};
  int cpus_allowed_ = 1;
  TimeNs last_ns_ = 0;
  TimeNs last_cpu_ns_ = 0;
  TimeNs first_ns_ = 0;
  TimeNs first_cpu_ns_ = 0;
  std::map<int, ProcStat> last_pid_;
  std::optional<Scraper> scraper_;
  IntervalEvidence current_;
  // Over the run.
  std::optional<ProcessSample> peak_;
  std::vector<PidTotals> pid_totals_;
  std::uint64_t scrapes_ = 0;
  std::uint64_t failed_scrapes_ = 0;
  std::uint64_t lag_busy_intervals_ = 0;
  Saturation saturation_;  // the open model: a server saturated, not too few connections
  TimeNs last_lag_ns_ = 0;
};

}  // namespace pacer::evidence
