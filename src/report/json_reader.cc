// JSON report -> RunReport; see the header. Field access goes through a small
// cursor (report/json_field.h) that knows its dotted path, so every error names
// the field. A malformed field throws FieldError, caught once in
// read_json_report: this is setup code, and nlohmann's own exceptions are
// caught in the same place.
#include "report/json_reader.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/byte_size.h"
#include "core/read_fd.h"
#include "core/unique_fd.h"
#include "report/json.h"
#include "report/json_field.h"
#include "report/series_reader.h"
#include "stats/hdr_codec.h"

namespace pacer::report {
namespace {

using json = nlohmann::json;

LoadModel parse_load_model(const Field& f) {
  const std::string name = f.string();
  for (LoadModel m : {LoadModel::kClosed, LoadModel::kConstant, LoadModel::kRamp, LoadModel::kStages}) {
    if (name == load_model_name(m)) return m;
  }
  f.fail(fmt::format("unknown load model '{}'", name));
}

// The rates asked for, from `c` (config, or config.shard.whole_test).
void read_rates(const Field& c, RunReport& r) {
  if (r.load_model == LoadModel::kConstant || r.load_model == LoadModel::kRamp) {
    r.rate_per_s = c.at("rate_per_s").number();
  }
  if (r.load_model == LoadModel::kRamp) r.rate_end_per_s = c.at("rate_end_per_s").number();
  if (r.load_model == LoadModel::kStages) {
    const Field stages = c.at("stages");
    if (!stages.value().is_array()) stages.fail("expected an array");
    for (std::size_t i = 0; i < stages.value().size(); ++i) {
      const Field stage(stages.value()[i], fmt::format("{}[{}]", stages.path(), i));
      r.stages.push_back(RateStage{stage.at("duration_s").seconds_ns(), stage.at("rate_per_s").number()});
    }
  }
}

// config.rate_per_s and the like are the report's own part of the test; the
// whole test's are in config.shard.whole_test (reports from before it have
// only config's, which were the whole test's then).
void read_open_config(const Field& c, RunReport& r) {
  const std::string arrival = c.at("arrival").string();
  if (arrival != "uniform" && arrival != "poisson") c.at("arrival").fail("expected 'uniform' or 'poisson'");
  r.poisson = arrival == "poisson";
  if (r.poisson) r.seed = c.at("seed").count();
  const Field deadline = c.at("deadline_s");
  r.deadline_ns = deadline.is_null() ? 0 : deadline.seconds_ns();
  // Version 1 had no whole_test: its config rates were the whole test's.
  const bool has_whole = c.has("shard") && c.at("shard").has("whole_test");
  read_rates(has_whole ? c.at("shard").at("whole_test") : c, r);
}

// config.shard: the part of the test the report covers. A merge that lacked
// shards (index null) covers several and cannot be merged again as one shard.
void read_shard(const Field& shard, RunReport& r) {
  r.shard_count = shard.at("count").positive_int();
  if (shard.at("index").is_null()) {
    shard.at("index").fail("this is the report of a merge that lacked shards; merge the shards' own reports");
  }
  const std::uint64_t index = shard.at("index").count();
  if (index >= static_cast<std::uint64_t>(r.shard_count)) {
    shard.at("index").fail(fmt::format("{} is not below the shard count {}", index, r.shard_count));
  }
  r.shard_index = static_cast<int>(index);
  if (!shard.has("whole_test")) return;  // reports from before it
  const Field whole = shard.at("whole_test");
  if (const Field c = whole.at("connections"); !c.is_null()) r.test_connections = c.positive_int();
  if (const Field n = whole.at("requests"); !n.is_null()) r.test_request_count = n.count();
}

void read_config(const Field& c, RunReport& r) {
  r.url = c.at("url").string();
  r.method = c.at("method").string();
  r.threads = c.at("threads").positive_int();
  r.connections = c.at("connections").positive_int();
  const Field duration = c.at("duration_s");
  r.duration_ns = duration.is_null() ? 0 : duration.seconds_ns();
  const Field requests = c.at("requests");
  if (!requests.is_null()) r.request_count = requests.count();
  r.timeout_ns = c.at("timeout_s").seconds_ns();
  r.warmup_ns = c.at("warmup_s").seconds_ns();
  r.keep_alive = c.at("keep_alive").boolean();
  // Optional: reports from before HTTP/2 have neither.
  if (c.has("protocol")) r.protocol = c.at("protocol").string();
  if (c.has("requests_per_connection")) r.requests_per_connection = c.at("requests_per_connection").positive_int();
  if (c.has("targets")) {  // issue 15 (optional: older reports and runs without --targets)
    r.targets_count = c.at("targets").at("count").count();
    r.targets_order = c.at("targets").at("order").string();
  }
  if (c.has("io_engine")) r.io_engine = c.at("io_engine").string();  // optional: older reports
  if (c.has("io_fallback")) r.io_fallback = c.at("io_fallback").string();
  if (c.has("spin")) r.spin = c.at("spin").boolean();
  r.record_timeouts = c.at("record_timeouts").boolean();
  r.load_model = parse_load_model(c.at("load_model"));
  if (c.has("unix_socket")) r.unix_socket = c.at("unix_socket").string();
  if (c.has("follow_redirects")) r.follow_redirects = c.at("follow_redirects").positive_int();
  if (c.has("compressed")) r.compressed = c.at("compressed").boolean();
  if (c.has("shard")) read_shard(c.at("shard"), r);  // optional: reports from before --shard have none
  if (r.load_model != LoadModel::kClosed) read_open_config(c, r);
}

// Issue 33's connection path: the proxy, --bind's count, the negotiated TLS.
void read_connection_path(const Field& path, RunReport& r) {
  if (const Field proxy = path.at("proxy"); !proxy.is_null()) {
    r.proxy = proxy.at("url").string();
    r.proxy_source = proxy.at("source").string();
    r.proxy_tunnel = proxy.at("mode").string() == "connect";
  }
  r.bind_addresses = static_cast<std::size_t>(path.at("bind_addresses").count());
  if (const Field tls = path.at("tls"); !tls.is_null()) {
    r.tls_protocol = tls.at("protocol").string();
    if (const Field c = tls.at("cipher"); !c.is_null()) r.tls_cipher = c.string();
    if (const Field a = tls.at("alpn"); !a.is_null()) r.tls_alpn = a.string();
  }
}

// ab's fields (issue 33; report/ab_fields.h), absent from older reports.
void read_first_response(const Field& root, RunReport& r) {
  const Field counts = root.at("counts");
  if (counts.has("bytes_written")) r.counters.bytes_written = counts.at("bytes_written").count();
  if (counts.has("length_mismatches")) r.counters.length_mismatches = counts.at("length_mismatches").count();
  if (!root.has("first_response")) return;
  const Field f = root.at("first_response");
  if (const Field s = f.at("server"); !s.is_null()) r.server = s.string();
  if (const Field d = f.at("document_bytes"); !d.is_null()) {
    r.document_bytes = d.count();
    r.document_name = f.at("document_name").string();
  }
  r.document_lengths_differ = f.at("document_lengths_differ").boolean();
}

void read_counts(const Field& root, stats::Counters& c) {
  const Field counts = root.at("counts");
  c.requests_sent = counts.at("requests_sent").count();
  c.responses = counts.at("responses").count();
  c.bytes_read = counts.at("bytes_read").count();
  c.warmup_responses = counts.at("warmup_responses").count();
  c.connects = counts.at("connects").count();
  c.tls_handshakes = counts.at("tls_handshakes").count();
  c.tls_resumed = counts.at("tls_resumed").count();
  if (c.tls_resumed > c.tls_handshakes) counts.at("tls_resumed").fail("more resumed handshakes than handshakes");
  if (counts.has("redials")) c.redials = counts.at("redials").count();  // optional: older reports
  if (counts.has("keepalive_closed")) c.keepalive_closed = counts.at("keepalive_closed").count();  // issue 43
  if (counts.has("resent")) c.resent = counts.at("resent").count();
  const Field scheduled = counts.at("scheduled");
  c.scheduled = scheduled.is_null() ? 0 : scheduled.count();
  const Field peak = counts.at("peak_backlog");
  c.peak_backlog = peak.is_null() ? 0 : peak.count();

  // Every report has the first classes; the later ones are absent from reports
  // older than them (an older report counted `unsent` as timeouts).
  const Field errors = root.at("errors");
  static constexpr std::array<std::string_view, 9> kAlways{"connect", "tls",      "read",    "write", "timeout",
                                                           "parse",   "deadline", "backlog", "status"};
  for (const auto& field : stats::ErrorCounts::kFields) {
    if (std::ranges::find(kAlways, field.name) != kAlways.end() || errors.has(field.name)) {
      c.errors.*field.member = errors.at(field.name).count();
    }
  }
  if (counts.has("redirects")) c.redirects = counts.at("redirects").count();
  if (counts.has("bytes_decoded")) c.bytes_decoded = counts.at("bytes_decoded").count();
  if (c.errors.status > c.responses) errors.at("status").fail("more status errors than responses");

  const Field codes = root.at("status_codes");
  if (!codes.value().is_object()) codes.fail("expected an object");
  for (const auto& [key, value] : codes.value().items()) {
    const Field code(value, codes.path() + "." + key);
    const bool is_code = !key.empty() && key.size() <= 3 && key.find_first_not_of("0123456789") == std::string::npos;
    if (!is_code) code.fail("not a status code");
    c.status_counts[static_cast<std::size_t>(std::stoi(key))] = code.count();
  }
  // The reports add failures to responses: those sums must fit too.
  stats::Counters sum;
  if (const std::string field = sum.merge_checked(c); !field.empty()) {
    throw FieldError{field, "the counts add up past 2^64 - 1"};
  }
}

void read_summary(const Field& s, stats::Histogram& all, stats::Histogram* censored) {
  read_histogram(s.at("histogram"), all);
  const Field count = s.at("count");
  if (count.count() != static_cast<std::uint64_t>(all.total_count())) {
    count.fail(fmt::format("{} does not match the histogram's {} samples", count.count(), all.total_count()));
  }
  // V2 keeps buckets: the summary's exact extremes come back (a file renders as the live run did).
  if (all.total_count() > 0 && s.has("min_ns") && s.has("max_ns")) {
    const Field min = s.at("min_ns");
    const std::uint64_t lo = min.count();
    const std::uint64_t hi = s.at("max_ns").count();
    constexpr auto kLargest = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (lo > kLargest || hi > kLargest ||
        !all.restore_extremes(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi))) {
      min.fail("min_ns and max_ns do not fall in the histogram's lowest and highest buckets");
    }
  }
  if (censored != nullptr && s.has("censored_histogram")) read_histogram(s.at("censored_histogram"), *censored);
}

// endpoints[].status_errors: errors.status by code ("other": past the codes kept).
void read_status_errors(const Field& f, stats::NameCounts& c) {
  if (!f.value().is_object()) f.fail("expected an object");
  std::uint64_t total = 0;
  for (const auto& [key, value] : f.value().items()) {
    const Field n(value, fmt::format("{}.{}", f.path(), key));
    const std::uint64_t count = n.count();
    if (key == "other") {
      c.status_errors.add_other(count);
    } else {
      int code = 0;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), code);
      if (ec != std::errc() || end != key.data() + key.size() || code < 400 || code > stats::kMaxStatusCode) {
        n.fail("not a status code 400-" + std::to_string(stats::kMaxStatusCode));
      }
      c.status_errors.add(code, count);
    }
    if (__builtin_add_overflow(total, count, &total)) n.fail("the counts add up past 2^64 - 1");
  }
  if (total != c.errors.status) f.fail(fmt::format("adds up to {}, not errors.status {}", total, c.errors.status));
}

