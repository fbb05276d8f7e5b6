// Shard reports -> one report; see the header. The per-shard settings are compared
// as (name, text) pairs so a refusal can show both values.
#include "report/merge.h"

#include "report/ab_fields.h"
#include "report/endpoints.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include <fmt/format.h>

#include "report/timeseries_merge.h"

namespace pacer::report {
namespace {

struct Setting {
  const char* name;  // as in the JSON report's "config"
  std::string value;
};

std::string seconds_text(TimeNs ns) { return fmt::format("{}", static_cast<double>(ns) / 1e9); }

// What every shard of one run has in common (--shard splits connections, rate
// and -n, so those are left out; the rates compared here are each shard's own).
std::vector<Setting> per_shard_settings(const RunReport& r) {
  std::string tasks;
  for (const scenario::TaskRow& t : r.scenario.tasks) tasks += fmt::format("{}{}", tasks.empty() ? "" : ", ", t.name);
  std::string stages;
  for (const RateStage& s : r.stages) {
    stages += fmt::format("{}{}s:{}", stages.empty() ? "" : ",", seconds_text(s.duration_ns), s.target_rate_per_s);
  }
  return {
      {"url", r.url},
      {"method", r.method},
      {"load_model", load_model_name(r.load_model)},
      {"timeout_s", seconds_text(r.timeout_ns)},
      {"keep_alive", r.keep_alive ? "true" : "false"},
      {"protocol", r.protocol},
      {"requests_per_connection", fmt::format("{}", r.requests_per_connection)},
      {"duration_s", r.duration_ns > 0 ? seconds_text(r.duration_ns) : "none"},
      {"rate_per_s", fmt::format("{}", r.rate_per_s)},
      {"rate_end_per_s", fmt::format("{}", r.rate_end_per_s)},
      {"stages", stages.empty() ? "none" : stages},
      {"arrival", r.load_model == LoadModel::kClosed ? "none" : r.poisson ? "poisson" : "uniform"},
      {"shard.count", fmt::format("{}", r.shard_count)},
      {"shard.whole_test.connections", r.test_connections > 0 ? fmt::format("{}", r.test_connections) : "unknown"},
      {"shard.whole_test.requests", r.test_request_count ? fmt::format("{}", *r.test_request_count) : "none"},
      {"scenario.tasks", r.scenario.active ? tasks : "none (no scenario, or a report from before pacer merged them)"},
  };
}

Status check_same_settings(const RunReport& first, const RunReport& other, const std::string& first_name,
                           const std::string& other_name) {
  const std::vector<Setting> a = per_shard_settings(first);
  const std::vector<Setting> b = per_shard_settings(other);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].value == b[i].value) continue;
    return bad_input(fmt::format("{} and {} differ in {} ('{}' vs '{}'): they are not shards of one run "
                                 "(--force merges them anyway)",
                                 first_name, other_name, a[i].name, a[i].value, b[i].value));
  }
  return Ok{};
}

// The same shard twice (a file given twice, or two runs with one --shard) would
// count its requests twice.
Status check_distinct_shards(const std::vector<RunReport>& shards, const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < shards.size(); ++i) {
    for (std::size_t j = i + 1; j < shards.size(); ++j) {
      if (shards[i].shard_count == 1 || shards[i].shard_index != shards[j].shard_index) continue;
      return bad_input(fmt::format("{} and {} are both shard {} of {} (--force merges them anyway)", names[i], names[j],
                                   shards[i].shard_index, shards[i].shard_count));
    }
  }
  return Ok{};
}

Status merge_histogram(stats::Histogram& into, const stats::Histogram& from, const char* what,
                       const std::string& name) {
  switch (into.merge_checked(from)) {
    case stats::Histogram::MergeOutcome::kMerged: return Ok{};
    case stats::Histogram::MergeOutcome::kLayoutDiffers:
      return bad_input(fmt::format("{}: the {} histogram's layout differs from the first report's", name, what));
    case stats::Histogram::MergeOutcome::kCountOverflows: break;
  }
  return bad_input(fmt::format("{}: {} histogram: the merged count would pass 2^63 - 1", name, what));
}

Status overflow(const std::string& name, const std::string& field) {
  return bad_input(fmt::format("{}: {}: the merged count would pass 2^64 - 1; these cannot be one run's counts",
                               name, field));
}

