// See watch.h.
#include "evidence/watch.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>

#include "evidence/sock_diag.h"
#include "evidence/verdict.h"
#include "evidence/worker_load.h"

namespace pacer::evidence {

namespace {

constexpr std::size_t kMaxNetTcpBytes = 64 * 1024 * 1024;  // 400,000 sockets' lines

TimeNs process_cpu_ns() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  const auto ns = [](const timeval& t) { return static_cast<TimeNs>(t.tv_sec) * kNsPerS + static_cast<TimeNs>(t.tv_usec) * 1000; };
  return ns(u.ru_utime) + ns(u.ru_stime);
}

int allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

// The default scrape bound: half an interval, at most 2 s, at least 50 ms.
TimeNs scrape_timeout(const EvidenceOptions& o, TimeNs interval_ns) {
  if (o.server_metrics_timeout_ns > 0) return o.server_metrics_timeout_ns;
  return std::clamp<TimeNs>(interval_ns / 2, 50 * kNsPerMs, 2 * kNsPerS);
}

}  // namespace

Watch::Watch(const EvidenceOptions& options, std::uint16_t remote_port, TimeNs interval_ns, bool open_model,
             bool spin, bool has_users)
    : options_(options), remote_port_(remote_port), open_model_(open_model), spin_(spin), has_users_(has_users) {
  if (auto text = read_small_file("/proc/sys/net/ipv4/ip_local_port_range", 256)) port_range_ = parse_port_range(*text);
  cpus_allowed_ = allowed_cpus();
  first_ns_ = last_ns_ = monotonic_now_ns();
  first_cpu_ns_ = last_cpu_ns_ = process_cpu_ns();
  for (int pid : options_.server_pids) {
    if (auto stat = read_proc(pid)) last_pid_[pid] = *stat;
    pid_totals_.push_back(PidTotals{pid, 0, 0, 0, 0, std::nullopt, 0, ""});
  }
  if (!options_.server_metrics_urls.empty()) {
    scraper_.emplace(options_.server_metrics_urls, options_.server_metric_selectors, scrape_timeout(options_, interval_ns));
    (void)scraper_->scrape(monotonic_now_ns());  // the counters' first values: the first interval has rates
  }
}

ProcessSample Watch::sample_process(TimeNs now_ns, bool ports_due) {
  ProcessSample p;
  const TimeNs cpu = process_cpu_ns();
  p.cpu_ns = cpu - last_cpu_ns_;
  p.cpus_allowed = cpus_allowed_;
  const TimeNs wall = now_ns - last_ns_;
  if (wall >= kMinShareWindowNs) {  // else no share (kMinShareWindowNs); sample() also asks the record's
    p.cpu_share = static_cast<double>(p.cpu_ns) / (static_cast<double>(wall) * cpus_allowed_);
  }
  last_cpu_ns_ = cpu;
  last_ns_ = now_ns;
  if (auto self = read_proc(0)) {
    p.rss_bytes = self->rss_bytes;
    p.open_fds = self->open_fds.value_or(0);
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) p.fd_limit = limit.rlim_cur;
  if (!port_range_ || remote_port_ == 0) return p;
  p.port_range = port_range_->second - port_range_->first + 1;
  if (ports_due) {
    const TimeNs cost_from = read_thread_usage().cpu_ns;
    // The kernel filters by port for netlink; /proc formats every socket as text.
    netlink_refused_ = netlink_refused_ ||
                       !count_ports_netlink(remote_port_, port_range_->first, port_range_->second, p.ports);
    if (netlink_refused_) {
      for (const auto& [path, ipv6] : {std::pair{"/proc/net/tcp", false}, std::pair{"/proc/net/tcp6", true}}) {
        if (auto text = read_small_file(path, kMaxNetTcpBytes)) {
          count_ports(*text, ipv6, remote_port_, port_range_->first, port_range_->second, p.ports);
        }
      }
    }
    std::sort(p.ports.begin(), p.ports.end(), [](const PortUse& a, const PortUse& b) { return a.in_use > b.in_use; });
    if (p.ports.size() > 8) p.ports.resize(8);
    p.ports_counted = true;
    port_budget_.spent(now_ns, read_thread_usage().cpu_ns - cost_from);
  }
  return p;
}

