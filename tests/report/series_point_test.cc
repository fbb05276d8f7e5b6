// The kept time series' points (src/report/series_point.h): made from an
// interval, rendered (series_json.h) as the NDJSON line and the JSON report's
// entries, and read back by the report reader into the same point.
#include "report/series_point.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/interval_report.h"
#include "report/json.h"
#include "report/json_reader.h"
#include "stats/hdr_codec.h"
#include "report/printable_json.h"
#include "report/series_json.h"

namespace pacer::report {
namespace {

using json = nlohmann::json;

std::vector<std::pair<int, std::int64_t>> counts(const stats::Histogram& h) {
  std::vector<std::pair<int, std::int64_t>> out;
  h.for_each_count([&](int i, std::int64_t n) { out.emplace_back(i, n); });
  return out;
}

// The counts, exactly; not min() and max(): V2 keeps no exact extremes, a decoded
// histogram's are its buckets' bounds.
void expect_same_histogram(const stats::Histogram& a, const stats::Histogram& b, const std::string& what) {
  EXPECT_EQ(a.total_count(), b.total_count()) << what;
  EXPECT_EQ(counts(a), counts(b)) << what;
  EXPECT_EQ(a.lowest_equivalent(a.min()), b.lowest_equivalent(b.min())) << what;
  EXPECT_EQ(a.highest_equivalent(a.max()), b.highest_equivalent(b.max())) << what;
}

stats::Histogram latency_of(std::initializer_list<std::pair<std::int64_t, std::int64_t>> values) {
  stats::Histogram h = stats::Histogram::for_latency_ns();
  for (const auto& [ns, n] : values) h.record_n(ns, n);
  return h;
}
stats::PackedHistogram packed_of(std::initializer_list<std::pair<std::int64_t, std::int64_t>> values) {
  return stats::PackedHistogram(latency_of(values));
}

evidence::IntervalEvidence sampled() {
  evidence::IntervalEvidence e;
  evidence::ProcessSample p;
  p.cpu_ns = 812'345'678;
  p.cpus_allowed = 4;
  p.cpu_share = 0.203086;
  p.rss_bytes = 48'000'000;
  p.open_fds = 130;
  p.fd_limit = 1024;
  p.port_range = 28'232;
  p.ports = {{"127.0.0.1", "127.0.0.1:8080", 120}, {"10.0.0.2", "10.0.0.9:443", 7}};
  p.ports_counted = true;
  e.process = p;
  evidence::PidSample ok;
  ok.pid = 4242;
  ok.cpu_user_ns = 300'000'000;
  ok.cpu_system_ns = 120'000'000;
  ok.rss_bytes = 1 << 20;
  ok.threads = 9;
  ok.open_fds = 77;
  ok.voluntary_switches = 1000;
  ok.involuntary_switches = 12;
  evidence::PidSample gone;
  gone.pid = 4243;
  gone.error = "no such process";
  e.pids = {ok, gone};
  evidence::ScrapeSample scrape;
  scrape.url = "http://127.0.0.1:9100/metrics";
  scrape.took_ns = 3'500'000;
  scrape.values = {{"requests_total{code=\"200\"}", true, 1234.5}, {"temperature", false, -3.25}, {"new_total", true, {}}};
  evidence::ScrapeSample failed;
  failed.url = "http://127.0.0.1:9101/metrics";
  failed.error = "connection refused";
  failed.took_ns = 1'000'000;
  e.scrapes = {scrape, failed};
  e.verdicts = {"the client: worker 1 was busy 97 % of the interval"};
  return e;
}

// Every figure set; endpoints in name order, as the reader gives them back.
SeriesPoint full_point() {
  SeriesPoint p;
  p.index = 7;
  p.start_ns = 7 * kNsPerS + 123;
  p.start_unix_ns = 1'796'134'801'123'456'000;  // whole microseconds: what start_time keeps
  p.duration_ns = kNsPerS + 5;
  p.sent = 1001;
  p.completed = 990;
  p.target_rate_per_s = 1234.5;
  p.stats_reset = true;
  p.errors.timeout = 3;
  p.errors.connect = 2;
  p.errors.redirect = 1;
  p.errors.decode = 4;
  p.errors.status = 6;
  p.scenario_errors = stats::ScenarioErrorCounts{5, 1};
  p.latency = packed_of({{150'000, 900}, {4'000'000, 90}, {2'000'000'000, 3}});
  p.open_connections = 10;
  p.backlog = 2;
  p.schedule_lag_ns = 1'500'000;
  p.in_flight = 12;
  p.oldest_in_flight_ns = 1'250'000'000;
  p.in_flight_over_interval = 3;
  p.users = 17;
  p.bytes_read = 123'456;
  p.bytes_written = 65'432;
  p.status_codes = {{200, 980}, {404, 4}, {503, 6}};
  p.endpoints.push_back({"/a", 600, 5, 2, packed_of({{150'000, 600}, {2'000'000'000, 3}})});
  p.endpoints.push_back({"/b", 390, 4, 1, packed_of({{4'000'000, 390}})});
  p.endpoints.push_back({"/c", 0, 2, 2, std::nullopt});
  // Worker 0 waited (busy from its wait); worker 1's CPU is its busy share.
  p.workers = {{kNsPerS + 5, 400'000'000, 350'000'000, 7, 2'000'000}, {kNsPerS + 5, 800'000'000, 900'000'000, 40, 0}};
  p.evidence = sampled();
  p.shard_index = 1;
  p.shard_count = 3;
  return p;
}

RunReport report_with(std::vector<SeriesPoint> points) {
  RunReport r;
  r.url = "http://127.0.0.1:1/";
  r.threads = 1;
  r.connections = 2;
  r.timeout_ns = kNsPerS;
  r.start_unix_ns = 1'796'134'794'000'000'000;
  r.measured_ns = 8 * kNsPerS;
  r.shard_index = 1;
  r.shard_count = 3;
  r.timeseries = std::move(points);
  return r;
}

SeriesPoint round_trip(const SeriesPoint& p) {
  auto back = read_json_report(render_json(report_with({p})), "r.json");
  EXPECT_TRUE(back) << back.error().message;
  if (!back || !back->timeseries || back->timeseries->size() != 1) {
    ADD_FAILURE() << "no point read back";
    return {};
  }
  return std::move(back->timeseries->front());
}

void expect_same_evidence(const evidence::IntervalEvidence& a, const evidence::IntervalEvidence& b) {
  ASSERT_EQ(a.process.has_value(), b.process.has_value());
  if (a.process) {
    EXPECT_EQ(a.process->cpu_ns, b.process->cpu_ns);
    EXPECT_EQ(a.process->cpus_allowed, b.process->cpus_allowed);
    EXPECT_EQ(a.process->cpu_share, b.process->cpu_share);
    EXPECT_EQ(a.process->rss_bytes, b.process->rss_bytes);
    EXPECT_EQ(a.process->open_fds, b.process->open_fds);
    EXPECT_EQ(a.process->fd_limit, b.process->fd_limit);
    EXPECT_EQ(a.process->port_range, b.process->port_range);
    EXPECT_EQ(a.process->ports_counted, b.process->ports_counted);
    ASSERT_EQ(a.process->ports.size(), b.process->ports.size());
    for (std::size_t i = 0; i < a.process->ports.size(); ++i) {
      EXPECT_EQ(a.process->ports[i].local, b.process->ports[i].local);
      EXPECT_EQ(a.process->ports[i].remote, b.process->ports[i].remote);
      EXPECT_EQ(a.process->ports[i].in_use, b.process->ports[i].in_use);
    }
  }
  ASSERT_EQ(a.pids.size(), b.pids.size());
  for (std::size_t i = 0; i < a.pids.size(); ++i) {
    const evidence::PidSample& x = a.pids[i];
    const evidence::PidSample& y = b.pids[i];
    EXPECT_EQ(x.pid, y.pid);
    EXPECT_EQ(x.error, y.error);
    EXPECT_EQ(x.cpu_user_ns, y.cpu_user_ns);
    EXPECT_EQ(x.cpu_system_ns, y.cpu_system_ns);
    EXPECT_EQ(x.rss_bytes, y.rss_bytes);
    EXPECT_EQ(x.threads, y.threads);
    EXPECT_EQ(x.open_fds, y.open_fds);
    EXPECT_EQ(x.voluntary_switches, y.voluntary_switches);
    EXPECT_EQ(x.involuntary_switches, y.involuntary_switches);
  }
  ASSERT_EQ(a.scrapes.size(), b.scrapes.size());
  for (std::size_t i = 0; i < a.scrapes.size(); ++i) {
    EXPECT_EQ(a.scrapes[i].url, b.scrapes[i].url);
    EXPECT_EQ(a.scrapes[i].error, b.scrapes[i].error);
    EXPECT_EQ(a.scrapes[i].took_ns, b.scrapes[i].took_ns);
    ASSERT_EQ(a.scrapes[i].values.size(), b.scrapes[i].values.size());
    for (std::size_t v = 0; v < a.scrapes[i].values.size(); ++v) {
      EXPECT_EQ(a.scrapes[i].values[v].series, b.scrapes[i].values[v].series);
      EXPECT_EQ(a.scrapes[i].values[v].is_rate, b.scrapes[i].values[v].is_rate);
      EXPECT_EQ(a.scrapes[i].values[v].value, b.scrapes[i].values[v].value);
    }
  }
  EXPECT_EQ(a.verdicts, b.verdicts);
}

void expect_same_point(const SeriesPoint& a, const SeriesPoint& b) {
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.start_unix_ns, b.start_unix_ns);
  EXPECT_EQ(a.duration_ns, b.duration_ns);
  EXPECT_EQ(a.drain_ns, b.drain_ns);
  EXPECT_EQ(a.sent, b.sent);
  EXPECT_EQ(a.completed, b.completed);
  EXPECT_EQ(a.target_rate_per_s, b.target_rate_per_s);
  EXPECT_EQ(a.stats_reset, b.stats_reset);
  for (const auto& f : stats::ErrorCounts::kFields) EXPECT_EQ(a.errors.*f.member, b.errors.*f.member) << f.name;
  ASSERT_EQ(a.scenario_errors.has_value(), b.scenario_errors.has_value());
  if (a.scenario_errors) {
    EXPECT_EQ(a.scenario_errors->check, b.scenario_errors->check);
    EXPECT_EQ(a.scenario_errors->script, b.scenario_errors->script);
  }
  expect_same_histogram(a.latency.unpack(), b.latency.unpack(), "latency");
  EXPECT_EQ(a.latency.max(), b.latency.max());
  EXPECT_EQ(a.open_connections, b.open_connections);
  EXPECT_EQ(a.backlog, b.backlog);
  EXPECT_EQ(a.schedule_lag_ns, b.schedule_lag_ns);
  EXPECT_EQ(a.in_flight, b.in_flight);
  EXPECT_EQ(a.oldest_in_flight_ns, b.oldest_in_flight_ns);
  EXPECT_EQ(a.in_flight_over_interval, b.in_flight_over_interval);
  EXPECT_EQ(a.users, b.users);
  EXPECT_EQ(a.bytes_read, b.bytes_read);
  EXPECT_EQ(a.bytes_written, b.bytes_written);
  EXPECT_EQ(a.status_codes, b.status_codes);
  ASSERT_EQ(a.endpoints.size(), b.endpoints.size());
  for (std::size_t i = 0; i < a.endpoints.size(); ++i) {
    const SeriesEndpoint& x = a.endpoints[i];
    const SeriesEndpoint& y = b.endpoints[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.completed, y.completed) << x.name;
    EXPECT_EQ(x.errors, y.errors) << x.name;
    EXPECT_EQ(x.failed, y.failed) << x.name;
    ASSERT_EQ(x.latency.has_value(), y.latency.has_value()) << x.name;
    if (x.latency) expect_same_histogram(x.latency->unpack(), y.latency->unpack(), x.name);
  }
  ASSERT_EQ(a.workers.size(), b.workers.size());
  for (std::size_t i = 0; i < a.workers.size(); ++i) {
    EXPECT_EQ(a.workers[i].cpu_ns, b.workers[i].cpu_ns);
    EXPECT_EQ(a.workers[i].runnable_ns, b.workers[i].runnable_ns);
    EXPECT_EQ(a.workers[i].involuntary_switches, b.workers[i].involuntary_switches);
    // Only the busy share is written, not the wall and waited times (series_reader.h).
    EXPECT_NEAR(a.workers[i].busy(), b.workers[i].busy(), 1e-9);
  }
  ASSERT_EQ(a.evidence.has_value(), b.evidence.has_value());
  if (a.evidence) expect_same_evidence(*a.evidence, *b.evidence);
  EXPECT_EQ(a.shard_index, b.shard_index);
  EXPECT_EQ(a.shard_count, b.shard_count);
}

TEST(SeriesPoint, ReadBackFromTheJsonReportEqualsItselfFieldByField) {
  const SeriesPoint p = full_point();
  const SeriesPoint back = round_trip(p);
  expect_same_point(p, back);
  // A worker whose wall was the interval's comes back whole.
  EXPECT_EQ(back.workers[0].wall_ns, p.workers[0].wall_ns);
  EXPECT_EQ(back.workers[0].waited_ns, p.workers[0].waited_ns);
  // And renders to the same object again: the summaries' max is exact again.
  EXPECT_EQ(series_point_json(back, true), series_point_json(p, true));
  EXPECT_EQ(series_point_json(back, true)["latency_ns"]["max"], p.latency.max());
}

TEST(SeriesPoint, TheClosedLoopTheDrainAndNoEvidenceReadBackToo) {
  SeriesPoint p = full_point();
  p.target_rate_per_s.reset();
  p.backlog = 0;  // written as null without a target
  p.schedule_lag_ns = 0;
  p.drain_ns = p.duration_ns;
  p.users.reset();
  p.scenario_errors.reset();
  p.stats_reset = false;
  p.evidence.reset();
  p.shard_count = 1;
  p.shard_index = 0;
  const SeriesPoint back = round_trip(p);
  expect_same_point(p, back);
  EXPECT_TRUE(is_drain(back));
  // Sampled with no worker (the workers not yet reporting): the evidence alone.
  p.workers.clear();
  p.evidence = evidence::IntervalEvidence{};
  expect_same_point(p, round_trip(p));
}

// Issue 43 (15): the drain's record lasts microseconds; a worker that never waited in
// it read busy 1.0 (the HTML report's client chart ended in a spike to 100 %), and
// the process's CPU share over it 50 %. A share over so short a window is null, and
// reads back as such.
TEST(SeriesPoint, ASharesOverTheDrainsInstantAreNullAndReadBackNull) {
  SeriesPoint p = full_point();
  p.duration_ns = p.drain_ns = 4'000;  // 4 us
  p.target_rate_per_s.reset();
  p.backlog = 0;
  p.schedule_lag_ns = 0;
  p.workers = {{4'000, 0, 3'000, 0, 0}};  // never waited: busy() is 1
  ASSERT_DOUBLE_EQ(p.workers[0].busy(), 1.0);
  p.evidence->process->cpu_share.reset();  // the watch measured none over 4 us
  const auto j = series_point_json(p, false);
  EXPECT_TRUE(j["client"]["workers"][0]["busy"].is_null()) << j["client"];
  EXPECT_TRUE(j["client"]["cpu_share"].is_null()) << j["client"];
  EXPECT_EQ(j["client"]["workers"][0]["wall_s"], 4e-6);  // the window itself is still there
  const SeriesPoint back = round_trip(p);
  expect_same_point(p, back);
  EXPECT_FALSE(back.evidence->process->cpu_share);
  EXPECT_EQ(series_point_json(back, false), j);
  // An interval as long as kMinShareWindowNs has its shares.
  p.duration_ns = p.drain_ns = evidence::kMinShareWindowNs;
  p.workers = {{evidence::kMinShareWindowNs, 0, 3'000, 0, 0}};
  EXPECT_EQ(series_point_json(p, false)["client"]["workers"][0]["busy"], 1.0);
}

TEST(SeriesPoint, TheLineIsThePointsObjectOnOneLine) {
  const SeriesPoint p = full_point();
  const std::string line = render_series_ndjson(p, false);
  ASSERT_EQ(line.find('\n'), line.size() - 1);
  const auto j = nlohmann::ordered_json::parse(line);
  EXPECT_EQ(j, series_point_json(p, false));
  EXPECT_FALSE(j.contains("histogram"));
  EXPECT_FALSE(j["endpoints"]["/a"].contains("histogram"));
  EXPECT_EQ(j["endpoints"]["/a"]["latency_ns"]["count"], 603);
  EXPECT_EQ(j["shard"]["index"], 1);
  EXPECT_EQ(j["status_codes"]["404"], 4);
  EXPECT_EQ(j["errors"]["check"], 5);
}

// The JSON report once embedded each line's text re-parsed: its entries are the
// same bytes as that, hostile names (made printable) and all.
TEST(SeriesPoint, TheReportsEntryIsTheLineReparsedByteForByte) {
  SeriesPoint p = full_point();
  p.endpoints.push_back({"\xff\xfe/bin", 1, 0, 0, packed_of({{1'000, 1}})});
  p.endpoints.push_back({"\x1b[31m/red", 2, 0, 0, std::nullopt});
  p.evidence->verdicts.push_back("a \x01 control");
  p.target_rate_per_s = 1.0 / 3.0;
  nlohmann::ordered_json direct = series_point_json(p, true);
  nlohmann::ordered_json reparsed = nlohmann::ordered_json::parse(render_series_ndjson(p, true));
  EXPECT_EQ(dump_printable(direct, 2), dump_printable(reparsed, 2));
}

TEST(SeriesPoint, MadeFromAnIntervalOwnsCopiesOfWhatItPointsTo) {
  stats::Histogram latency = latency_of({{150'000, 10}});
  auto names = std::make_shared<stats::NameTable>(10);
  const stats::NameId a = names->intern("/a");
  const stats::NameId quiet = names->intern("/quiet");
  const stats::NameId b = names->intern("/b");
  std::vector<stats::NameIntervalCounts> by_name(names->size());
  by_name[a] = {7, 1, 1};
  by_name[b] = {3, 0, 0};
  stats::NameHistograms latency_by_name;
  latency_by_name.record_n(a, 150'000, 8);
  latency_by_name.record_n(b, 150'000, 2);
  evidence::IntervalEvidence sample = sampled();
  IntervalReport in;
  in.index = 2;
  in.duration_ns = kNsPerS;
  in.completed = 10;
  in.latency = &latency;
  in.names = by_name;
  in.latency_by_name = &latency_by_name;
  in.name_table = names;
  in.status_counts[200] = 9;
  in.status_counts[500] = 1;
  in.evidence = &sample;
  in.workers = {{kNsPerS, kNsPerS / 2, 1000, 1, 0}};
  SeriesPoint p = make_series_point(in, 2, 4);
  latency.record(1);  // the producer's storage moves on
  latency_by_name.reset();
  sample.verdicts.clear();
  EXPECT_EQ(p.latency.total_count(), 10);
  ASSERT_EQ(p.endpoints.size(), 2u);  // /quiet had nothing in the interval
  EXPECT_EQ(p.endpoints[0].name, "/a");
  EXPECT_EQ(p.endpoints[0].failed, 1u);
  ASSERT_TRUE(p.endpoints[0].latency);
  EXPECT_EQ(p.endpoints[0].latency->total_count(), 8);
  EXPECT_EQ(p.endpoints[1].name, "/b");
  EXPECT_EQ(p.status_codes, (std::vector<StatusCount>{{200, 9}, {500, 1}}));
  ASSERT_TRUE(p.evidence);
  EXPECT_EQ(p.evidence->verdicts.size(), 1u);
  EXPECT_EQ(p.shard_index, 2);
  EXPECT_EQ(p.shard_count, 4);
  (void)quiet;
  // The interval's line is its point's.
  EXPECT_EQ(render_interval_ndjson(in, true, 2, 4), render_series_ndjson(make_series_point(in, 2, 4), true));
}

TEST(SeriesPoint, APackedHistogramIsItsTextAndUnpacksExactly) {
  stats::Histogram reused = stats::Histogram::for_latency_ns();
  reused.record(100);
  reused.record(3'000'000'000);
  reused.reset();  // an interval ring's: chunks kept for every range it saw
  reused.record_n(150'001, 5);
  const stats::PackedHistogram packed(reused);
  EXPECT_EQ(packed.base64(), stats::encode_v2_base64(reused));
  EXPECT_LT(packed.base64().size(), 200u);  // not the chunks' kilobytes
  const stats::Histogram back = packed.unpack();
  expect_same_histogram(back, reused, "unpacked");
  EXPECT_EQ(back.min(), 150'001);  // exact, though V2 keeps buckets
  EXPECT_EQ(back.max(), 150'001);
  EXPECT_EQ(stats::PackedHistogram().unpack().total_count(), 0);
}

TEST(SeriesPoint, AnEntryOfAnOlderReportReadsWithItsRequiredFieldsOnly) {
  nlohmann::json doc = json::parse(render_json(report_with({full_point()})));
  json& entry = doc["timeseries"][0];
  for (const char* newer : {"drain_s", "drain", "in_flight", "oldest_in_flight_ns", "in_flight_over_interval", "users",
                            "bytes_read", "bytes_written", "status_codes", "endpoints", "client", "server", "shard",
                            "stats_reset", "target_rate_per_s", "backlog", "schedule_lag_ns", "open_connections"}) {
    entry.erase(newer);
  }
  auto back = read_json_report(doc.dump(), "old.json");
  ASSERT_TRUE(back) << back.error().message;
  const SeriesPoint& p = back->timeseries->front();
  EXPECT_EQ(p.completed, 990u);
  EXPECT_EQ(p.latency.total_count(), 993);
  EXPECT_FALSE(p.target_rate_per_s);
  EXPECT_TRUE(p.endpoints.empty());
  EXPECT_FALSE(p.evidence);
}

TEST(SeriesPoint, AMissingOrMistypedFieldIsRefusedNamingFileAndField) {
  const std::string text = render_json(report_with({full_point()}));
  const auto refusal = [&](const std::function<void(json&)>& edit) {
    json doc = json::parse(text);
    edit(doc["timeseries"][0]);
    auto back = read_json_report(doc.dump(), "s.json");
    EXPECT_FALSE(back);
    if (back) return std::string();
    EXPECT_EQ(back.error().kind, ErrorKind::kBadInput);
    return back.error().message;
  };
  EXPECT_EQ(refusal([](json& e) { e.erase("sent"); }), "s.json: timeseries[0].sent: missing");
  EXPECT_EQ(refusal([](json& e) { e["completed"] = -1; }),
            "s.json: timeseries[0].completed: expected a non-negative integer, got -1");
  EXPECT_EQ(refusal([](json& e) { e["start_time"] = "yesterday"; }),
            "s.json: timeseries[0].start_time: expected a UTC time like 2026-12-01T14:20:01.123456Z, got 'yesterday'");
  EXPECT_EQ(refusal([](json& e) { e["client"]["workers"][1]["busy"] = 1.5; }),
            "s.json: timeseries[0].client.workers[1].busy: 1.5 is above 1");
  EXPECT_EQ(refusal([](json& e) { e["server"]["metrics"][0]["series"][0]["kind"] = "histogram"; }),
            "s.json: timeseries[0].server.metrics[0].series[0].kind: expected \"rate_per_s\" or \"gauge\"");
  EXPECT_EQ(refusal([](json& e) { e["status_codes"]["2xx"] = 1; }),
            "s.json: timeseries[0].status_codes.2xx: not a status code");
  const std::string histogram = refusal([](json& e) { e["endpoints"]["/b"]["histogram"] = "HISTFAAAAAAAA"; });
  EXPECT_EQ(histogram.rfind("s.json: timeseries[0].endpoints[\"/b\"].histogram: ", 0), 0u) << histogram;
}

}  // namespace
}  // namespace pacer::report
