// Reading JSON reports back (src/report/json_reader.h) and merging shards
// (src/report/merge.h): round trips, exactness of merged percentiles, refusals.
#include "report/json_reader.h"
#include "report/merge.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <random>
#include <string>
#include <vector>

#include "report/json.h"
#include "stats/hdr_codec.h"

namespace pacer::report {
namespace {

RunReport closed_report() {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.method = "POST";
  r.threads = 2;
  r.connections = 10;
  r.duration_ns = 10 * kNsPerS;
  r.request_count = 5000;
  r.timeout_ns = 2 * kNsPerS;
  r.warmup_ns = 500 * kNsPerMs;
  r.keep_alive = false;
  r.record_timeouts = true;
  r.start_unix_ns = 1'796'000'000'123'000'000;
  r.measured_ns = 9'876'543'210;
  r.interrupted = true;
  r.first_error = "connect 127.0.0.1:8080: Connection refused";
  stats::Counters& c = r.counters;
  c.responses = 1000;
  c.requests_sent = 1003;
  c.bytes_read = 80'000;
  c.warmup_responses = 17;
  c.connects = 12;
  c.status_counts[200] = 990;
  c.status_counts[503] = 10;
  c.errors = {1, 2, 3, 4, 5, 6, 0, 0, 10};
  r.latency.record_n(250'000, 997);
  r.latency.record_n(2'000'500'000, 3);
  r.latency_censored.record_n(2'000'500'000, 3);
  r.connect.record_n(120'000, 10);
  r.rate_samples.record_n(4'900, 40);
  r.rate_samples.record_n(5'100, 60);
  return r;
}

RunReport open_report() {
  RunReport r = closed_report();
  r.load_model = LoadModel::kStages;
  r.stages = {RateStage{30 * kNsPerS, 100}, RateStage{kNsPerS / 2, 1000.5}};
  r.poisson = true;
  r.seed = 42;
  r.deadline_ns = 250 * kNsPerMs;
  r.target_rate_per_s = 512.25;
  r.counters.scheduled = 1500;
  r.counters.peak_backlog = 4;
  r.counters.errors.deadline = 7;
  r.counters.errors.backlog = 8;
  r.counters.errors.unsent = 9;
  r.service.record_n(200'000, 1000);
  r.queue_delay.record_n(50'000, 999);
  r.queue_delay.record(3'000'000'000);
  r.shard_index = 2;
  r.shard_count = 3;
  return r;
}

// Bucket-by-bucket equality: what survives the V2 encoding (exact min/max do not).
void expect_same_buckets(const stats::Histogram& a, const stats::Histogram& b, const char* what) {
  ASSERT_EQ(a.total_count(), b.total_count()) << what;
  ASSERT_EQ(a.counts_len(), b.counts_len()) << what;
  for (int i = 0; i < a.counts_len(); ++i) EXPECT_EQ(a.count_at_index(i), b.count_at_index(i)) << what << " index " << i;
}

void expect_round_trip(const RunReport& r) {
  auto read = read_json_report(render_json(r), "report.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  const RunReport& b = *read;
  EXPECT_EQ(b.url, r.url);
  EXPECT_EQ(b.method, r.method);
  EXPECT_EQ(b.threads, r.threads);
  EXPECT_EQ(b.connections, r.connections);
  EXPECT_EQ(b.duration_ns, r.duration_ns);
  EXPECT_EQ(b.request_count, r.request_count);
  EXPECT_EQ(b.timeout_ns, r.timeout_ns);
  EXPECT_EQ(b.warmup_ns, r.warmup_ns);
  EXPECT_EQ(b.keep_alive, r.keep_alive);
  EXPECT_EQ(b.record_timeouts, r.record_timeouts);
  EXPECT_EQ(b.load_model, r.load_model);
  EXPECT_EQ(b.rate_per_s, r.rate_per_s);
  EXPECT_EQ(b.rate_end_per_s, r.rate_end_per_s);
  ASSERT_EQ(b.stages.size(), r.stages.size());
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    EXPECT_EQ(b.stages[i].duration_ns, r.stages[i].duration_ns);
    EXPECT_EQ(b.stages[i].target_rate_per_s, r.stages[i].target_rate_per_s);
  }
  EXPECT_EQ(b.poisson, r.poisson);
  EXPECT_EQ(b.seed, r.poisson ? r.seed : 0u);
  EXPECT_EQ(b.deadline_ns, r.deadline_ns);
  EXPECT_EQ(b.target_rate_per_s, r.target_rate_per_s);
  EXPECT_EQ(b.shard_index, r.shard_index);
  EXPECT_EQ(b.shard_count, r.shard_count);
  EXPECT_EQ(b.start_unix_ns, r.start_unix_ns);
  EXPECT_EQ(b.measured_ns, r.measured_ns);
  EXPECT_EQ(b.interrupted, r.interrupted);
  EXPECT_EQ(b.first_error, r.first_error);
  EXPECT_EQ(b.tls_first_error, r.tls_first_error);

  const stats::Counters& x = r.counters;
  const stats::Counters& y = b.counters;
  EXPECT_EQ(y.responses, x.responses);
  EXPECT_EQ(y.requests_sent, x.requests_sent);
  EXPECT_EQ(y.bytes_read, x.bytes_read);
  EXPECT_EQ(y.warmup_responses, x.warmup_responses);
  EXPECT_EQ(y.connects, x.connects);
  EXPECT_EQ(y.tls_handshakes, x.tls_handshakes);
  EXPECT_EQ(y.tls_resumed, x.tls_resumed);
  EXPECT_EQ(y.scheduled, x.scheduled);
  EXPECT_EQ(y.peak_backlog, x.peak_backlog);
  EXPECT_EQ(y.errors.connect, x.errors.connect);
  EXPECT_EQ(y.errors.tls, x.errors.tls);
  EXPECT_EQ(y.errors.read, x.errors.read);
  EXPECT_EQ(y.errors.write, x.errors.write);
  EXPECT_EQ(y.errors.timeout, x.errors.timeout);
  EXPECT_EQ(y.errors.parse, x.errors.parse);
  EXPECT_EQ(y.errors.deadline, x.errors.deadline);
  EXPECT_EQ(y.errors.backlog, x.errors.backlog);
  EXPECT_EQ(y.errors.unsent, x.errors.unsent);
  EXPECT_EQ(y.errors.status, x.errors.status);
  EXPECT_EQ(y.status_counts, x.status_counts);

  expect_same_buckets(b.latency, r.latency, "latency");
  expect_same_buckets(b.latency_censored, r.latency_censored, "latency_censored");
  expect_same_buckets(b.connect, r.connect, "connect");
  expect_same_buckets(b.tls_handshake, r.tls_handshake, "tls_handshake");
  expect_same_buckets(b.service, r.service, "service");
  expect_same_buckets(b.queue_delay, r.queue_delay, "queue_delay");
  expect_same_buckets(b.rate_samples, r.rate_samples, "rate_samples");
  // What a reader sees of the round-tripped report is what it saw of the original.
  EXPECT_EQ(render_json(b), render_json(*read_json_report(render_json(b), "again.json")));
}

TEST(JsonReader, ClosedModelReportRoundTripsEveryCountAndHistogram) { expect_round_trip(closed_report()); }

TEST(JsonReader, HttpsReportRoundTripsItsTlsFigures) {
  RunReport r = closed_report();
  r.url = "https://127.0.0.1:8443/";
  r.counters.tls_handshakes = 12;
  r.counters.tls_resumed = 9;
  r.counters.errors.tls = 3;
  r.tls_first_error = "certificate verify failed: self-signed certificate";
  for (int i = 0; i < 12; ++i) r.tls_handshake.record(400'000 + i * 1000);
  expect_round_trip(r);
}

TEST(JsonReader, OpenModelReportRoundTripsEveryCountAndHistogram) { expect_round_trip(open_report()); }

TEST(JsonReader, RampAndEmptyHistogramsRoundTrip) {
  RunReport r;
  r.url = "http://h/";
  r.threads = 1;
  r.connections = 1;
  r.load_model = LoadModel::kRamp;
  r.rate_per_s = 10;
  r.rate_end_per_s = 20;
  expect_round_trip(r);
}

// The error message of reading `text`, which must fail with kBadInput.
std::string read_error(const std::string& text) {
  auto read = read_json_report(text, "shard2.json");
  EXPECT_FALSE(read.ok()) << "accepted";
  if (read.ok()) return {};
  EXPECT_EQ(read.error().kind, ErrorKind::kBadInput);
  EXPECT_EQ(read.error().message.rfind("shard2.json: ", 0), 0u) << read.error().message;
  return read.error().message;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(JsonReader, TextThatIsNotJsonIsRefusedNamingTheFile) {
  EXPECT_NE(read_error("Running 10s test @ http://h/").find("not valid JSON"), std::string::npos);
  read_error("");
}

TEST(JsonReader, TruncatedJsonIsRefusedAtEveryLength) {
  const std::string text = render_json(open_report());
  for (std::size_t len = 0; len + 2 < text.size(); len += 7) read_error(text.substr(0, len));
}

TEST(JsonReader, AReportWrittenBeforeTheUnsentClassStillReads) {
  const std::string text = replace_once(render_json(open_report()), "\"unsent\": 9,", "");
  auto read = read_json_report(text, "old.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->counters.errors.unsent, 0u);
  EXPECT_EQ(read->counters.errors.backlog, 8u);
}

TEST(JsonReader, AnotherSchemaOrVersionIsRefused) {
  const std::string text = render_json(closed_report());
  EXPECT_NE(read_error(replace_once(text, "\"pacer-report\"", "\"wrk-report\"")).find("schema: "), std::string::npos);
  EXPECT_NE(read_error(replace_once(text, "\"schema_version\": 2", "\"schema_version\": 3")).find("schema_version"),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(text, "\"schema_version\": 2", "\"schema_version\": 0")).find("schema_version"),
            std::string::npos);
  read_error("[1, 2, 3]");
}

TEST(JsonReader, MissingOrMistypedFieldsAreNamed) {
  const std::string text = render_json(closed_report());
  EXPECT_NE(read_error(replace_once(text, "\"responses\": 1000", "\"responses\": \"1000\"")).find("counts.responses"),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(text, "\"responses\": 1000", "\"responses\": -1")).find("counts.responses"),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(text, "\"url\":", "\"URL\":")).find("config.url: missing"), std::string::npos);
  EXPECT_NE(read_error(replace_once(text, "\"keep_alive\": false", "\"keep_alive\": 0")).find("config.keep_alive"),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(text, "\"503\": 10", "\"5030\": 10")).find("status_codes.5030"),
            std::string::npos);
}

// Found by fuzzing (json_report): a start_time past 2262 overflowed int64
// nanoseconds; a time they cannot hold is a bad report naming the field.
TEST(JsonReader, AStartTimeInt64NanosecondsCannotHoldIsRefused) {
  const std::string text = render_json(closed_report());
  const std::string start = "\"2026-11-30T00:53:20.123Z\"";
  for (const char* when : {"\"4052-11-30T00:53:20.123Z\"", "\"2262-04-12T00:00:00.000Z\"", "\"1013-12-31T01:00:00.250Z\"",
                           "\"1677-09-21T00:00:00.000Z\""}) {
    EXPECT_NE(read_error(replace_once(text, start, when)).find("start_time: "), std::string::npos) << when;
  }
  for (const char* when : {"\"2262-04-11T00:00:00.999Z\"", "\"1677-09-22T00:00:00.000Z\""}) {
    auto read = read_json_report(replace_once(text, start, when), "edge.json");
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(nlohmann::json::parse(render_json(*read))["start_time"], std::string(when).substr(1, 24));
  }
}

TEST(JsonReader, AHistogramWithOneCharacterChangedIsRefused) {
  const RunReport r = closed_report();
  const std::string encoded = stats::encode_v2_base64(r.latency);
  const std::string text = render_json(r);
  // Every position in the middle of the string (not only a lucky one).
  for (std::size_t i = 12; i + 4 < encoded.size(); ++i) {
    std::string changed = encoded;
    changed[i] = changed[i] == 'A' ? 'B' : 'A';
    const std::string message = read_error(replace_once(text, encoded, changed));
    EXPECT_NE(message.find("latency."), std::string::npos) << message;
  }
}

TEST(JsonReader, TruncatedBase64IsRefusedNamingTheField) {
  const RunReport r = closed_report();
  const std::string encoded = stats::encode_v2_base64(r.connect);
  const std::string text = render_json(r);
  for (std::size_t len : {std::size_t{0}, std::size_t{5}, encoded.size() / 2, encoded.size() - 4}) {
    const std::string message = read_error(replace_once(text, encoded, encoded.substr(0, len)));
    EXPECT_NE(message.find("connect_time.histogram: "), std::string::npos) << message;
  }
}

TEST(JsonReader, AnUnreadableFileIsNamed) {
  auto read = read_json_report_file("/nonexistent/shard9.json", 1 << 20);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(read.error().message.find("/nonexistent/shard9.json"), std::string::npos);
}

TEST(JsonReader, AFileOverTheSizeCapIsRefusedBeforeItIsRead) {
  char path[] = "/tmp/pacer-report-cap-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 4096), 0);  // sparse: 4 KiB of zeros, over a 1 KiB cap
  ::close(fd);
  auto read = read_json_report_file(path, 1024);
  ::unlink(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(read.error().message.find("is 4096 bytes, more than the report size cap (1 KiB; --max-report-size)"),
            std::string::npos)
      << read.error().message;
}


// One shard of a closed-model run holding the given latency samples.
RunReport shard_with(const std::vector<std::int64_t>& latencies_ns, int index) {
  RunReport r;
  r.url = "http://10.0.0.1/";
  r.threads = 2;
  r.connections = 8;
  r.request_count = latencies_ns.size();
  r.shard_index = index;
  r.shard_count = 3;
  r.measured_ns = (5 + index) * kNsPerS;
  r.start_unix_ns = (1000 - index) * kNsPerS;
  r.counters.responses = latencies_ns.size();
  r.counters.requests_sent = latencies_ns.size();
  r.counters.status_counts[200] = latencies_ns.size();
  r.counters.errors.timeout = static_cast<std::uint64_t>(index);
  for (std::int64_t v : latencies_ns) r.latency.record(v);
  r.rate_samples.record(100 + index);
  return r;
}

struct ThreeShards {
  std::vector<RunReport> shards;
  stats::Histogram all = stats::Histogram::for_latency_ns();
  std::uint64_t total = 0;
};

// Three shards with deliberately different distributions (averaging their
// percentiles would be far off), and one histogram holding every sample.
ThreeShards three_shards() {
  ThreeShards out;
  std::mt19937_64 rng(7);
  const std::int64_t scales_ns[] = {100'000, 5'000'000, 80'000'000};
  const std::size_t sizes[] = {3000, 1000, 137};
  for (int s = 0; s < 3; ++s) {
    std::exponential_distribution<double> gap(1.0 / static_cast<double>(scales_ns[s]));
    std::vector<std::int64_t> samples;
    for (std::size_t i = 0; i < sizes[s]; ++i) samples.push_back(static_cast<std::int64_t>(gap(rng)) + 1);
    for (std::int64_t v : samples) out.all.record(v);
    out.total += samples.size();
    out.shards.push_back(shard_with(samples, s));
  }
  return out;
}

const std::vector<std::string> kNames = {"shard0.json", "shard1.json", "shard2.json"};

// What these tests check is not about missing shards: merge as before
// --allow-missing existed (tests of the missing-shard rule are below).
Result<RunReport> merge_as_before(const std::vector<RunReport>& shards, const std::vector<std::string>& names,
                                  bool force) {
  MergeRules rules;
  rules.force = force;
  rules.allow_missing = true;
  return merge_reports(shards, names, rules);
}

TEST(Merge, ThreeShardsEqualOneHistogramOfEverySample) {
  const ThreeShards in = three_shards();
  auto merged = merge_as_before(in.shards, kNames, false);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->latency.total_count(), in.all.total_count());
  for (double p : {50.0, 90.0, 99.0, 99.9, 100.0}) {
    EXPECT_EQ(merged->latency.value_at_percentile(p), in.all.value_at_percentile(p)) << "p" << p;
  }
  EXPECT_EQ(merged->latency.max(), in.all.max());
  EXPECT_EQ(merged->latency.min(), in.all.min());
  EXPECT_EQ(merged->counters.responses, in.total);
  EXPECT_EQ(merged->counters.status_counts[200], in.total);
  EXPECT_EQ(merged->counters.errors.timeout, 0u + 1u + 2u);
  EXPECT_EQ(merged->request_count, in.total);
  EXPECT_EQ(merged->threads, 6);
  EXPECT_EQ(merged->connections, 24);
  EXPECT_EQ(merged->measured_ns, 7 * kNsPerS);        // the longest shard's
  EXPECT_EQ(merged->start_unix_ns, 998 * kNsPerS);    // the earliest start
  EXPECT_EQ(merged->rate_samples.total_count(), 3);
  EXPECT_EQ(merged->shard_count, 1);
}

TEST(Merge, ShardsReadFromJsonMergeLikeOneRoundTrippedHistogram) {
  const ThreeShards in = three_shards();
  std::vector<RunReport> read;
  for (std::size_t i = 0; i < in.shards.size(); ++i) {
    auto shard = read_json_report(render_json(in.shards[i]), kNames[i]);
    ASSERT_TRUE(shard.ok()) << shard.error().message;
    read.push_back(std::move(*shard));
  }
  auto merged = merge_as_before(read, kNames, false);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  // V2 keeps buckets; the summaries' exact extremes come back with each read, so
  // the merge is `all` itself, its exact min and max included.
  const stats::Histogram* all = &in.all;
  EXPECT_EQ(merged->latency.total_count(), all->total_count());
  for (double p : {50.0, 99.0, 100.0}) {
    EXPECT_EQ(merged->latency.value_at_percentile(p), all->value_at_percentile(p)) << "p" << p;
  }
  EXPECT_EQ(merged->latency.max(), all->max());
  EXPECT_EQ(merged->latency.min(), all->min());
  EXPECT_EQ(merged->latency.mean(), all->mean());
}

TEST(Merge, SumsCountersAndTargetRatesAndKeepsTheFirstError) {
  RunReport a = open_report();
  RunReport b = open_report();
  b.shard_index = 1;
  b.interrupted = false;
  a.interrupted = false;
  a.first_error.clear();
  b.first_error = "read: connection reset";
  b.counters.status_counts[404] = 5;
  auto merged = merge_as_before({a, b}, {"a.json", "b.json"}, false);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->counters.responses, 2000u);
  EXPECT_EQ(merged->counters.scheduled, 3000u);
  EXPECT_EQ(merged->counters.errors.deadline, 14u);
  EXPECT_EQ(merged->counters.status_counts[200], 1980u);
  EXPECT_EQ(merged->counters.status_counts[404], 5u);
  EXPECT_DOUBLE_EQ(merged->target_rate_per_s, 2 * 512.25);
  EXPECT_EQ(merged->service.total_count(), 2000);
  EXPECT_EQ(merged->queue_delay.max(), 3'000'000'000);
  EXPECT_FALSE(merged->interrupted);
  EXPECT_EQ(merged->first_error, "read: connection reset");
  EXPECT_EQ(merged->rate_per_s, a.rate_per_s);  // configuration from the first shard
  b.interrupted = true;
  EXPECT_TRUE(merge_as_before({a, b}, {"a.json", "b.json"}, false)->interrupted);
}

// The message of refusing to merge a and b (which must fail unless forced).
std::string refusal(const RunReport& a, const RunReport& b) {
  EXPECT_TRUE(merge_as_before({a, b}, {"one.json", "two.json"}, true).ok()) << "--force must merge them";
  auto merged = merge_as_before({a, b}, {"one.json", "two.json"}, false);
  EXPECT_FALSE(merged.ok()) << "merged";
  if (merged.ok()) return {};
  EXPECT_EQ(merged.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(merged.error().message.find("one.json and two.json"), std::string::npos) << merged.error().message;
  return merged.error().message;
}

TEST(Merge, DifferingConfigurationsAreRefusedNamingTheFieldUnlessForced) {
  const RunReport a = open_report();
  auto changed = [&a](auto change) {
    RunReport b = a;
    b.shard_index = 0;
    change(b);
    return b;
  };
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.url = "http://other/"; })).find("differ in url"),
            std::string::npos);
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.method = "GET"; })).find("differ in method"), std::string::npos);
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.load_model = LoadModel::kClosed; })).find("load_model"),
            std::string::npos);
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.timeout_ns = kNsPerS; })).find("timeout_s"), std::string::npos);
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.keep_alive = true; })).find("keep_alive"), std::string::npos);
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.duration_ns = kNsPerS; })).find("duration_s"), std::string::npos);
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.stages[1].target_rate_per_s = 7; })).find("stages"),
            std::string::npos);
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.poisson = false; })).find("arrival"), std::string::npos);
  EXPECT_NE(refusal(a, changed([](RunReport& b) { b.shard_count = 4; })).find("shard.count"), std::string::npos);
  EXPECT_NE(refusal(a, changed([&a](RunReport& b) { b.shard_index = a.shard_index; })).find("both shard 2 of 3"),
            std::string::npos);
  RunReport ramp = a;
  ramp.load_model = LoadModel::kRamp;
  ramp.rate_end_per_s = 10;
  RunReport ramp2 = ramp;
  ramp2.shard_index = 0;
  ramp2.rate_end_per_s = 20;
  EXPECT_NE(refusal(ramp, ramp2).find("rate_end_per_s"), std::string::npos);
}

