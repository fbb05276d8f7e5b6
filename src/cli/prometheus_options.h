// The Prometheus options (issue 29, docs/prometheus.md): --prometheus-remote-write
// URL, --prometheus-label k=v (repeatable), --prometheus-basic-auth USER:PASSWORD,
// --prometheus-bearer-token TOKEN (either may be @FILE), --prometheus-timeout T
// and --run-id ID. Their own option table, scanned with the run options. Errors
// are kBadArgument (exit 2) naming the flag. Pure but for reading @FILE; main thread.
#pragma once

#include <array>
#include <optional>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

enum PrometheusOption : int {
  kPrometheusRemoteWrite = 1100,  // past the wire options' ids
  kPrometheusLabel,
  kPrometheusBasicAuth,
  kPrometheusBearerToken,
  kPrometheusTimeout,
  kRunId,
};

inline constexpr std::array<OptionSpec, 6> kPrometheusOptions{{
    {kPrometheusRemoteWrite, '\0', "prometheus-remote-write", true},
    {kPrometheusLabel, '\0', "prometheus-label", true},
    {kPrometheusBasicAuth, '\0', "prometheus-basic-auth", true},
    {kPrometheusBearerToken, '\0', "prometheus-bearer-token", true},
    {kPrometheusTimeout, '\0', "prometheus-timeout", true},
    {kRunId, '\0', "run-id", true},
}};

// Applies `option` if it is one of these; nullopt if it is not.
std::optional<Status> apply_prometheus_option(const ScannedOption& option, Config& config);

// Once every option is read: the push's credentials need its URL, a label or a
// run id needs somewhere to go (--web or the push), one kind of credentials.
Status finish_prometheus_options(const Config& config);

}  // namespace pacer::cli
