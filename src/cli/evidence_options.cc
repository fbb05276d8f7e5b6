// The evidence options; see evidence_options.h.
#include "cli/evidence_options.h"

#include <array>
#include <sys/stat.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "cli/units.h"
#include "cli/run_draft.h"
#include "evidence/scrape.h"

namespace pacer::cli::evidence_flags {

namespace {

Status parse_pid(const ScannedOption& option, Config& config) {
  int pid = 0;
  const std::string& v = option.value;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), pid);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || pid <= 0) {
    return bad_argument(fmt::format("{}: expected a process id (a positive integer), got '{}'", option.flag, v));
  }
  struct stat st{};
  if (::stat(fmt::format("/proc/{}", pid).c_str(), &st) != 0) {
    return bad_argument(fmt::format("{}: no process {} on this machine (/proc/{} does not exist)", option.flag, pid, pid));
  }
  for (int given : config.evidence.server_pids) {
    if (given == pid) return bad_argument(fmt::format("{}: process {} given twice", option.flag, pid));
  }
  config.evidence.server_pids.push_back(pid);
  return Ok{};
}

Status parse_metrics_url(const ScannedOption& option, Config& config) {
  const std::string& url = option.value;
  const bool scheme = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
  const std::size_t host = url.find("://") + 3;
  if (!scheme || url.size() <= host || url[host] == '/') {
    return bad_argument(fmt::format("{}: expected an http:// or https:// URL of a Prometheus text endpoint (such as "
                                    "http://127.0.0.1:9100/metrics), got '{}'",
                                    option.flag, url));
  }
  for (char c : url) {
    if (std::iscntrl(static_cast<unsigned char>(c)) || c == ' ') {
      return bad_argument(fmt::format("{}: the URL contains spaces or control characters", option.flag));
    }
  }
  config.evidence.server_metrics_urls.push_back(url);
  return Ok{};
}

Status parse_threshold(const ScannedOption& option, Config& config) {
  std::string v = option.value;
  if (!v.empty() && v.back() == '%') v.pop_back();
  char* end = nullptr;
  const double percent = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(percent) || percent <= 0 || percent > 100) {
    return bad_argument(fmt::format("{}: expected a percentage above 0 and at most 100 (such as 90%), got '{}'",
                                    option.flag, option.value));
  }
  config.evidence.client_busy_threshold = percent / 100;
  return Ok{};
}

Status apply_server_metric(const ScannedOption& option, RunDraft& draft) {
  if (const std::string why = evidence::selector_error(option.value); !why.empty()) {
    return bad_argument(fmt::format("{}: '{}': {} (expected a metric name or a regular expression over names)",
                                    option.flag, option.value, why));
  }
  draft.config.evidence.server_metric_selectors.push_back(option.value);
  return Ok{};
}

Status apply_repeat(const ScannedOption& option, RunDraft& draft) {
  auto n = parse_positive_int(option, "the number of runs");
  if (!n) return n.error();
  if (*n > kMaxRepeat) return bad_argument(fmt::format("{}: at most {} runs, got {}", option.flag, kMaxRepeat, *n));
  draft.config.evidence.repeat = *n;
  return Ok{};
}

constexpr std::array<RunOptionRow, 7> kRows{{
    {{opt::kClientBusyThreshold, '\0', "client-busy-threshold", true},
     [](const ScannedOption& o, RunDraft& d) { return parse_threshold(o, d.config); }},
    {{opt::kServerPid, '\0', "server-pid", true},
     [](const ScannedOption& o, RunDraft& d) { return parse_pid(o, d.config); }},
    {{opt::kServerMetrics, '\0', "server-metrics", true},
     [](const ScannedOption& o, RunDraft& d) { return parse_metrics_url(o, d.config); }},
    {{opt::kServerMetric, '\0', "server-metric", true}, &apply_server_metric},
    {{opt::kServerMetricsTimeout, '\0', "server-metrics-timeout", true},
     [](const ScannedOption& o, RunDraft& d) {
       return store(parse_positive_duration(o, "the scrape timeout"), d.config.evidence.server_metrics_timeout_ns);
     }},
    {{opt::kRepeat, '\0', "repeat", true}, &apply_repeat},
    {{opt::kRepeatPause, '\0', "repeat-pause", true},
     [](const ScannedOption& o, RunDraft& d) {
       return store(parse_duration(o.value, o.flag), d.config.evidence.repeat_pause_ns);
     }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

Status finish(const Config& config) {
  const EvidenceOptions& e = config.evidence;
  if (!e.server_metric_selectors.empty() && e.server_metrics_urls.empty()) {
    return bad_argument("--server-metric chooses series of --server-metrics: give the endpoint's URL too");
  }
  if (e.server_metrics_timeout_ns > 0 && e.server_metrics_urls.empty()) {
    return bad_argument("--server-metrics-timeout needs --server-metrics");
  }
  if (e.repeat_pause_ns > 0 && e.repeat < 2) return bad_argument("--repeat-pause needs --repeat N with N >= 2");
  if (e.repeat > 1 && config.web.enabled) return bad_argument("--repeat: not with --web (the live view follows one run)");
  if (e.repeat > 1 && config.timeseries_path == "-") {
    return bad_argument("--repeat: not with --timeseries - (stdout carries the runs' reports); give a file");
  }
  return Ok{};
}

}  // namespace pacer::cli::evidence_flags
