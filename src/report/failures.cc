// See failures.h.
#include "report/failures.h"

#include <algorithm>

#include "report/endpoints.h"

namespace pacer::report {
namespace {

const scenario::NameRow* scenario_row(const RunReport& r, const std::string& name) {
  if (!r.scenario.active) return nullptr;
  for (const scenario::NameRow& row : r.scenario.names) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

// How many endpoints have errors of this class.
std::size_t names_with(const RunReport& r, std::uint64_t stats::ErrorCounts::*member) {
  return static_cast<std::size_t>(std::count_if(r.endpoints.begin(), r.endpoints.end(), [&](const EndpointReport& e) {
    return e.counts.errors.*member > 0;
  }));
}

void add_checks(const RunReport& r, const std::string& name, std::vector<FailureRow>& out) {
  const scenario::NameRow* row = scenario_row(r, name);
  if (row == nullptr || row->checks == 0) return;
  std::uint64_t kept = 0;
  for (const scenario::Message& m : r.scenario.messages) {
    if (m.error_class != "check" || m.where != name) continue;
    const std::uint64_t n = std::min(m.count, row->checks - kept);
    if (n == 0) continue;
    out.push_back(FailureRow{name, "check", 0, m.text, n});
    kept += n;
  }
  if (row->checks > kept) out.push_back(FailureRow{name, "check", 0, "", row->checks - kept});
}

}  // namespace

std::string first_reason(const RunReport& r, const std::string& error_class) {
  if (error_class == "tls" && !r.tls_first_error.empty()) return r.tls_first_error;
  if (r.first_error.rfind(error_class + ":", 0) == 0) return r.first_error;
  for (const scenario::Message& m : r.scenario.messages) {
    if (m.error_class == error_class) return m.where + ": " + m.text;
  }
  return "";
}

std::vector<FailureRow> failure_rows(const RunReport& r) {
  std::vector<FailureRow> out;
  stats::ErrorCounts named;  // the classes' counts under a name
  for (const EndpointReport& e : r.endpoints) {
    const stats::ErrorCounts& errors = e.counts.errors;
    named.merge(errors);
    for (const auto& f : stats::ErrorCounts::kFields) {
      if (f.member == &stats::ErrorCounts::status || errors.*f.member == 0) continue;
      // The run keeps its first reason per class, not per name: it is this name's
      // when no other name has errors of the class.
      std::string reason = names_with(r, f.member) == 1 ? first_reason(r, f.name) : std::string();
      out.push_back(FailureRow{e.name, f.name, 0, std::move(reason), errors.*f.member});
    }
    e.counts.status_errors.for_each(
        [&](int code, std::uint64_t n) { out.push_back(FailureRow{e.name, "status", code, "", n}); });
    if (e.counts.status_errors.other() > 0) {
      out.push_back(FailureRow{e.name, "status", 0, "", e.counts.status_errors.other()});
    }
    // A report without codes (older than them): the name's status errors, no code.
    if (const std::uint64_t coded = e.counts.status_errors.total(); errors.status > coded) {
      out.push_back(FailureRow{e.name, "status", 0, "", errors.status - coded});
    }
    add_checks(r, e.name, out);
  }
  // Failures of no request (connects, arrivals never sent): the run's less its names'.
  for (const auto& f : stats::ErrorCounts::kFields) {
    const std::uint64_t all = r.counters.errors.*f.member;
    const std::uint64_t under_names = named.*f.member;
    if (all > under_names) out.push_back(FailureRow{"", f.name, 0, first_reason(r, f.name), all - under_names});
  }
  if (r.scenario.active && r.scenario.script > 0) {
    std::uint64_t kept = 0;
    for (const scenario::Message& m : r.scenario.messages) {
      if (m.error_class != "script") continue;
      const std::uint64_t n = std::min(m.count, r.scenario.script - kept);
      if (n > 0) out.push_back(FailureRow{m.where, "script", 0, m.text, n});
      kept += n;
    }
    if (r.scenario.script > kept) out.push_back(FailureRow{"", "script", 0, "", r.scenario.script - kept});
  }
  return out;
}

}  // namespace pacer::report