std::vector<PidSample> Watch::sample_pids() {
  std::vector<PidSample> out;
  for (std::size_t i = 0; i < options_.server_pids.size(); ++i) {
    const int pid = options_.server_pids[i];
    PidSample s;
    s.pid = pid;
    PidTotals& total = pid_totals_[i];
    auto stat = read_proc(pid);
    if (!stat) {
      s.error = stat.error().message;  // ended, or not ours to read: marked, the run goes on
      ++total.failed_samples;
      total.last_error = s.error;
      out.push_back(std::move(s));
      continue;
    }
    const auto last = last_pid_.find(pid);
    if (last != last_pid_.end()) {
      s.cpu_user_ns = stat->cpu_user_ns - last->second.cpu_user_ns;
      s.cpu_system_ns = stat->cpu_system_ns - last->second.cpu_system_ns;
      s.voluntary_switches = stat->voluntary_switches - last->second.voluntary_switches;
      s.involuntary_switches = stat->involuntary_switches - last->second.involuntary_switches;
    }
    s.rss_bytes = stat->rss_bytes;
    s.threads = stat->threads;
    s.open_fds = stat->open_fds;
    last_pid_[pid] = *stat;
    total.cpu_user_ns += s.cpu_user_ns;
    total.cpu_system_ns += s.cpu_system_ns;
    total.peak_rss_bytes = std::max(total.peak_rss_bytes, s.rss_bytes);
    total.peak_threads = std::max(total.peak_threads, s.threads);
    if (s.open_fds) total.peak_open_fds = std::max(total.peak_open_fds.value_or(0), *s.open_fds);
    out.push_back(std::move(s));
  }
  return out;
}

void Watch::sample(report::IntervalReport& interval) {
  const TimeNs now = monotonic_now_ns();
  current_ = IntervalEvidence{};
  // The port count on its budget, and always at the drain (after -d's end: the
  // connections' TIME_WAIT ports, often the run's peak).
  current_.process = sample_process(now, port_budget_.due(now) || report::is_drain(interval));
  // The record this sample goes with lasts too short a time for a share (the drain's
  // instant): whatever the CPU since the last sample, it is no figure of that record.
  if (interval.duration_ns < kMinShareWindowNs) current_.process->cpu_share.reset();
  current_.pids = sample_pids();
  if (scraper_) {
    current_.scrapes = scraper_->scrape(now);
    for (const ScrapeSample& s : current_.scrapes) {
      ++scrapes_;
      if (!s.ok()) ++failed_scrapes_;
    }
  }
  // The open model's lag grew while a worker was busy: the sending fell behind in
  // pacer. Not in the first interval (connections opening, a script's JIT warming),
  // and only a lag past a tenth of the interval (a few arrivals waiting is normal).
  const bool lag_grew = open_model_ && interval.index > 0 && interval.schedule_lag_ns > last_lag_ns_ &&
                        interval.schedule_lag_ns > interval.duration_ns / 10;
  last_lag_ns_ = interval.schedule_lag_ns;
  current_.verdicts =
      interval_verdicts(interval.workers, current_.process, options_.client_busy_threshold, lag_grew, spin_);
  if (lag_grew && !busy_workers_phrase(interval.workers, kLagBusyShare).empty()) ++lag_busy_intervals_;
  if (open_model_ && interval.target_rate_per_s && interval.completed > 0 && interval.duration_ns > 0 &&
      !report::is_drain(interval)) {
    const auto completed = static_cast<double>(interval.completed);
    saturation_.observe(static_cast<double>(interval.service_ns_sum) / completed,
                        completed * 1e9 / static_cast<double>(interval.duration_ns), *interval.target_rate_per_s);
  }
  if (saturation_.saturated()) {
    current_.server_saturated = true;
    current_.verdicts.push_back(saturation_.phrase());
  }
  // The run's peaks.
  const ProcessSample& p = *current_.process;
  if (!peak_) peak_ = ProcessSample{};
  peak_->cpus_allowed = p.cpus_allowed;
  peak_->rss_bytes = std::max(peak_->rss_bytes, p.rss_bytes);
  peak_->open_fds = std::max(peak_->open_fds, p.open_fds);
  peak_->fd_limit = p.fd_limit;
  peak_->port_range = p.port_range;
  for (const PortUse& u : p.ports) {
    auto it = std::find_if(peak_->ports.begin(), peak_->ports.end(),
                           [&](const PortUse& q) { return q.local == u.local && q.remote == u.remote; });
    if (it == peak_->ports.end()) {
      peak_->ports.push_back(u);
    } else {
      it->in_use = std::max(it->in_use, u.in_use);
    }
  }
  peak_->cpu_ns = p.cpu_ns + peak_->cpu_ns;
  const TimeNs wall = now - first_ns_;
  peak_->cpu_share = wall > 0 ? static_cast<double>(peak_->cpu_ns) / (static_cast<double>(wall) * cpus_allowed_) : 0;
  interval.evidence = &current_;
}

void Watch::finish(RunEvidence& run) const {
  run.busy_threshold = options_.client_busy_threshold;
  run.spin = spin_;
  run.has_users = has_users_;
  run.peak = peak_;
  if (run.peak) {
    std::sort(run.peak->ports.begin(), run.peak->ports.end(),
              [](const PortUse& a, const PortUse& b) { return a.in_use > b.in_use; });
  }
  run.lag_busy_intervals = lag_busy_intervals_;
  run.pids = pid_totals_;
  run.scrapes = scrapes_;
  run.failed_scrapes = failed_scrapes_;
  judge_run(run);
  if (saturation_.saturated()) run.verdicts.push_back(saturation_.verdict());
}

}  // namespace pacer::evidence
