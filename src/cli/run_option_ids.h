// The ids of a run's options (pacer URL, pacer demo): one enum for every module's
// table, so no two modules can share an id and no module picks a range of its
// own. Each id is claimed by exactly one row of one module's table (the rows:
// cli/run_options.h; tests/cli/run_options_test.cc checks the claim). An option
// is added here, then as a row (spec and apply function) in its module's table
// and in --help (cli/usage.cc). Pure.
#pragma once

#include "cli/option_table.h"

namespace pacer::cli {

struct RunDraft;  // cli/run_draft.h: the Config being filled, and which options were given
using RunOptionRow = OptionRow<RunDraft>;

namespace opt {

enum Id : int {
  // The run's own (cli/general_options.cc).
  kVersion, kHelp, kMethod, kBody, kDisableKeepalive, kNoRecordTimeouts, kSlo, kMaxErrorRate, kShard, kStartAt,
  kHttp2, kHttp3, kStreams, kPipeline, kScript, kCheckArgs, kJson, kTargets, kTargetsOrder, kWeb, kWebToken,
  kWebLinger,
  // Load (cli/load_options.cc).
  kThreads, kConnections, kDuration, kTimeout, kGiveUp, kWarmup, kRequests, kRate, kStages, kArrival, kSeed,
  kDeadline, kIo, kSpin,
  // The scenario's users (cli/scenario_options.cc).
  kScenario, kUsers, kSpawnRate, kMaxUsers, kLuaMemory, kTags, kExcludeTags, kStopTimeout,
  // The wire (cli/wire_options.cc).
  kUnixSocket, kFollowRedirects, kCompressed,
  // Output (cli/output_options.cc).
  kLatency, kFormat, kOutput, kInterval, kTimeseries, kTimeseriesHistogram, kHdr, kRefresh, kPlain, kHtml, kCsv,
  kCsvFormat, kCsvFullHistory,
  // Requests (cli/request_options.cc).
  kHeader, kMaxRequestBody, kMaxCaptureHeaders, kMaxCaptureHeaderBytes, kMaxCaptureBody, kMaxNames,
  // TLS (cli/tls_options.cc).
  kInsecure, kCaCert, kCert, kKey, kNoTlsResume, kTlsMin, kTlsMax, kCiphers, kTls13Ciphers, kSni, kNoSni,
  // Prometheus (cli/prometheus_options.cc).
  kPrometheusRemoteWrite, kPrometheusLabel, kPrometheusBasicAuth, kPrometheusBearerToken, kPrometheusTimeout,
  kRunId,
  // The connect path (cli/connect_options.cc).
  kProxy, kProxyUser, kNoProxy, kUser, kBind,
  // Cookies (cli/cookie_options.cc).
  kCookie,
  // --trace and the per-request log (cli/log_options.cc).
  kTrace, kLogRequests, kLogFormat, kLogSample,
  // Evidence (cli/evidence_options.cc).
  kClientBusyThreshold, kServerPid, kServerMetrics, kServerMetric, kServerMetricsTimeout, kRepeat, kRepeatPause,
  // The capacity search (cli/capacity_options.cc).
  kCapacity, kSweep, kStepRepeat, kCapacityPrecision, kCapacityBudget,

  kCount  // not an option: how many ids there are
};

}  // namespace opt

}  // namespace pacer::cli