// endpoints[] (absent from reports older than request names: none then).
void read_endpoints(const Field& root, RunReport& r) {
  if (root.has("endpoint_names")) {
    const Field names = root.at("endpoint_names");
    r.max_names = names.at("max_names").count();
    r.names_capped = names.at("capped").boolean();
    r.targets_file = names.at("targets_file").boolean();
  }
  if (!root.has("endpoints")) return;
  const Field list = root.at("endpoints");
  if (!list.value().is_array()) list.fail("expected an array");
  for (std::size_t i = 0; i < list.value().size(); ++i) {
    const Field item(list.value()[i], fmt::format("{}[{}]", list.path(), i));
    EndpointReport& e = r.endpoints.emplace_back();
    e.name = item.at("name").string();
    for (const auto& f : stats::NameCounts::kFields) e.counts.*f.member = item.at(f.name).count();
    if (item.has("body_bytes")) e.counts.body_bytes = item.at("body_bytes").count();  // absent from older reports
    const Field errors = item.at("errors");
    // A class newer than the report is absent: none of it.
    for (const auto& f : stats::ErrorCounts::kFields) {
      if (errors.has(f.name)) e.counts.errors.*f.member = errors.at(f.name).count();
    }
    if (e.counts.errors.status > e.counts.responses) errors.at("status").fail("more status errors than responses");
    if (item.has("status_errors")) read_status_errors(item.at("status_errors"), e.counts);
    read_summary(item.at("latency"), e.latency, &e.latency_censored);
    if (item.has("ttfb")) read_summary(item.at("ttfb"), e.ttfb, nullptr);  // absent from older reports
  }
}

