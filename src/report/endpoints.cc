// Per-name figures: ordering, the Endpoints text table, merging. See endpoints.h.
#include "report/endpoints.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "report/units.h"
#include "stats/name_table.h"

namespace pacer::report {

namespace {

constexpr std::size_t kColumns = 80;
constexpr double kDistributionPercentiles[] = {50, 75, 90, 99, 99.9, 99.99, 100};

std::string latency_cell(const stats::Histogram& h, double percentile) {
  if (h.total_count() == 0) return "-";
  const std::int64_t v = percentile >= 100 ? h.max() : h.value_at_percentile(percentile);
  return format_time_ns(static_cast<double>(v));
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

// "timeout 3, read 1": the classes with a count, wrapped under an indent.
std::string error_classes_lines(const stats::ErrorCounts& e) {
  std::string out;
  std::string line = "      errors:";
  for (const auto& f : stats::ErrorCounts::kFields) {
    if (e.*f.member == 0) continue;
    const std::string item = fmt::format(" {} {},", f.name, e.*f.member);
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
    out += fmt::format("{:>10} {:>9}", label, latency_cell(e.latency, p));
    out += ttfb ? fmt::format(" {:>9}\n", latency_cell(e.ttfb, p)) : "\n";
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
    const std::uint64_t errors = c.failures() + c.errors.status;
    out += name_line(e->name);
    out += fmt::format("{:>12}{:>11.2f}{:>8}{:>9}{:>10}{:>10}{:>10}{:>10}\n", c.requests_sent, rate, errors,
                       c.non_2xx_3xx, latency_cell(e->latency, 50), latency_cell(e->latency, 90),
                       latency_cell(e->latency, 99), latency_cell(e->latency, 100));
    if (errors > 0) out += error_classes_lines(c.errors);
    if (r.print_latency && e->latency.total_count() > 0) out += distribution_lines(*e);
  }
  return out;
}

Status merge_endpoints(RunReport& into, const RunReport& from, const std::string& source) {
  for (const EndpointReport& e : from.endpoints) {
    auto it = std::find_if(into.endpoints.begin(), into.endpoints.end(),
                           [&e](const EndpointReport& x) { return x.name == e.name; });
    if (it == into.endpoints.end()) {
      into.endpoints.push_back(
          EndpointReport{e.name, {}, stats::Histogram::for_latency_ns(), stats::Histogram::for_latency_ns()});
      it = std::prev(into.endpoints.end());
    }
    if (const std::string field = it->counts.merge_checked(e.counts); !field.empty()) {
      return bad_input(fmt::format("{}: endpoints[\"{}\"].{}: the merged count would pass 2^64 - 1", source, e.name,
                                   field));
    }
    if (it->latency.merge_checked(e.latency) != stats::Histogram::MergeOutcome::kMerged) {
      return bad_input(fmt::format("{}: endpoints[\"{}\"].latency: the histograms cannot be merged", source, e.name));
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
