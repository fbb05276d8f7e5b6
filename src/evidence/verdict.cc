// See verdict.h.
#include "evidence/verdict.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace pacer::evidence {

namespace {

int percent(double share) { return static_cast<int>(share * 100 + 0.5); }

// The workers at or past the threshold, busiest first.
std::vector<std::size_t> busy_workers(const std::vector<WorkerLoad>& workers, double threshold,
                                      TimeNs min_wall_ns = kMinJudgedIntervalNs) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    if (workers[i].wall_ns >= min_wall_ns && workers[i].busy() >= threshold) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(),
                   [&](std::size_t a, std::size_t b) { return workers[a].busy() > workers[b].busy(); });
  return out;
}

std::string fd_sentence(const ProcessSample& p) {
  return fmt::format("the client's file descriptors: {} of the limit of {} were open ({} %); each connection "
                     "holds one. Raise the limit (ulimit -n, LimitNOFILE=) or lower -c.",
                     p.open_fds, p.fd_limit, percent(static_cast<double>(p.open_fds) / static_cast<double>(p.fd_limit)));
}

std::string port_sentence(const PortUse& u, std::uint64_t range) {
  return fmt::format("the client's ephemeral ports: {} of the {} in the range were in use from {} to {} ({} %, "
                     "TIME_WAIT included); a new connection soon finds none. Keep connections alive, spread them "
                     "over source addresses (--bind), or widen net.ipv4.ip_local_port_range.",
                     u.in_use, range, u.local, u.remote, percent(static_cast<double>(u.in_use) / static_cast<double>(range)));
}

bool fds_near(const ProcessSample& p) {
  return p.fd_limit > 0 && static_cast<double>(p.open_fds) >= kNearLimitShare * static_cast<double>(p.fd_limit);
}

bool ports_near(const PortUse& u, std::uint64_t range) {
  return range > 0 && static_cast<double>(u.in_use) >= kNearLimitShare * static_cast<double>(range);
}

// The worker queued for a CPU the largest share of its run, if that is
// kCpuQueuedShare or more (over kMinJudgedRunNs at least).
std::optional<std::size_t> most_queued(const std::vector<WorkerLoad>& workers) {
  std::optional<std::size_t> out;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    const WorkerLoad& w = workers[i];
    if (w.wall_ns < kMinJudgedRunNs || w.runnable_share() < kCpuQueuedShare) continue;
    // Its thread's CPU and its time queued for one: below this, it waited on the server more than on a CPU.
    if (w.cpu_share() + w.runnable_share() < kCpuDemandShare) continue;
    if (!out || w.runnable_share() > workers[*out].runnable_share()) out = i;
  }
  return out;
}

}  // namespace

std::string busy_workers_phrase(const std::vector<WorkerLoad>& workers, double threshold) {
  const std::vector<std::size_t> busy = busy_workers(workers, threshold);
  std::string out;
  for (std::size_t i = 0; i < busy.size() && i < 3; ++i) {
    out += fmt::format("{}worker {} busy {} %", i == 0 ? "" : ", ", busy[i] + 1, percent(workers[busy[i]].busy()));
  }
  if (busy.size() > 3) out += fmt::format(" and {} more", busy.size() - 3);
  return out;
}

std::vector<std::string> interval_verdicts(const std::vector<WorkerLoad>& workers,
                                           const std::optional<ProcessSample>& process, double threshold,
                                           bool lag_grew, bool spin) {
  std::vector<std::string> out;
  const std::string busy = spin ? std::string() : busy_workers_phrase(workers, threshold);
  if (!busy.empty()) {
    out.push_back("the client: " + busy);
  } else if (lag_grew && !spin) {
    const std::string lagging = busy_workers_phrase(workers, kLagBusyShare);
    if (!lagging.empty()) out.push_back("the client: send lag grows, " + lagging);
  }
  if (process) {
    if (fds_near(*process)) out.push_back(fmt::format("fds {}/{}", process->open_fds, process->fd_limit));
    for (const PortUse& u : process->ports) {
      if (ports_near(u, process->port_range)) {
        out.push_back(fmt::format("ports {}/{} to {}", u.in_use, process->port_range, u.remote));
      }
    }
  }
  return out;
}

bool server_saturated(const RunEvidence& run) {
  return std::ranges::any_of(run.verdicts, [](const std::string& v) { return v.starts_with("the server: saturated"); });
}

void judge_run(RunEvidence& run) {
  run.verdicts.clear();
  run.client_bound = false;
  // Users are a scenario's: only then is "fewer users per thread" advice.
  const char* advice = run.has_users ? "Use more threads (-t), fewer users per thread, or shards."
                                     : "Use more threads (-t) or shards.";
  const std::vector<std::size_t> busy =
      run.spin ? std::vector<std::size_t>{} : busy_workers(run.workers, run.busy_threshold, kMinJudgedRunNs);
  if (!busy.empty()) {
    std::string who;
    for (std::size_t i = 0; i < busy.size(); ++i) {
      who += fmt::format("{}worker {} was busy {} %", i == 0 ? "" : (i + 1 == busy.size() ? " and " : ", "),
                         busy[i] + 1, percent(run.workers[busy[i]].busy()));
    }
    // Queued for a CPU a quarter of the time or more: others compete for the machine.
    const WorkerLoad& busiest = run.workers[busy[0]];
    const std::string queued =
        busiest.runnable_share() >= kCpuQueuedShare
            ? fmt::format(" (queued for a CPU {} % of it: other processes compete for this machine)",
                          percent(busiest.runnable_share()))
            : "";
    run.verdicts.push_back(
        fmt::format("the client: {} of the run{}; these figures measure pacer, not the server. {}", who, queued, advice));
    run.client_bound = true;
  } else if (run.lag_busy_intervals >= 2 && !run.spin) {
    run.verdicts.push_back(fmt::format(
        "the client: the open model's send lag grew in {} intervals while a worker was busy at least {} % of "
        "them; the sending fell behind in pacer, not the server. {}",
        run.lag_busy_intervals, percent(kLagBusyShare), advice));
    run.client_bound = true;
  } else if (const std::optional<std::size_t> queued = run.spin ? std::nullopt : most_queued(run.workers)) {
    // Not busy past the threshold, but queued behind other processes: its
    // latencies hold its own waits for a CPU (issue 43).
    const WorkerLoad& w = run.workers[*queued];
    run.verdicts.push_back(fmt::format(
        "the client: worker {} waited for a CPU {} % of the run (busy {} %): other processes compete for this "
        "machine, and these figures measure pacer's machine, not the server. Give pacer CPUs of its own, or use "
        "shards.",
        *queued + 1, percent(w.runnable_share()), percent(w.busy())));
    run.client_bound = true;
  }
  if (run.peak) {
    if (fds_near(*run.peak)) run.verdicts.push_back(fd_sentence(*run.peak));
    for (const PortUse& u : run.peak->ports) {
      if (ports_near(u, run.peak->port_range)) run.verdicts.push_back(port_sentence(u, run.peak->port_range));
    }
  }
}

}  // namespace pacer::evidence
