#include "report/json.h"

#include <ctime>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "evidence/evidence_json.h"

#include "report/ab_fields.h"
#include "report/endpoints.h"
#include "report/error_json.h"
#include "report/printable_json.h"
#include "report/series_json.h"
#include "report/gates.h"
#include "report/load_changes.h"
#include "scenario/scenario_report.h"
#include "stats/hdr_codec.h"

#ifndef PACER_VERSION
#define PACER_VERSION "0.0.0"
#endif

namespace pacer::report {

namespace {

using json = nlohmann::ordered_json;

constexpr double kPercentiles[] = {50, 75, 90, 99, 99.9, 99.99, 100};

double seconds(TimeNs ns) { return static_cast<double>(ns) / 1e9; }

std::string percentile_key(double p) { return fmt::format("{:g}", p); }

std::string iso8601_utc(std::int64_t unix_ns) {
  const std::time_t secs = static_cast<std::time_t>(unix_ns / kNsPerS);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, (unix_ns % kNsPerS) / kNsPerMs);
}

// Summary of one histogram; `censored` (may be null) marks lower-bound percentiles
// and is itself included, so a reader can tell censored samples apart.
json summary(const stats::Histogram& h, const stats::Histogram* censored) {
  json out = {{"count", h.total_count()}};
  // Lossless: HdrHistogram V2, zlib-compressed, base64 (what Java's and C's decoders read).
  out["histogram"] = stats::encode_v2_base64(h);
  if (h.total_count() == 0) return out;
  out["min_ns"] = h.min();
  out["max_ns"] = h.max();
  out["mean_ns"] = h.mean();
  out["stdev_ns"] = h.stdev();
  const stats::Histogram none(h.lowest_discernible(), h.highest_trackable(), h.significant_figures());
  json percentiles = json::object();
  json lower_bounds = json::array();
  for (double p : kPercentiles) {
    const stats::Percentile v = stats::percentile_with_censoring(h, censored != nullptr ? *censored : none, p);
    percentiles[percentile_key(p)] = v.value;
    if (v.is_lower_bound) lower_bounds.push_back(percentile_key(p));
  }
  out["percentiles_ns"] = std::move(percentiles);
  if (censored != nullptr) {
    out["censored_count"] = censored->total_count();
    out["censored_histogram"] = stats::encode_v2_base64(*censored);
    out["lower_bound_percentiles"] = std::move(lower_bounds);
  }
  return out;
}

// The rates asked of `share` (the report's part of the test): rate_per_s,
// rate_end_per_s, stages, as the model has them.
void add_rates(json& c, const RunReport& r, const ShardShare& share) {
  if (r.load_model == LoadModel::kConstant) c["rate_per_s"] = share.rate(r.rate_per_s);
  if (r.load_model == LoadModel::kRamp) {
    c["rate_per_s"] = share.rate(r.rate_per_s);
    c["rate_end_per_s"] = share.rate(r.rate_end_per_s);
  }
  if (r.load_model == LoadModel::kStages) {
    json stages = json::array();
    for (const RateStage& s : r.stages) {
      stages.push_back({{"duration_s", seconds(s.duration_ns)}, {"rate_per_s", share.rate(s.target_rate_per_s)}});
    }
    c["stages"] = std::move(stages);
  }
}

// "shard": which part of the test the report covers ("index" is null for a merge
// lacking shards: it covers several) and "whole_test": the test's own figures.
json shard_json(const RunReport& r) {
  const ShardShare share = shard_share(r);
  json whole = {
      {"connections", r.test_connections > 0 ? json(r.test_connections) : json(nullptr)},
      {"requests", r.test_request_count ? json(*r.test_request_count) : json(nullptr)},
  };
  if (r.load_model != LoadModel::kClosed) add_rates(whole, r, ShardShare{});
  return {
      {"index", share.covered == 1 ? json(r.shard_index) : json(nullptr)},
      {"count", r.shard_count},
      {"covered", share.covered},
      {"whole_test", std::move(whole)},
  };
}

// Its options, only when given (older readers see what they knew).
void add_wire_config(json& c, const RunReport& r) {
  if (!r.unix_socket.empty()) c["unix_socket"] = r.unix_socket;
  if (r.follow_redirects > 0) c["follow_redirects"] = r.follow_redirects;
  if (r.compressed) c["compressed"] = true;
}

// The counts of --follow-redirects and --compressed, when on (their error classes
// are in error_classes_json).
void add_wire_counts(json& out, const RunReport& r) {
  const stats::Counters& c = r.counters;
  if (r.follow_redirects > 0) out["counts"]["redirects"] = c.redirects;
  if (r.compressed) out["counts"]["bytes_decoded"] = c.bytes_decoded;
}

// Issue 33: the proxy, --bind's count, what TLS negotiated (null when not known).
json connection_path_json(const RunReport& r) {
  const auto text_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  json proxy = r.proxy.empty() ? json(nullptr)
                               : json{{"url", r.proxy}, {"source", r.proxy_source},
                                      {"mode", r.proxy_tunnel ? "connect" : "forward"}};
  return {
      {"proxy", std::move(proxy)},
      {"bind_addresses", r.bind_addresses},
      {"tls", r.tls_protocol.empty() ? json(nullptr)
                                     : json{{"protocol", r.tls_protocol},
                                            {"cipher", text_or_null(r.tls_cipher)},
                                            {"alpn", text_or_null(r.tls_alpn)},
                                            {"handshakes", r.counters.tls_handshakes},
                                            {"resumed", r.counters.tls_resumed}}},
  };
}

json config_json(const RunReport& r) {
  json c = {
      {"url", r.url},
      {"method", r.method},
      {"threads", r.threads},
      {"connections", r.connections},
      {"duration_s", r.duration_ns > 0 ? json(seconds(r.duration_ns)) : json(nullptr)},
      {"requests", r.request_count ? json(*r.request_count) : json(nullptr)},
      {"timeout_s", seconds(r.timeout_ns)},
      {"warmup_s", seconds(r.warmup_ns)},
      {"keep_alive", r.keep_alive},
      {"protocol", r.protocol},
      {"requests_per_connection", r.requests_per_connection},
      {"record_timeouts", r.record_timeouts},
      {"load_model", load_model_name(r.load_model)},
      {"shard", shard_json(r)},
  };
  if (!r.shard_source.empty()) c["shard"]["source"] = r.shard_source;
  if (!r.io_engine.empty()) c["io_engine"] = r.io_engine;
  if (!r.io_fallback.empty()) c["io_fallback"] = r.io_fallback;
  if (r.spin) c["spin"] = true;
  if (r.targets_count > 0) c["targets"] = {{"count", r.targets_count}, {"order", r.targets_order}};  // issue 15
  add_wire_config(c, r);
  if (r.load_model == LoadModel::kClosed) return c;
  c["arrival"] = r.poisson ? "poisson" : "uniform";
  if (r.poisson) c["seed"] = r.seed;
  c["deadline_s"] = r.deadline_ns > 0 ? json(seconds(r.deadline_ns)) : json(nullptr);
  add_rates(c, r, shard_share(r));
  return c;
}

// pacer merge's findings about the set it merged.
json merge_json(const MergeInfo& m) {
  return {
      {"files", m.files},
      {"missing_shards", m.missing_shards},
      {"complete", m.missing_shards.empty()},
      {"start_spread_s", seconds(m.start_spread_ns)},
      {"start_tolerance_s", seconds(m.start_tolerance_ns)},
      {"start_times_differ", m.starts_differ()},
  };
}

// Per request name (targets): endpoints[] with the run's figures per name and
// each name's latency histogram (V2), so that pacer merge merges them exactly.
json endpoints_json(const RunReport& r) {
  const double secs = seconds(r.measured_ns);
  json out = json::array();
  for (const EndpointReport& e : r.endpoints) {
    const stats::NameCounts& c = e.counts;
    json errors = json::object();
    for (const auto& f : stats::ErrorCounts::kFields) errors[f.name] = c.errors.*f.member;
    if (r.scenario.active) errors["check"] = endpoint_checks(r, e);  // u:fail, as the run's errors
    json item = {{"name", e.name}};
    for (const auto& f : stats::NameCounts::kFields) item[f.name] = c.*f.member;
    item["body_bytes"] = c.body_bytes;
    item["errors"] = std::move(errors);
    item["failed"] = endpoint_failures(r, e);
    std::map<int, std::uint64_t> codes;  // ascending, as status_codes
    c.status_errors.for_each([&](int code, std::uint64_t n) { codes[code] += n; });
    json by_code = json::object();
    for (const auto& [code, n] : codes) by_code[std::to_string(code)] = n;
    if (c.status_errors.other() > 0) by_code["other"] = c.status_errors.other();
    item["status_errors"] = std::move(by_code);
    item["completed_per_s"] = secs > 0 ? static_cast<double>(c.responses) / secs : 0.0;
    // Its censored samples when known (settle_endpoints), else none marked: absent, not 0.
    const bool censored_known = !r.record_timeouts || c.errors.timeout == 0 || e.latency_censored.total_count() > 0;
    item["latency"] = summary(e.latency, censored_known ? &e.latency_censored : nullptr);
    item["ttfb"] = summary(e.ttfb, nullptr);
    out.push_back(std::move(item));
  }
  return out;
}

// The run's errors by class; a scenario's `check` and `script` among them (a
// failed check is a failure everywhere, issue 31).
json errors_json(const RunReport& r) {
  json out = error_classes_json(r.counters.errors, r.follow_redirects > 0, r.compressed);
  if (!r.scenario.active) return out;
  out["check"] = r.scenario.check;
  out["script"] = r.scenario.script;
  return out;
}

// The command line, and the time series (--timeseries, --html):
// each interval's point (report/series_json.h) with its histograms. Both absent when not known.
void add_report_fields(json& out, const RunReport& r) {
  if (!r.command_line.empty()) out["command_line"] = r.command_line;
  if (!r.timeseries) return;
  json series = json::array();
  for (const SeriesPoint& point : *r.timeseries) series.push_back(series_point_json(point, true));
  out["timeseries"] = std::move(series);
}

// The counts, as the engine and the servers counted them.
json counts_json(const RunReport& r) {
  const stats::Counters& c = r.counters;
  const bool is_open = r.load_model != LoadModel::kClosed;
  return {
      {"requests_sent", c.requests_sent},
      {"responses", c.responses},
      {"successes", c.successes()},
      {"failed", failed_requests(r)},
      {"bytes_read", c.bytes_read},
      {"bytes_written", c.bytes_written},  // ab's "Total body sent" (issue 33)
      {"length_mismatches", c.length_mismatches},
      {"warmup_responses", c.warmup_responses},
      {"connects", c.connects},
      {"tls_handshakes", c.tls_handshakes},
      {"tls_resumed", c.tls_resumed},
      {"redials", c.redials},  // connects dialled again at the start (issue 31)
      {"keepalive_closed", c.keepalive_closed},  // the peer closed a kept-alive connection (issue 43)
      {"resent", c.resent},                      // ...and the requests it caught were sent again
      {"scheduled", is_open ? json(c.scheduled) : json(nullptr)},
      {"peak_backlog", is_open ? json(c.peak_backlog) : json(nullptr)},
      // Open model: requests written after -d ended (null: not known, e.g. before the engine reports it).
      {"sent_while_draining", is_open && r.sent_while_draining ? json(*r.sent_while_draining) : json(nullptr)},
  };
}

// The responses per status code that came at least once.
json status_codes_json(const stats::Counters& c) {
  json status_codes = json::object();
  for (std::size_t code = 0; code < c.status_counts.size(); ++code) {
    if (c.status_counts[code] != 0) status_codes[std::to_string(code)] = c.status_counts[code];
  }
  return status_codes;
}

// The rates over the measured time (the target's: the open model's only).
json rates_json(const RunReport& r) {
  const stats::Counters& c = r.counters;
  const double secs = seconds(r.measured_ns);
  auto per_second = [secs](std::uint64_t n) { return secs > 0 ? static_cast<double>(n) / secs : 0.0; };
  const bool is_open = r.load_model != LoadModel::kClosed;
  return {
      {"target_per_s", is_open ? json(r.target_rate_per_s) : json(nullptr)},
      {"sent_per_s", sent_rate_per_s(r)},
      {"completed_per_s", per_second(c.responses)},
      {"sent_to_target", sent_to_target(r) ? json(*sent_to_target(r)) : json(nullptr)},
      {"bytes_read_per_s", per_second(c.bytes_read)},
  };
}

// The sections after the figures: endpoints, the wire, the connection's path,
// and those only some runs have (a merge, a scenario, evidence, a remote write).
void add_sections(json& out, const RunReport& r) {
  out["endpoints"] = endpoints_json(r);
  out["endpoint_names"] = {{"max_names", r.max_names}, {"capped", r.names_capped}, {"targets_file", r.targets_file}};
  add_wire_counts(out, r);
  out["connection_path"] = connection_path_json(r);
  out["first_response"] = first_response_json(r);  // ab's Server header and document length (issue 33)
  if (r.merge) out["merge"] = merge_json(*r.merge);
  add_report_fields(out, r);
  if (r.scenario.active) out["scenario"] = scenario::to_json(r.scenario);  // --scenario (issue 16)
  if (!r.evidence.workers.empty()) out["client"] = evidence::run_client_json(r.evidence);  // issue 28
  if (json server = evidence::run_server_json(r.evidence); !server.is_null()) out["server"] = std::move(server);
  if (r.remote_write) {  // --prometheus-remote-write (issue 29)
    const RemoteWriteSummary& w = *r.remote_write;
    out["prometheus_remote_write"] = {{"pushes", w.pushes},   {"sent", w.sent},       {"dropped", w.dropped},
                                      {"failed", w.failed},   {"retries", w.retries}, {"last_error", w.last_error}};
  }
}

}  // namespace