// scenario (only from --scenario runs). Reports from before `pacer merge` merged
// scenarios carry no task histograms: their scenario section is not read (the
// merge has none, as it had then), rather than merged with durations missing.
void read_scenario(const Field& root, RunReport& r) {
  if (!root.has("scenario") || root.at("scenario").is_null()) return;
  const Field s = root.at("scenario");
  const Field tasks = s.at("tasks");
  if (!tasks.value().is_array()) tasks.fail("expected an array");
  for (const json& task : tasks.value()) {
    if (!task.is_object() || !task.contains("duration_histogram")) return;
  }
  scenario::ScenarioStats& out = r.scenario;
  out.active = true;
  out.open_model = s.at("open_model").boolean();
  out.user_limit = s.at("user_limit").count();
  out.users_started = s.at("users_started").count();
  if (s.has("types")) {  // absent from older reports
    const Field types = s.at("types");
    if (!types.value().is_array()) types.fail("expected an array");
    for (std::size_t i = 0; i < types.value().size(); ++i) {
      const Field item(types.value()[i], fmt::format("{}[{}]", types.path(), i));
      out.types.push_back(scenario::TypeRow{item.at("name").string(), item.at("users_started").count()});
    }
  }
  const Field errors = s.at("errors");
  out.check = errors.at("check").count();
  out.script = errors.at("script").count();
  out.check_on_errors = errors.at("check_on_errors").count();
  if (out.check_on_errors > out.check) errors.at("check_on_errors").fail("more than the check errors");
  if (s.has("totals")) {  // newer reports: pacer.totals
    const Field totals = s.at("totals");
    if (!totals.value().is_object()) totals.fail("expected an object");
    for (const auto& [key, value] : totals.value().items()) out.add_total(key, Field(value, totals.path() + "." + key).number());
  }
  for (std::size_t i = 0; i < tasks.value().size(); ++i) {
    const Field item(tasks.value()[i], fmt::format("{}[{}]", tasks.path(), i));
    scenario::TaskRow& row = out.tasks.emplace_back(scenario::TaskRow{item.at("name").string()});
    row.count = item.at("count").count();
    row.failures = item.at("failures").count();
    read_histogram(item.at("duration_histogram"), row.duration);
    if (row.duration.total_count() != static_cast<std::int64_t>(row.count)) {
      item.at("duration_histogram").fail("holds a different number of tasks than count");
    }
  }
  const Field names = s.at("names");
  if (!names.value().is_array()) names.fail("expected an array");
  for (std::size_t i = 0; i < names.value().size(); ++i) {
    const Field item(names.value()[i], fmt::format("{}[{}]", names.path(), i));
    scenario::NameRow& row = out.names[out.name_index(item.at("name").string())];
    row.requests += item.at("requests").count();
    row.failed += item.at("failed").count();
    row.checks += item.at("checks").count();
    if (item.has("check_on_errors")) row.check_on_errors += item.at("check_on_errors").count();  // absent before it
    if (row.check_on_errors > row.checks) item.at("check_on_errors").fail("more than the checks");
  }
  const Field messages = s.at("first_messages");
  if (!messages.value().is_array()) messages.fail("expected an array");
  for (std::size_t i = 0; i < messages.value().size(); ++i) {
    const Field item(messages.value()[i], fmt::format("{}[{}]", messages.path(), i));
    const std::string error_class = item.at("class").string();
    if (error_class != "check" && error_class != "script") item.at("class").fail("expected \"check\" or \"script\"");
    out.note(error_class.c_str(), item.at("where").string(), item.at("text").string(), item.at("count").count());
  }
}

