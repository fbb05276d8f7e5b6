// Per-name figures: ordering, the Endpoints text table, merging. See endpoints.h.
#include "report/endpoints.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report/units.h"
#include "stats/name_table.h"

namespace pacer::report {

namespace {

constexpr std::size_t kColumns = 80;
constexpr double kDistributionPercentiles[] = {50, 75, 90, 99, 99.9, 99.99, 100};

// ">=" before a value that falls among censored samples (timeouts), as the run's.
std::string latency_cell(const EndpointReport& e, double percentile) {
  const stats::Histogram& h = e.latency;
  if (h.total_count() == 0) return "-";
  const stats::Percentile v = percentile >= 100
                                  ? stats::Percentile{h.max(), e.latency_censored.total_count() > 0 &&
                                                                   e.latency_censored.max() >= h.max()}
                                  : stats::percentile_with_censoring(h, e.latency_censored, percentile);
  return (v.is_lower_bound ? ">=" : "") + format_time_ns(static_cast<double>(v.value));
}

std::string ttfb_cell(const stats::Histogram& h, double percentile) {
  if (h.total_count() == 0) return "-";
  return format_time_ns(static_cast<double>(percentile >= 100 ? h.max() : h.value_at_percentile(percentile)));
}

// "  name", cut with "..." to fit the report's width.
std::string name_line(const std::string& raw_name) {
  const std::string name = stats::printable_name(raw_name);  // a crafted report's names too (pacer report)
  constexpr std::size_t kRoom = kColumns - 2;
  if (name.size() <= kRoom) return "  " + name + "\n";
  std::size_t cut = kRoom - 3;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
  return "  " + name.substr(0, cut) + "...\n";
}

// "timeout 3, read 1": the classes with a count (a scenario's checks last),
// wrapped under an indent.
std::string error_classes_lines(const stats::ErrorCounts& e, std::uint64_t checks) {
  std::vector<std::pair<const char*, std::uint64_t>> classes;
  for (const auto& f : stats::ErrorCounts::kFields) classes.emplace_back(f.name, e.*f.member);
  classes.emplace_back("check", checks);
  std::string out;
  std::string line = "      errors:";
  for (const auto& [name, count] : classes) {
    if (count == 0) continue;
    const std::string item = fmt::format(" {} {},", name, count);
    if (line.size() + item.size() > kColumns) {
      out += line + "\n";
      line = "             ";
    }
    line += item;
  }
  line.pop_back();  // the last comma
  return out + line + "\n";
}

// With --latency: the name's latency distribution, and its time to first byte
// beside it when the report has one (reports before TTFB have none).
std::string distribution_lines(const EndpointReport& e) {
  const bool ttfb = e.ttfb.total_count() > 0;
  std::string out = ttfb ? "    Latency Distribution (total, first byte)\n" : "    Latency Distribution\n";
  for (double p : kDistributionPercentiles) {
    const std::string label = p == 100 ? "100%" : fmt::format("{:g}%", p);
    out += fmt::format("{:>10} {:>9}", label, latency_cell(e, p));
    out += ttfb ? fmt::format(" {:>9}\n", ttfb_cell(e.ttfb, p)) : "\n";
  }
  return out;
}

}  // namespace

std::vector<const EndpointReport*> endpoints_by_requests(const RunReport& r) {
  std::vector<const EndpointReport*> out;
  out.reserve(r.endpoints.size());
  for (const EndpointReport& e : r.endpoints) out.push_back(&e);
  std::sort(out.begin(), out.end(), [](const EndpointReport* a, const EndpointReport* b) {
    if (a->counts.requests_sent != b->counts.requests_sent) return a->counts.requests_sent > b->counts.requests_sent;
    return a->name < b->name;
  });
  return out;
}

bool shows_endpoints(const RunReport& r) {
  return r.targets_file || r.endpoints.size() > 1 || r.scenario.active;  // scenarios: their named steps
}

std::string render_endpoints_text(const RunReport& r) {
  if (!shows_endpoints(r)) return "";
  const double seconds = static_cast<double>(r.measured_ns) / 1e9;
  std::string out = fmt::format("\nEndpoints: {} name{}, most requests first", r.endpoints.size(),
                                r.endpoints.size() == 1 ? "" : "s");
  out += "\n";
  if (r.names_capped) {
    out += fmt::format("  Past --max-names {} further names were counted under \"(other)\".\n", r.max_names);
  }
  out += fmt::format("{:>12}{:>11}{:>8}{:>9}{:>10}{:>10}{:>10}{:>10}\n", "Requests", "Req/s", "Errors", "Non-2xx",
                     "p50", "p90", "p99", "Max");
  for (const EndpointReport* e : endpoints_by_requests(r)) {
    const stats::NameCounts& c = e->counts;
    const double rate = seconds > 0 ? static_cast<double>(c.responses) / seconds : 0;
    const std::uint64_t errors = endpoint_failures(r, *e);
    out += name_line(e->name);
    // A lower bound's ">=" may fill its column: a space before each cell keeps them
    // apart, taken from the left of the requests column while the line is too wide.
    std::string row = fmt::format("{:>12}{:>11.2f}{:>8}{:>9} {:>9} {:>9} {:>9} {:>9}", c.requests_sent, rate, errors,
                                  c.non_2xx_3xx, latency_cell(*e, 50), latency_cell(*e, 90), latency_cell(*e, 99),
                                  latency_cell(*e, 100));
    while (row.size() > kColumns && row.starts_with("  ")) row.erase(0, 1);
    out += row + "\n";
    if (errors > 0) out += error_classes_lines(c.errors, endpoint_checks(r, *e));
    if (r.print_latency && e->latency.total_count() > 0) out += distribution_lines(*e);
  }
  return out;
}

std::uint64_t endpoint_checks(const RunReport& r, const EndpointReport& e) {
  if (!r.scenario.active) return 0;
  for (const scenario::NameRow& row : r.scenario.names) {
    if (row.name == e.name) return row.checks;
  }
  return 0;
}

std::uint64_t endpoint_failures(const RunReport& r, const EndpointReport& e) {
  std::uint64_t checks_not_failed = 0;
  for (const scenario::NameRow& row : r.scenario.names) {
    if (r.scenario.active && row.name == e.name) checks_not_failed = row.checks - row.check_on_errors;
  }
  return e.counts.failures() + e.counts.errors.status + checks_not_failed;
}

void settle_endpoints(RunReport& r) {
  if (r.scenario.active) {
    std::erase_if(r.endpoints, [&r](const EndpointReport& e) {
      return e.counts.requests_sent == 0 && e.counts.responses == 0 && e.counts.failures() == 0 &&
             e.latency.total_count() == 0 && endpoint_checks(r, e) == 0;
    });
  }
  if (!r.record_timeouts || r.latency_censored.total_count() == 0) return;
  std::vector<EndpointReport*> timed_out;
  for (EndpointReport& e : r.endpoints) {
    if (e.counts.errors.timeout > 0 && e.latency_censored.total_count() == 0) timed_out.push_back(&e);
  }
  const std::uint64_t run_timeouts = r.counters.errors.timeout;
  for (EndpointReport* e : timed_out) {
    const auto timeouts = static_cast<std::int64_t>(e->counts.errors.timeout);
    if (timed_out.size() == 1 && r.counters.errors.unsent == 0 && r.latency_censored.total_count() == timeouts &&
        e->counts.errors.timeout == run_timeouts) {
      e->latency_censored = r.latency_censored;  // every censored sample of the run is this name's
    } else if (e->latency.total_count() == timeouts) {
      e->latency_censored = e->latency;  // nothing but timeouts under this name
    }
  }
}

Status merge_endpoints(RunReport& into, const RunReport& from, const std::string& source) {
  for (const EndpointReport& e : from.endpoints) {
    auto it = std::find_if(into.endpoints.begin(), into.endpoints.end(),
                           [&e](const EndpointReport& x) { return x.name == e.name; });
    if (it == into.endpoints.end()) {
      EndpointReport& added = into.endpoints.emplace_back();
      added.name = e.name;
      it = std::prev(into.endpoints.end());
    }
    if (const std::string field = it->counts.merge_checked(e.counts); !field.empty()) {
      return bad_input(fmt::format("{}: endpoints[\"{}\"].{}: the merged count would pass 2^64 - 1", source, e.name,
                                   field));
    }
    if (it->latency.merge_checked(e.latency) != stats::Histogram::MergeOutcome::kMerged) {
      return bad_input(fmt::format("{}: endpoints[\"{}\"].latency: the histograms cannot be merged", source, e.name));
    }
    if (it->latency_censored.merge_checked(e.latency_censored) != stats::Histogram::MergeOutcome::kMerged) {
      return bad_input(fmt::format("{}: endpoints[\"{}\"].latency: the censored histograms cannot be merged", source,
                                   e.name));
    }
    if (it->ttfb.merge_checked(e.ttfb) != stats::Histogram::MergeOutcome::kMerged) {
      return bad_input(fmt::format("{}: endpoints[\"{}\"].ttfb: the histograms cannot be merged", source, e.name));
    }
  }
  into.names_capped = into.names_capped || from.names_capped;
  into.max_names = std::max(into.max_names, from.max_names);
  into.targets_file = into.targets_file || from.targets_file;
  return Ok{};
}

}  // namespace pacer::report