TEST(Merge, PerShardCountsMayDiffer) {
  RunReport a = closed_report();
  RunReport b = closed_report();
  b.connections = 3;
  b.threads = 1;
  b.request_count = 1667;
  b.shard_index = 1;
  b.shard_count = a.shard_count = 2;
  auto merged = merge_as_before({a, b}, {"a.json", "b.json"}, false);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->connections, 13);
  EXPECT_EQ(merged->request_count, 6667u);
}

TEST(Merge, NoShardsIsAnError) {
  auto merged = merge_as_before({}, {}, false);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().kind, ErrorKind::kBadArgument);
}

TEST(Merge, HistogramsOfAnotherLayoutAreRefused) {
  RunReport a = closed_report();
  RunReport b = closed_report();
  b.connect = stats::Histogram(1, 1'000'000, 2);
  auto merged = merge_as_before({a, b}, {"a.json", "b.json"}, true);
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.error().message.find("b.json"), std::string::npos);
}

TEST(JsonReader, ATimeseriesHistogramIsCheckedByTheReader) {
  RunReport r = shard_with({1000}, 0);
  r.timeseries = std::vector<SeriesPoint>(1);
  nlohmann::json doc = nlohmann::json::parse(render_json(r));
  doc["timeseries"][0]["histogram"] = "not a histogram";
  const std::string message = read_error(doc.dump());
  EXPECT_NE(message.find("timeseries[0].histogram"), std::string::npos) << message;
}

}  // namespace
}  // namespace pacer::report
