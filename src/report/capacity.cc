#include "report/capacity.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/labelled.h"
#include "report/units.h"

namespace pacer::report {

namespace {

constexpr double kBehindTarget = 0.95;  // sent below 95% of the target: the run fell behind
constexpr const char* kLabel = "Bottleneck:";

// 199, 1.99k, 2.00M: whole numbers below a thousand read better than "199.00".
std::string compact_rate(double per_s) {
  return per_s < 999.5 ? fmt::format("{:.0f}", per_s) : format_metric(per_s);
}

// A target as asked for: 1000, 1000000, 12.50 (never 1e+06).
std::string plain_rate(double per_s) {
  return per_s == std::floor(per_s) ? fmt::format("{:.0f}", per_s) : fmt::format("{:.2f}", per_s);
}

// "10 connections", "10 connections x 10 streams", "10 connections x 4 pipelined".
std::string slots_text(const Capacity& c, bool is_short) {
  std::string out = fmt::format("{} {}", c.connections, is_short ? "conns" : "connections");
  if (c.per_connection > 1) {
    out += fmt::format(" x {} {}", c.per_connection, c.http2 ? "streams" : "pipelined");
  }
  return out;
}

}  // namespace

std::optional<Capacity> capacity_for(int connections, int per_connection, bool http2, double mean_service_ns,
                                     double target_rate_per_s) {
  if (connections <= 0 || mean_service_ns <= 0 || target_rate_per_s <= 0) return std::nullopt;
  Capacity c;
  c.connections = connections;
  c.per_connection = std::max(per_connection, 1);
  c.http2 = http2;
  c.mean_service_ns = mean_service_ns;
  c.target_rate_per_s = target_rate_per_s;
  const double slots = static_cast<double>(connections) * c.per_connection;
  c.rate_per_s = slots * 1e9 / mean_service_ns;
  // Slots the target needs (Little: L = lambda x S), shared out per connection.
  const double slots_needed = target_rate_per_s * mean_service_ns / 1e9;
  c.connections_needed = static_cast<std::uint64_t>(std::ceil(slots_needed / c.per_connection - 1e-9));
  return c;
}

std::optional<Capacity> run_shortfall(const RunReport& r) {
  if (r.load_model == LoadModel::kClosed || r.service.total_count() == 0) return std::nullopt;
  const stats::Counters& c = r.counters;
  const bool behind =
      c.errors.unsent > 0 || c.errors.backlog > 0 || sent_rate_per_s(r) < kBehindTarget * r.target_rate_per_s;
  if (!behind) return std::nullopt;
  return capacity_for(r.connections, r.requests_per_connection, r.protocol == "h2" || r.protocol == "h3", r.service.mean(),
                      r.target_rate_per_s);
}

std::optional<Capacity> interval_bottleneck(const IntervalReport& in, int connections, int per_connection,
                                            bool http2) {
  if (!in.target_rate_per_s || in.completed == 0) return std::nullopt;
  if (in.backlog == 0 && in.errors.unsent == 0) return std::nullopt;
  const double mean_service_ns = static_cast<double>(in.service_ns_sum) / static_cast<double>(in.completed);
  std::optional<Capacity> c = capacity_for(connections, per_connection, http2, mean_service_ns, *in.target_rate_per_s);
  if (!c || !c->is_bottleneck()) return std::nullopt;
  return c;
}

std::string unsent_paragraph(const RunReport& r) {
  const std::string what =
      r.load_model == LoadModel::kClosed
          ? fmt::format("{} requests the server did not process after -d's end (refused by a graceful GOAWAY, or "
                        "met by the close of a kept-alive connection) could not be sent again within {} "
                        "(--timeout): no connection to the server could be opened for them",
                        r.counters.errors.unsent, format_time_ns(static_cast<double>(r.timeout_ns)))
          : fmt::format("{} requests waited in pacer's backlog longer than {} (--timeout) and were never sent: "
                        "no connection was free",
                        r.counters.errors.unsent, format_time_ns(static_cast<double>(r.timeout_ns)));
  return labelled("Unsent:",
              fmt::format("{}, so these are not server timeouts. {}", what,
                          r.record_timeouts ? "They are in the latency figures at that age, so values marked >= "
                                              "are lower bounds."
                                            : "They are left out of the latency figures (--no-record-timeouts)."));
}

std::string capacity_paragraph(const Capacity& c) {
  const std::string arithmetic =
      fmt::format("{} / {} mean service time = about {} requests/s could be sent", slots_text(c, false),
                  format_time_ns(c.mean_service_ns), compact_rate(c.rate_per_s));
  if (c.is_bottleneck()) {
    return labelled(kLabel, fmt::format("the connections. By Little's law, {}; the target was {}/s: raise -c to at "
                                    "least ~{}{}.",
                                    arithmetic, plain_rate(c.target_rate_per_s), c.connections_needed,
                                    c.http2 && c.per_connection > 1 ? " (or --streams)" : ""));
  }
  return labelled(kLabel, fmt::format("not the connections on average: {}, above the target {}/s. The backlog grew "
                                  "while responses were slow or connections failed, or pacer's threads were busy.",
                                  arithmetic, plain_rate(c.target_rate_per_s)));
}

std::string capacity_phrase(const Capacity& c, bool unicode) {
  return fmt::format("{} / {} {} {}/s < target {}/s: raise -c to ~{}", slots_text(c, true),
                     format_time_ns(c.mean_service_ns), unicode ? "\u2248" : "~", compact_rate(c.rate_per_s),
                     compact_rate(c.target_rate_per_s), c.connections_needed);
}

}  // namespace pacer::report