// The configuration's sums (threads, connections, -n), checked.
Status add_config(RunReport& merged, const RunReport& shard, const std::string& name) {
  if (__builtin_add_overflow(merged.threads, shard.threads, &merged.threads)) return overflow(name, "config.threads");
  if (__builtin_add_overflow(merged.connections, shard.connections, &merged.connections)) {
    return overflow(name, "config.connections");
  }
  if (merged.request_count && shard.request_count) {
    if (__builtin_add_overflow(*merged.request_count, *shard.request_count, &*merged.request_count)) {
      return overflow(name, "config.requests");
    }
  } else {
    merged.request_count.reset();
  }
  return Ok{};
}

// A shard's scenario figures (tasks by index, names by name), checked as the
// counters are: a sum past 2^64 - 1, or a task histogram that would overflow, is
// refused instead of wrapped or left out.
Status add_scenario(scenario::ScenarioStats& merged, const scenario::ScenarioStats& shard, const std::string& name) {
  if (!shard.active) return Ok{};
  const auto fits = [](std::uint64_t a, std::uint64_t b) { return a <= UINT64_MAX - b; };
  if (!fits(merged.check, shard.check) || !fits(merged.script, shard.script) ||
      !fits(merged.check_on_errors, shard.check_on_errors) || !fits(merged.users_started, shard.users_started) ||
      !fits(merged.user_limit, shard.user_limit)) {
    return overflow(name, "scenario.errors");
  }
  for (std::size_t i = 0; i < shard.tasks.size() && i < merged.tasks.size(); ++i) {
    const scenario::TaskRow &a = merged.tasks[i], &b = shard.tasks[i];
    // Both histograms have pacer's latency layout (the reader makes sure), so only
    // a total past 2^63 - 1 could stop their merge (no bucket holds more).
    const bool durations_fit = a.duration.total_count() <= INT64_MAX - b.duration.total_count();
    if (!fits(a.count, b.count) || !fits(a.failures, b.failures) || !durations_fit) {
      return overflow(name, fmt::format("scenario.tasks[{}]", i));
    }
  }
  for (std::size_t i = 0; i < shard.types.size() && i < merged.types.size(); ++i) {
    if (!fits(merged.types[i].users_started, shard.types[i].users_started)) {
      return overflow(name, fmt::format("scenario.types[{}]", i));
    }
  }
  for (const scenario::NameRow& row : shard.names) {
    if (row.requests == 0 && row.checks == 0) continue;  // as ScenarioStats::merge: an id never used
    const scenario::NameRow& mine = merged.names[merged.name_index(row.name)];
    if (!fits(mine.requests, row.requests) || !fits(mine.failed, row.failed) || !fits(mine.checks, row.checks) ||
        !fits(mine.check_on_errors, row.check_on_errors)) {
      return overflow(name, fmt::format("scenario.names ({})", row.name));
    }
  }
  merged.merge(shard);
  return Ok{};
}

// Adds one shard's measurements (not its configuration) to `merged`.
Status add_shard(RunReport& merged, const RunReport& shard, const std::string& name) {
  if (Status s = add_config(merged, shard, name); !s) return s;
  merged.target_rate_per_s += shard.target_rate_per_s;
  if (shard.start_unix_ns != 0 && (merged.start_unix_ns == 0 || shard.start_unix_ns < merged.start_unix_ns)) {
    merged.start_unix_ns = shard.start_unix_ns;
  }
  merged.measured_ns = std::max(merged.measured_ns, shard.measured_ns);
  merged.interrupted = merged.interrupted || shard.interrupted;
  if (merged.first_error.empty()) merged.first_error = shard.first_error;
  if (merged.tls_first_error.empty()) merged.tls_first_error = shard.tls_first_error;
  merge_first_response(merged, shard);  // ab's fields: the first shard's, and whether the others' differ
  // Every shard follows the same shape (or web view) in whole-test counts: one's changes are the test's.
  if (merged.load_changes.empty()) merged.load_changes = shard.load_changes;
  if (const std::string field = merged.counters.merge_checked(shard.counters); !field.empty()) {
    return overflow(name, field);
  }
  // Known for the merge only when known for every shard (each is at most its requests_sent, which fit).
  if (shard.connections_ramp_ns) {  // the shard still opening the longest
    merged.connections_ramp_ns = std::max(merged.connections_ramp_ns.value_or(0), *shard.connections_ramp_ns);
  }
  merged.sent_while_draining = merged.sent_while_draining && shard.sent_while_draining
                                   ? std::optional(*merged.sent_while_draining + *shard.sent_while_draining)
                                   : std::nullopt;
  const std::pair<stats::Histogram*, const stats::Histogram*> histograms[] = {
      {&merged.latency, &shard.latency},         {&merged.latency_censored, &shard.latency_censored},
      {&merged.connect, &shard.connect},         {&merged.service, &shard.service},
      {&merged.queue_delay, &shard.queue_delay}, {&merged.rate_samples, &shard.rate_samples},
      {&merged.tls_handshake, &shard.tls_handshake},
      {&merged.ttfb, &shard.ttfb},
      {&merged.tunnel, &shard.tunnel},
  };
  const char* const what[] = {"latency",     "censored latency", "connect",        "service time",
                              "queue delay", "Req/Sec",          "TLS handshake", "time to first byte",
                              "proxy tunnel"};
  for (std::size_t i = 0; i < std::size(histograms); ++i) {
    if (Status s = merge_histogram(*histograms[i].first, *histograms[i].second, what[i], name); !s) return s;
  }
  // Per request name (targets): matched by name, summed exactly.
  if (Status s = merge_endpoints(merged, shard, name); !s) return s;
  return add_scenario(merged.scenario, shard.scenario, name);
}