// The command line and the time series, both optional (report/series_reader.h
// reads each interval, its histograms decoded and checked).
void read_report_fields(const Field& root, RunReport& r) {
  if (root.has("command_line") && !root.at("command_line").is_null()) r.command_line = root.at("command_line").string();
  if (!root.has("timeseries")) return;
  const Field series = root.at("timeseries");
  if (!series.value().is_array()) series.fail("expected an array");
  std::vector<SeriesPoint> points;
  points.reserve(series.value().size());
  for (std::size_t i = 0; i < series.value().size(); ++i) {
    points.push_back(read_series_point(Field(series.value()[i], fmt::format("timeseries[{}]", i))));
  }
  r.timeseries = std::move(points);
}

std::vector<LoadChangeReport> read_load_changes(const Field& list) {
  if (!list.value().is_array()) list.fail(fmt::format("expected an array, got {}", list.value().type_name()));
  std::vector<LoadChangeReport> out;
  for (std::size_t i = 0; i < list.value().size(); ++i) {
    const Field c(list.value()[i], fmt::format("{}[{}]", list.path(), i));
    const auto users = [&](const char* key) {
      const std::uint64_t n = c.at(key).count();
      if (n > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) c.at(key).fail("too many users");
      return static_cast<int>(n);
    };
    LoadChangeReport change;
    change.at_s = c.at("at_s").number();
    // Older reports have users only; an open-model change has rates, the users null.
    if (!c.at("users_from").is_null()) {
      change.users_from = users("users_from");
      change.users_to = users("users_to");
      change.spawn_rate_per_s = c.at("spawn_rate_per_s").number();
    }
    if (c.has("rate_to_per_s") && !c.at("rate_to_per_s").is_null()) {
      change.rate_from_per_s = c.at("rate_from_per_s").number();
      change.rate_to_per_s = c.at("rate_to_per_s").number();
    }
    change.ended = c.at("ended").boolean();
    if (c.has("reset")) change.reset = c.at("reset").boolean();  // newer reports
    change.by = c.at("by").string();
    if (const Field note = c.at("note"); !note.is_null()) change.note = note.string();
    if (c.has("users_by_type") && !c.at("users_by_type").is_null()) {  // newer reports
      const Field types = c.at("users_by_type");
      if (!types.value().is_object()) types.fail("expected an object");
      for (const auto& [name, value] : types.value().items()) {
        const std::uint64_t n = Field(value, types.path() + "." + name).count();
        if (n > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) types.fail("too many users");
        change.users_by_type.emplace_back(name, static_cast<int>(n));
      }
    }
    out.push_back(std::move(change));
  }
  return out;
}

