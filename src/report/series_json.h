// The kept time series' points as JSON: the --timeseries NDJSON line and the
// JSON report's "timeseries" entries are the same object (one serializer).
// Pure; any thread.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "report/series_point.h"
#include "stats/histogram.h"

namespace pacer::report {

// The interval's object (docs/output.md): interval, start_s, start_time (the
// wall clock at start_s, RFC 3339 UTC with microseconds), duration_s, drain_s,
// drain, sent, completed, target_rate_per_s (null in the closed loop),
// achieved_rate_per_s (completed over duration_s), open_connections, backlog and
// schedule_lag_ns (null without a target), in_flight, oldest_in_flight_ns,
// in_flight_over_interval, users, bytes_read, bytes_written, errors (a
// scenario's check and script after the classes), latency_ns, stats_reset (only
// when true), status_codes, endpoints {name: {completed, errors, failed,
// latency_ns}}, client and server (issue 28), shard (when shard_count > 1),
// and with with_histogram the latency as HdrHistogram V2 (compressed, base64),
// each endpoint's too. Strings are made printable by the caller's dump_printable.
nlohmann::ordered_json series_point_json(const SeriesPoint& point, bool with_histogram);

// series_point_json as one line of text, with "\n".
std::string render_series_ndjson(const SeriesPoint& point, bool with_histogram);

// The lines' latency_ns object: {count} and, when count > 0, p50, p90, p99 and max.
nlohmann::ordered_json interval_latency_json(const stats::Histogram& latency);

// RFC 3339, UTC, microseconds ("2026-12-01T14:20:01.123456Z"): a point's start_time.
std::string rfc3339_utc_us(std::int64_t unix_ns);

}  // namespace pacer::report
