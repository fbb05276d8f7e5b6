#include "capacity/client_limit.h"

#include <fmt/format.h>

#include "report/capacity.h"
#include "report/units.h"

namespace pacer::capacity {

std::string client_limit(const report::RunReport& run, const StepFigures& figures,
                         std::optional<double> baseline_service_ns) {
  std::string out;
  const auto add = [&out](const std::string& sentence) { out += (out.empty() ? "" : " ") + sentence; };
  // The client's CPU, descriptors and ports: the run's own verdicts say which and what to do.
  for (const std::string& verdict : run.evidence.verdicts) {
    if (verdict.rfind("the client", 0) == 0) add(verdict);
  }
  if (run.counters.errors.ports > 0 && out.find("ephemeral ports") == std::string::npos) {
    add(fmt::format("the client's ephemeral ports: {} connects found no free local port (EADDRNOTAVAIL). Keep "
                    "connections alive, spread them over source addresses (--bind), or widen "
                    "net.ipv4.ip_local_port_range.",
                    run.counters.errors.ports));
  }
  if (!out.empty() || !baseline_service_ns) return out;
  // Little's law on the step's own service time: the connections could not carry
  // its rate, whether or not the step fell far enough behind to give arrivals up.
  const std::optional<report::Capacity> short_of =
      run.load_model == LoadModel::kClosed
          ? std::nullopt
          : report::capacity_for(run.connections, run.requests_per_connection,
                                 run.protocol == "h2" || run.protocol == "h3", figures.mean_service_ns,
                                 run.target_rate_per_s);
  if (!short_of || !short_of->is_bottleneck()) return out;
  if (figures.mean_service_ns > kServerQueueGrowth * *baseline_service_ns) return out;  // the server's queue
  return fmt::format("the connections: {} (the service time stayed near the {} measured at a lower rate, so the "
                     "server was not queueing; the requests waited in pacer for a free connection).",
                     report::capacity_phrase(*short_of, false), report::format_time_ns(*baseline_service_ns));
}

}  // namespace pacer::capacity