RunReport read_report(const json& doc) {
  const Field root(doc, "");
  if (!doc.is_object()) root.fail(fmt::format("expected a JSON object, got {}", doc.type_name()));
  if (root.at("schema").value() != "pacer-report") root.at("schema").fail("not a pacer report (expected \"pacer-report\")");
  const Field version = root.at("schema_version");
  if (!version.value().is_number_unsigned() || version.value() < kOldestReadSchemaVersion ||
      version.value() > kJsonSchemaVersion) {
    version.fail(fmt::format("version {} is not one this pacer reads ({} to {})", version.value().dump(),
                             kOldestReadSchemaVersion, kJsonSchemaVersion));
  }
  RunReport r;
  read_config(root.at("config"), r);
  r.start_unix_ns = read_utc_time(root.at("start_time"), 3);
  r.measured_ns = root.at("duration_s").seconds_ns();
  r.interrupted = root.at("interrupted").boolean();
  read_counts(root, r.counters);
  if (root.has("connections_ramp_s") && !root.at("connections_ramp_s").is_null()) {  // absent from older reports
    r.connections_ramp_ns = root.at("connections_ramp_s").seconds_ns();
  }
  read_first_response(root, r);
  if (root.has("gates")) {  // the verdicts only: --slo and --max-error-rate are not in the JSON
    const Field failures = root.at("gates").at("failures");
    if (!failures.value().is_array()) failures.fail("expected an array");
    std::vector<std::string>& read = r.gate_failures_read.emplace();
    for (std::size_t i = 0; i < failures.value().size(); ++i) {
      read.push_back(Field(failures.value()[i], fmt::format("{}[{}]", failures.path(), i)).string());
    }
  }
  if (const Field counts = root.at("counts"); counts.has("sent_while_draining")) {  // absent from older reports
    const Field drained = counts.at("sent_while_draining");
    if (!drained.is_null()) r.sent_while_draining = drained.count();
    if (r.sent_while_draining.value_or(0) > r.counters.requests_sent) drained.fail("more than requests_sent");
  }
  const Field target = root.at("rates").at("target_per_s");
  r.target_rate_per_s = target.is_null() ? 0 : target.number();

  read_summary(root.at("latency"), r.latency, &r.latency_censored);
  for (const auto& [key, histogram] : {std::pair{"service_time", &r.service}, std::pair{"queue_delay", &r.queue_delay}}) {
    if (const Field s = root.at(key); !s.is_null()) read_summary(s, *histogram, nullptr);
  }
  read_summary(root.at("connect_time"), r.connect, nullptr);
  read_summary(root.at("tls_handshake_time"), r.tls_handshake, nullptr);
  if (root.has("ttfb")) read_summary(root.at("ttfb"), r.ttfb, nullptr);  // absent from older reports
  if (root.has("tunnel_time")) read_summary(root.at("tunnel_time"), r.tunnel, nullptr);  // issue 33; absent before
  if (root.has("connection_path")) read_connection_path(root.at("connection_path"), r);
  if (root.has("req_per_s")) read_histogram(root.at("req_per_s").at("histogram"), r.rate_samples);
  const Field first_error = root.at("first_error");
  if (!first_error.is_null()) r.first_error = first_error.string();
  const Field tls_first_error = root.at("tls_first_error");
  if (!tls_first_error.is_null()) r.tls_first_error = tls_first_error.string();
  if (root.has("load_changes")) r.load_changes = read_load_changes(root.at("load_changes"));  // newer reports
  read_endpoints(root, r);
  read_scenario(root, r);
  read_report_fields(root, r);
  read_run_evidence(root, r.evidence);  // issue 28's client and server, as the writer writes them
  return r;
}

}  // namespace

