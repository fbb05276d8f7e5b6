// See evidence_text.h.
#include "report/evidence_text.h"

#include <fmt/format.h>

#include "report/labelled.h"
#include "report/units.h"

namespace pacer::report {

namespace {

int percent(double share) { return static_cast<int>(share * 100 + 0.5); }

std::string client_line(const evidence::RunEvidence& e) {
  std::string busy;
  for (std::size_t i = 0; i < e.workers.size() && i < 8; ++i) {
    busy += fmt::format("{}{} %", i == 0 ? "" : ", ", percent(e.workers[i].busy()));
  }
  if (e.workers.size() > 8) busy += ", ...";
  std::string out = fmt::format("workers busy {} (verdict from {} %)", busy, percent(e.busy_threshold));
  if (e.peak) {
    const evidence::ProcessSample& p = *e.peak;
    out += fmt::format("; process CPU {} % of {} CPU{}; peak RSS {}; peak fds {}", percent(p.cpu_share.value_or(0)),
                       p.cpus_allowed, p.cpus_allowed == 1 ? "" : "s", format_bytes(static_cast<double>(p.rss_bytes)),
                       p.open_fds);
    if (p.fd_limit > 0) out += fmt::format(" of {}", p.fd_limit);
  }
  return out + ".";
}

std::string pid_line(const evidence::PidTotals& t) {
  std::string out = fmt::format("{}: CPU {:.2f} s user + {:.2f} s system; peak RSS {}; peak threads {}", t.pid,
                                static_cast<double>(t.cpu_user_ns) / 1e9, static_cast<double>(t.cpu_system_ns) / 1e9,
                                format_bytes(static_cast<double>(t.peak_rss_bytes)), t.peak_threads);
  if (t.peak_open_fds) out += fmt::format("; peak fds {}", *t.peak_open_fds);
  if (t.failed_samples > 0) out += fmt::format("; {} samples failed (last: {})", t.failed_samples, t.last_error);
  return out + ".";
}

}  // namespace

std::string evidence_paragraphs(const RunReport& r) {
  const evidence::RunEvidence& e = r.evidence;
  std::string out;
  for (const std::string& verdict : e.verdicts) out += labelled("Bottleneck:", verdict);
  if (!e.verdicts.empty()) out += labelled("Client:", client_line(e));
  // Not "Server:": that label is ab's Server header (ab_fields.h); a script that greps
  // `^Server:` as for ab gets one answer.
  for (const evidence::PidTotals& t : e.pids) out += labelled("Server pid:", pid_line(t));
  if (e.scrapes > 0) {
    out += labelled("Scrapes:", fmt::format("{} of --server-metrics, {} failed (marked in the time series, never "
                                            "read as zero).",
                                            e.scrapes, e.failed_scrapes));
  }
  return out;
}

}  // namespace pacer::report
