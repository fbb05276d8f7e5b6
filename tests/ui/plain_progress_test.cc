// The plain progress line (src/ui/plain_progress.h).
#include "ui/plain_progress.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pacer::ui {
namespace {

struct Fixture {
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  report::IntervalReport interval;
  RunInfo run;
  Fixture() {
    latency.record_n(150'000, 990);
    latency.record_n(4'000'000, 10);
    interval.index = 2;
    interval.start_ns = 2 * kNsPerS;
    interval.duration_ns = kNsPerS;
    interval.sent = 1001;
    interval.completed = 1000;
    interval.latency = &latency;
    interval.open_connections = 10;
    run.duration_ns = 10 * kNsPerS;
  }
};

// Every line of a block, for the 80-column check.
std::vector<std::string> lines_of(const std::string& block) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from < block.size()) {
    const std::size_t end = block.find('\n', from);
    out.push_back(block.substr(from, end - from));
    from = end + 1;
  }
  return out;
}

TEST(PlainProgress, ClosedLoopBlockGivesTimeRateErrorsLatencyAndConnections) {
  Fixture f;
  EXPECT_EQ(render_plain_line(f.interval, f.run, 3000),
            "[  3.0s / 10.0s] 1000.0 req/s, errors 0\n"
            "    latency p50 150.01us p90 150.01us p99 150.01us max 4.00ms\n"
            "    10 connections open\n");
}

TEST(PlainProgress, OpenModelBlockAddsTheScheduleAndErrorsAreListed) {
  Fixture f;
  f.run.warmup_ns = kNsPerS;
  f.interval.target_rate_per_s = 1200.0;
  f.interval.backlog = 3;
  f.interval.schedule_lag_ns = 2 * kNsPerMs;
  f.interval.errors.timeout = 2;
  f.interval.errors.status = 1;
  EXPECT_EQ(render_plain_line(f.interval, f.run, 3000),
            "[  4.0s / 11.0s] 1000.0 req/s, errors 3 (timeout 2, status 1)\n"
            "    target 1200.0/s, sent 1001.0/s, lag 2.00ms, backlog 3\n"
            "    latency p50 150.01us p90 150.01us p99 150.01us max 4.00ms\n"
            "    10 connections open\n");
}

TEST(PlainProgress, TheDrainIsABlockOfItsOwnWithCountsAndNoTarget) {
  // 312 us after -d's end: 7 responses, 2 arrivals still sent from the backlog.
  Fixture f;
  f.interval.start_ns = 10 * kNsPerS;
  f.interval.duration_ns = 312'000;
  f.interval.drain_ns = 312'000;
  f.interval.completed = 7;
  f.interval.sent = 2;
  f.interval.open_connections = 1;
  EXPECT_EQ(render_plain_line(f.interval, f.run, 10000),
            "[ 10.0s / 10.0s] drain 312.00us after the end: 7 responses, 2 sent, errors 0\n"
            "    latency p50 150.01us p90 150.01us p99 150.01us max 4.00ms\n"
            "    1 connection open\n");
}

TEST(PlainProgress, AShardsBlockSaysItIsTheShards) {
  Fixture f;
  f.run.shard_label = "shard 0 of 3";
  f.interval.target_rate_per_s = 1000.0;
  const std::string block = render_plain_line(f.interval, f.run, 3000);
  EXPECT_EQ(block.rfind("[  3.0s / 10.0s] shard 0 of 3: 1000.0 req/s, errors 0\n    target 1000.0/s, sent 1001.0/s", 0),
            0u)
      << block;
}

TEST(PlainProgress, RequestCountRunCountsResponsesAndAnEmptyIntervalHasNoLatency) {
  Fixture f;
  f.run.duration_ns = 0;
  f.run.request_count = 5000;
  f.latency.reset();
  f.interval.completed = 0;
  const std::string block = render_plain_line(f.interval, f.run, 3000);
  EXPECT_EQ(block.rfind("[  3.0s, 3000/5000 responses] 0.0 req/s, errors 0\n    latency -\n", 0), 0u) << block;
}

TEST(PlainProgress, TheOldestRequestInFlightShowsAStall) {
  Fixture f;
  f.run.interval_ns = kNsPerS;
  f.interval.in_flight = 10;
  f.interval.oldest_in_flight_ns = 1'250 * kNsPerMs;
  f.interval.in_flight_over_interval = 8;
  const std::string block = render_plain_line(f.interval, f.run, 3000);
  EXPECT_NE(block.find("\n    10 connections open, in flight 10 (oldest 1.25s, 8 older than 1s)\n"), std::string::npos)
      << block;
  f.interval.in_flight_over_interval = 0;
  f.interval.oldest_in_flight_ns = 0;  // sent in the wake-up that closed the interval (issue 31: not "0.00us")
  EXPECT_NE(render_plain_line(f.interval, f.run, 3000).find(", in flight 10 (oldest <1us)\n"), std::string::npos);
  f.interval.oldest_in_flight_ns = 2 * kNsPerMs;
  EXPECT_NE(render_plain_line(f.interval, f.run, 3000).find(", in flight 10 (oldest 2.00ms)\n"), std::string::npos);
}