Result<RunReport> read_json_report(std::string_view text, const std::string& source_name) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return bad_input(fmt::format("{}: not valid JSON: {}", source_name, e.what()));
  } catch (const std::exception& e) {  // std::bad_alloc: never a crash
    return bad_input(fmt::format("{}: unreadable report: {}", source_name, e.what()));
  }
  return read_json_report_document(doc, source_name);
}

Result<RunReport> read_json_report_document(const nlohmann::json& doc, const std::string& source_name) {
  try {
    return read_report(doc);
  } catch (const FieldError& e) {
    return bad_input(fmt::format("{}: {}: {}", source_name, e.path.empty() ? "(top level)" : e.path, e.reason));
  } catch (const std::exception& e) {  // nlohmann's type errors, std::bad_alloc: never a crash
    return bad_input(fmt::format("{}: unreadable report: {}", source_name, e.what()));
  }
}

Result<std::string> read_report_file_text(const std::string& path, std::uint64_t max_bytes) {
  const auto cannot_read = [&](int err) { return bad_input(fmt::format("cannot read '{}': {}", path, std::strerror(err))); };
  const auto too_large = [&](std::string_view size) {
    return bad_input(fmt::format("'{}' is {}, more than the report size cap ({}; --max-report-size): not a "
                                 "report pacer wrote, or raise the cap",
                                 path, size, format_byte_size(max_bytes)));
  };
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return cannot_read(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return cannot_read(errno);
  if (S_ISDIR(st.st_mode)) return cannot_read(EISDIR);
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return too_large(fmt::format("{} bytes", st.st_size));
  }
  ReadToEnd text = read_to_end(fd.get(), max_bytes);
  if (text.err != 0) return cannot_read(text.err);
  if (text.past_cap) return too_large("larger than that");
  return std::move(text.bytes);
}

Result<RunReport> read_json_report_file(const std::string& path, std::uint64_t max_bytes) {
  auto text = read_report_file_text(path, max_bytes);
  if (!text) return text.error();
  return read_json_report(*text, path);
}

}  // namespace pacer::report