std::string render_json(const RunReport& r) { return json_document(r).dump(2) + "\n"; }

json json_document(const RunReport& r) {
  const bool is_open = r.load_model != LoadModel::kClosed;
  const std::vector<std::string> failures = failed_gates(r);
  json out = {
      {"schema", "pacer-report"},
      {"schema_version", kJsonSchemaVersion},
      {"pacer_version", PACER_VERSION},
      {"config", config_json(r)},
      {"start_time", iso8601_utc(r.start_unix_ns)},
      {"duration_s", seconds(r.measured_ns)},
      {"interrupted", r.interrupted},
      {"gave_up", r.gave_up.empty() ? json(nullptr) : json(r.gave_up)},
      {"stuck_worker", r.stuck_worker.empty() ? json(nullptr) : json(r.stuck_worker)},
      {"load_changes", load_changes_json(r.load_changes)},
      {"counts", counts_json(r)},
      {"errors", errors_json(r)},
      {"error_rate", error_rate(r)},
      {"status_codes", status_codes_json(r.counters)},
      {"rates", rates_json(r)},
      {"latency", summary(r.latency, &r.latency_censored)},
      {"service_time", is_open ? summary(r.service, nullptr) : json(nullptr)},
      {"queue_delay", is_open ? summary(r.queue_delay, nullptr) : json(nullptr)},
      {"connect_time", summary(r.connect, nullptr)},
      // The last of -c first opened this far into the measured time (null: before it began, or not known).
      {"connections_ramp_s", r.connections_ramp_ns ? json(static_cast<double>(*r.connections_ramp_ns) / 1e9)
                                                   : json(nullptr)},
      {"tls_handshake_time", summary(r.tls_handshake, nullptr)},
      {"tunnel_time", summary(r.tunnel, nullptr)},  // through a proxy's CONNECT tunnel (issue 33)
      {"ttfb", summary(r.ttfb, nullptr)},  // time to first byte
      // Per-thread requests/second, one sample per 100 ms: what `pacer merge` needs
      // to print wrk's Req/Sec row for several shards.
      {"req_per_s", {{"histogram", stats::encode_v2_base64(r.rate_samples)}}},
      {"first_error", r.first_error.empty() ? json(nullptr) : json(r.first_error)},
      {"tls_first_error", r.tls_first_error.empty() ? json(nullptr) : json(r.tls_first_error)},
      {"no_request_succeeded", no_request_succeeded(r)},
      {"hint", body_hint(r).empty() ? json(nullptr) : json("status 415: " + body_hint(r))},
      {"gates", {{"passed", failures.empty()}, {"failures", failures}}},
  };
  add_sections(out, r);
  make_printable(out);
  return out;
}

}  // namespace pacer::report