TEST(PlainProgress, AScenarioBlockGivesItsUsersAndItsChecksBesideTheErrors) {
  Fixture f;
  f.interval.users = 25;
  f.interval.errors.status = 2;
  f.interval.scenario_errors = stats::ScenarioErrorCounts{2, 1};
  const std::string block = render_plain_line(f.interval, f.run, 3000);
  EXPECT_EQ(block.rfind("[  3.0s / 10.0s] 1000.0 req/s, errors 2 (status 2), checks failed 2,\n    script errors 1\n", 0),
            0u)
      << block;
  EXPECT_NE(block.find("\n    25 users running, 10 connections open\n"), std::string::npos) << block;
}

TEST(PlainProgress, EveryLineFitsEightyColumnsWithEverythingAtOnce) {
  // The widest block: a shard of an open model, every error class, a scenario's
  // checks, a stall, seven-figure counts and both bottlenecks.
  Fixture f;
  f.run.shard_label = "shards 0, 1, 2, 3, 4, 5 of 16";
  f.run.connections = 10;
  f.run.interval_ns = kNsPerS;
  f.interval.completed = 1'234'567;
  f.interval.sent = 1'234'567;
  f.interval.target_rate_per_s = 1'000'000.0;
  f.interval.backlog = 123'456;
  f.interval.schedule_lag_ns = 12'345 * kNsPerMs;
  f.interval.service_ns_sum = 1'234'567 * 50 * kNsPerMs;
  f.interval.in_flight = 1'000'000;
  f.interval.oldest_in_flight_ns = 1'250 * kNsPerMs;
  f.interval.in_flight_over_interval = 999'999;
  f.interval.users = 100'000;
  stats::ErrorCounts& e = f.interval.errors;
  e.connect = e.tls = e.read = e.write = e.timeout = e.parse = e.status = e.deadline = e.backlog = e.unsent = 123'456;
  f.interval.scenario_errors = stats::ScenarioErrorCounts{123'456, 123'456};
  evidence::IntervalEvidence evidence;
  evidence.verdicts.push_back("the client: worker 0 was busy 99% of the interval (at most 1 CPU for 2 threads)");
  f.interval.evidence = &evidence;
  const std::string block = render_plain_line(f.interval, f.run, 3000);
  const std::vector<std::string> lines = lines_of(block);
  ASSERT_GE(lines.size(), 6u) << block;
  EXPECT_EQ(lines[0].rfind("[  3.0s / 10.0s] shards 0, 1, 2, 3, 4, 5 of 16: 1234567.0 req/s,", 0), 0u) << block;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(lines[i].size(), kPlainColumns) << lines[i];
    if (i > 0) {
      EXPECT_EQ(lines[i].rfind("    ", 0), 0u) << lines[i];
    }
  }
  // Wrapping loses no word: the block unwrapped is every section in order.
  std::string unwrapped;
  for (const std::string& l : lines) unwrapped += (unwrapped.empty() ? "" : " ") + l.substr(l.find_first_not_of(' '));
  EXPECT_NE(unwrapped.find("errors 1234560 (connect 123456, tls 123456, read 123456, write 123456, timeout 123456,"),
            std::string::npos)
      << unwrapped;
  EXPECT_NE(unwrapped.find("bottleneck: the client: worker 0 was busy 99% of the interval (at most 1 CPU for 2 threads)"),
            std::string::npos)
      << unwrapped;
}

TEST(PlainProgress, WrapBreaksAfterACommaAndAWordTooLongStaysWhole) {
  EXPECT_EQ(wrap_sections({"aaaa, bbbb, cccc", "dd"}, 12), "aaaa, bbbb,\n    cccc\n    dd\n");
  EXPECT_EQ(wrap_sections({"x " + std::string(20, 'y')}, 12), "x\n    " + std::string(20, 'y') + "\n");
}

TEST(PlainProgress, AnOpenModelCappedByItsConnectionsSaysSoWithTheArithmetic) {
  Fixture f;
  f.run.connections = 10;
  f.interval.target_rate_per_s = 1000.0;
  f.interval.completed = 200;
  f.interval.service_ns_sum = 200 * 50 * kNsPerMs;
  f.interval.backlog = 800;
  f.interval.errors.unsent = 5;
  const std::string line = render_plain_line(f.interval, f.run, 3000);
  EXPECT_NE(line.find("errors 5 (unsent 5)"), std::string::npos) << line;
  EXPECT_NE(line.find("\n    bottleneck: 10 conns / 50.00ms ~ 200/s < target 1.00k/s: raise -c to ~50\n"),
            std::string::npos)
      << line;
}

TEST(PlainProgress, EndsInANewlineWithoutEscapesOrCarriageReturns) {
  Fixture f;
  const std::string line = render_plain_line(f.interval, f.run, 0);
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\r'), std::string::npos);
  EXPECT_EQ(line.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace pacer::ui
