// The Prometheus options; see prometheus_options.h.
#include "cli/prometheus_options.h"

#include <array>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cctype>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cli/units.h"
#include "cli/run_draft.h"
#include "core/read_fd.h"
#include "core/unique_fd.h"
#include "prom/exposition.h"
#include "stats/name_table.h"

namespace pacer::cli {

namespace {

// Labels pacer sets itself (and the histogram's le): a user's would clash.
constexpr std::array<std::string_view, 6> kReservedLabels{"run_id", "shard", "endpoint", "class", "code", "le"};

Status parse_label(const ScannedOption& option, Config& config) {
  const std::size_t eq = option.value.find('=');
  if (eq == std::string::npos) {
    return bad_argument(fmt::format("{}: expected NAME=VALUE, got '{}'", option.flag, option.value));
  }
  std::string name = option.value.substr(0, eq);
  std::string value = option.value.substr(eq + 1);
  if (!prom::is_label_name(name)) {
    return bad_argument(fmt::format(
        "{}: '{}' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)", option.flag, name));
  }
  if (std::find(kReservedLabels.begin(), kReservedLabels.end(), name) != kReservedLabels.end()) {
    return bad_argument(fmt::format("{}: pacer sets the label '{}' itself", option.flag, name));
  }
  if (value.empty()) return bad_argument(fmt::format("{}: label '{}' has an empty value", option.flag, name));
  // The value goes as is to /metrics and to remote write: text a reader sees whole
  // (the reports' sanitiser would change it: refused instead, with what is wrong).
  if (stats::printable_name(value) != value) {
    return bad_argument(fmt::format("{}: label '{}' has a value that is not printable UTF-8 text (a control "
                                    "character such as ESC or a line break, or a byte that is not UTF-8)",
                                    option.flag, name));
  }
  for (const auto& [given, unused] : config.prometheus.labels) {
    if (given == name) return bad_argument(fmt::format("{}: label '{}' given twice", option.flag, name));
  }
  config.prometheus.labels.emplace_back(std::move(name), std::move(value));
  return Ok{};
}

Result<std::string> parse_url(const ScannedOption& option) {
  const std::string& url = option.value;
  const bool scheme = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
  const std::size_t host = url.find("://") + 3;
  if (!scheme || url.size() <= host || url[host] == '/') {
    return bad_argument(fmt::format("{}: expected an http:// or https:// URL (such as "
                                    "http://prometheus:9090/api/v1/write), got '{}'",
                                    option.flag, url));
  }
  if (std::any_of(url.begin(), url.end(), [](char c) { return std::iscntrl(static_cast<unsigned char>(c)) || c == ' '; })) {
    return bad_argument(fmt::format("{}: the URL contains spaces or control characters", option.flag));
  }
  return url;
}

// A secret given as is, or @FILE (its first line), so it need not be in argv.
Result<std::string> parse_secret(const ScannedOption& option) {
  std::string secret = option.value;
  if (!secret.empty() && secret.front() == '@') {
    const std::string path = secret.substr(1);
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return bad_argument(fmt::format("{}: cannot read '{}': {}", option.flag, path, std::strerror(errno)));
    const ReadToEnd text = read_to_end(fd.get(), 64 * 1024);
    if (text.err != 0) return bad_argument(fmt::format("{}: cannot read '{}': {}", option.flag, path, std::strerror(text.err)));
    secret = text.bytes.substr(0, text.bytes.find_first_of("\r\n"));
  }
  if (secret.empty()) return bad_argument(fmt::format("{}: empty", option.flag));
  if (std::any_of(secret.begin(), secret.end(), [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); })) {
    return bad_argument(fmt::format("{}: contains control characters", option.flag));
  }
  return secret;
}

Result<std::string> parse_run_id(const ScannedOption& option) {
  const std::string& id = option.value;
  const bool allowed = std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  if (id.empty() || id.size() > 64 || !allowed) {
    return bad_argument(fmt::format("{}: the run id must be 1 to 64 characters from A-Z a-z 0-9 - _ .", option.flag));
  }
  return id;
}

template <typename T>
Status store_into(Result<T> parsed, T& into) {
  if (!parsed) return parsed.error();
  into = std::move(*parsed);
  return Ok{};
}

Status apply_basic_auth(const ScannedOption& option, RunDraft& draft) {
  auto secret = parse_secret(option);
  if (secret && secret->find(':') == std::string::npos) {
    return bad_argument(fmt::format("{}: expected USER:PASSWORD", option.flag));
  }
  return store_into(std::move(secret), draft.config.prometheus.basic_auth);
}

Status apply_push_timeout(const ScannedOption& option, RunDraft& draft) {
  auto ns = parse_duration(option.value, option.flag);
  if (ns && *ns <= 0) return bad_argument(fmt::format("{}: must be more than 0", option.flag));
  return store_into(std::move(ns), draft.config.prometheus.timeout_ns);
}

constexpr std::array<RunOptionRow, 6> kPrometheusRows{{
    {{opt::kPrometheusRemoteWrite, '\0', "prometheus-remote-write", true},
     [](const ScannedOption& o, RunDraft& d) { return store_into(parse_url(o), d.config.prometheus.remote_write_url); }},
    {{opt::kPrometheusLabel, '\0', "prometheus-label", true},
     [](const ScannedOption& o, RunDraft& d) { return parse_label(o, d.config); }},
    {{opt::kPrometheusBasicAuth, '\0', "prometheus-basic-auth", true}, &apply_basic_auth},
    {{opt::kPrometheusBearerToken, '\0', "prometheus-bearer-token", true},
     [](const ScannedOption& o, RunDraft& d) { return store_into(parse_secret(o), d.config.prometheus.bearer_token); }},
    {{opt::kPrometheusTimeout, '\0', "prometheus-timeout", true}, &apply_push_timeout},
    {{opt::kRunId, '\0', "run-id", true},
     [](const ScannedOption& o, RunDraft& d) { return store_into(parse_run_id(o), d.config.prometheus.run_id); }},
}};

}  // namespace

std::span<const RunOptionRow> prometheus_option_rows() { return kPrometheusRows; }

Status finish_prometheus_options(const Config& config) {
  const PrometheusOptions& p = config.prometheus;
  if (p.remote_write_url.empty()) {
    if (!p.basic_auth.empty()) return bad_argument("--prometheus-basic-auth needs --prometheus-remote-write");
    if (!p.bearer_token.empty()) return bad_argument("--prometheus-bearer-token needs --prometheus-remote-write");
    if (!config.web.enabled && (!p.labels.empty() || !p.run_id.empty())) {
      return bad_argument(
          "--prometheus-label and --run-id label exported series: they need --prometheus-remote-write or --web");
    }
  }
  if (!p.basic_auth.empty() && !p.bearer_token.empty()) {
    return bad_argument("--prometheus-basic-auth and --prometheus-bearer-token: give one or the other");
  }
  return Ok{};
}

}  // namespace pacer::cli