// The shard indexes of the test (shards[0]'s count) that no report holds.
std::vector<int> missing_shards(const std::vector<RunReport>& shards) {
  const int count = shards[0].shard_count;
  std::vector<bool> present(static_cast<std::size_t>(count), false);
  for (const RunReport& r : shards) {
    if (r.shard_count == count) present[static_cast<std::size_t>(r.shard_index)] = true;
  }
  std::vector<int> missing;
  for (int i = 0; i < count; ++i) {
    if (!present[static_cast<std::size_t>(i)]) missing.push_back(i);
  }
  return missing;
}

std::string index_list(const std::vector<int>& indexes) {
  std::string out;
  for (int i : indexes) out += fmt::format("{}{}", out.empty() ? "" : ", ", i);
  return out;
}

// How far apart the shards started (reports with no start time are left out).
void note_start_spread(MergeInfo& info, const std::vector<RunReport>& shards, const std::vector<std::string>& names) {
  std::size_t first = shards.size();
  std::size_t last = shards.size();
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (shards[i].start_unix_ns == 0) continue;
    if (first == shards.size() || shards[i].start_unix_ns < shards[first].start_unix_ns) first = i;
    if (last == shards.size() || shards[i].start_unix_ns > shards[last].start_unix_ns) last = i;
  }
  if (first == shards.size()) return;
  info.start_spread_ns = shards[last].start_unix_ns - shards[first].start_unix_ns;
  info.earliest_start_file = names[first];
  info.latest_start_file = names[last];
}

}  // namespace

Result<RunReport> merge_reports(const std::vector<RunReport>& shards, const std::vector<std::string>& names,
                                const MergeRules& rules) {
  if (shards.empty()) return bad_argument("merge: no reports to merge");
  std::vector<std::string> labels = names;
  for (std::size_t i = labels.size(); i < shards.size(); ++i) labels.push_back(fmt::format("report {}", i + 1));
  if (!rules.force) {
    for (std::size_t i = 1; i < shards.size(); ++i) {
      if (Status same = check_same_settings(shards[0], shards[i], labels[0], labels[i]); !same) return same.error();
    }
    if (Status distinct = check_distinct_shards(shards, labels); !distinct) return distinct.error();
  }
  MergeInfo info;
  info.files = static_cast<int>(shards.size());
  info.start_tolerance_ns = rules.start_tolerance_ns;
  info.missing_shards = missing_shards(shards);
  if (!info.missing_shards.empty() && !rules.allow_missing) {
    const int count = shards[0].shard_count;
    return bad_input(fmt::format("merge: the test has {} shards and shard{} {} {} missing (--allow-missing "
                                 "merges the {} present, judged against their share of the test)",
                                 count, info.missing_shards.size() == 1 ? "" : "s", index_list(info.missing_shards),
                                 info.missing_shards.size() == 1 ? "is" : "are",
                                 count - static_cast<int>(info.missing_shards.size())));
  }
  note_start_spread(info, shards, labels);
  RunReport merged = shards[0];  // the configuration, and the first shard's measurements
  merged.gate_failures_read.reset();  // a shard's verdicts are on its own figures
  for (std::size_t i = 1; i < shards.size(); ++i) {
    if (Status added = add_shard(merged, shards[i], labels[i]); !added) return added.error();
  }
  if (info.missing_shards.empty()) {
    // The merged report stands for the whole run, not for one shard of it.
    merged.shard_index = 0;
    merged.shard_count = 1;
    merged.shards_covered = 1;
  } else {
    merged.shards_covered = shards[0].shard_count - static_cast<int>(info.missing_shards.size());
  }
  merged.merge = std::move(info);
  // The time series, interval by interval, when every shard kept one.
  auto series = merge_timeseries(shards, labels);
  if (!series) return series.error();
  merged.timeseries = std::move(*series);
  return merged;
}

}  // namespace pacer::report
