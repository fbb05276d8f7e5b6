// Shard reports -> one report; see the header. The per-shard settings are compared
// as (name, text) pairs so a refusal can show both values.
#include "report/merge.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

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
      return bad_input(fmt::format("{} and {} are both shard {}/{} (--force merges them anyway)", names[i], names[j],
                                   shards[i].shard_index, shards[i].shard_count));
    }
  }
  return Ok{};
}

Status merge_histogram(stats::Histogram& into, const stats::Histogram& from, const char* what,
                       const std::string& name) {
  if (into.merge(from)) return Ok{};
  return bad_input(fmt::format("{}: the {} histogram's layout differs from the first report's", name, what));
}

// Adds one shard's measurements (not its configuration) to `merged`.
Status add_shard(RunReport& merged, const RunReport& shard, const std::string& name) {
  merged.threads += shard.threads;
  merged.connections += shard.connections;
  if (merged.request_count && shard.request_count) {
    *merged.request_count += *shard.request_count;
  } else {
    merged.request_count.reset();
  }
  merged.target_rate_per_s += shard.target_rate_per_s;
  if (shard.start_unix_ns != 0 && (merged.start_unix_ns == 0 || shard.start_unix_ns < merged.start_unix_ns)) {
    merged.start_unix_ns = shard.start_unix_ns;
  }
  merged.measured_ns = std::max(merged.measured_ns, shard.measured_ns);
  merged.interrupted = merged.interrupted || shard.interrupted;
  if (merged.first_error.empty()) merged.first_error = shard.first_error;
  if (merged.tls_first_error.empty()) merged.tls_first_error = shard.tls_first_error;
  merged.counters.merge(shard.counters);
  const std::pair<stats::Histogram*, const stats::Histogram*> histograms[] = {
      {&merged.latency, &shard.latency},         {&merged.latency_censored, &shard.latency_censored},
      {&merged.connect, &shard.connect},         {&merged.service, &shard.service},
      {&merged.queue_delay, &shard.queue_delay}, {&merged.rate_samples, &shard.rate_samples},
      {&merged.tls_handshake, &shard.tls_handshake},
  };
  const char* const what[] = {"latency",     "censored latency", "connect", "service time",
                              "queue delay", "Req/Sec",          "TLS handshake"};
  for (std::size_t i = 0; i < std::size(histograms); ++i) {
    if (Status s = merge_histogram(*histograms[i].first, *histograms[i].second, what[i], name); !s) return s;
  }
  return Ok{};
}

}  // namespace

Result<RunReport> merge_reports(const std::vector<RunReport>& shards, const std::vector<std::string>& names,
                                bool force) {
  if (shards.empty()) return bad_argument("merge: no reports to merge");
  std::vector<std::string> labels = names;
  for (std::size_t i = labels.size(); i < shards.size(); ++i) labels.push_back(fmt::format("report {}", i + 1));
  if (!force) {
    for (std::size_t i = 1; i < shards.size(); ++i) {
      if (Status same = check_same_settings(shards[0], shards[i], labels[0], labels[i]); !same) return same.error();
    }
    if (Status distinct = check_distinct_shards(shards, labels); !distinct) return distinct.error();
  }
  RunReport merged = shards[0];  // the configuration, and the first shard's measurements
  for (std::size_t i = 1; i < shards.size(); ++i) {
    if (Status added = add_shard(merged, shards[i], labels[i]); !added) return added.error();
  }
  // The merged report stands for the whole run, not for one shard of it.
  merged.shard_index = 0;
  merged.shard_count = 1;
  return merged;
}

}  // namespace pacer::report
