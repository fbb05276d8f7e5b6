// Issue 40: a report file read back is the run's typed result again, so what it
// renders (`pacer report RUN.json`) is what the run rendered: the JSON report of a
// run and of its file read back are the same text, the client's and the server's
// evidence, the status errors by code and the exact extremes included.
#include <gtest/gtest.h>

#include "report/json.h"
#include "report/json_reader.h"

namespace pacer::report {
namespace {

RunReport a_run() {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = 2;
  r.connections = 4;
  r.duration_ns = 2 * kNsPerS;
  r.measured_ns = 2 * kNsPerS;
  r.start_unix_ns = 1'796'600'000'123'000'000;
  r.io_engine = "epoll";
  r.counters.requests_sent = r.counters.responses = 100;
  r.counters.status_counts[200] = 90;
  r.counters.status_counts[503] = 7;
  r.counters.status_counts[500] = 3;
  r.counters.errors.status = 10;
  for (int i = 0; i < 100; ++i) r.latency.record(150'001 + i * 997);  // not on a bucket's bound
  r.connect.record(70'003);
  EndpointReport e;
  e.name = "GET /";
  e.counts.requests_sent = e.counts.responses = 100;
  e.counts.non_2xx_3xx = 10;
  e.counts.errors.status = 10;
  e.counts.status_errors.add(503, 7);
  e.counts.status_errors.add(500, 3);
  e.latency = r.latency;
  r.endpoints.push_back(std::move(e));
  evidence::RunEvidence& ev = r.evidence;
  ev.busy_threshold = 0.9;
  ev.workers.push_back({2 * kNsPerS, kNsPerS / 2, 1'400'000'000, 12, 3'000'000});
  ev.workers.push_back({2 * kNsPerS, kNsPerS, 900'000'000, 4, 0});
  evidence::ProcessSample& peak = ev.peak.emplace();
  peak.cpu_share = 0.61;
  peak.cpus_allowed = 2;
  peak.rss_bytes = 12'345'678;
  peak.open_fds = 17;
  peak.fd_limit = 1024;
  peak.port_range = 28'232;
  peak.ports.push_back({"127.0.0.1", "127.0.0.1:8080", 4});
  ev.lag_busy_intervals = 1;
  ev.verdicts.push_back("the client: worker 1 was busy 75 % of the run");
  evidence::PidTotals pid;
  pid.pid = 4242;
  pid.cpu_user_ns = 300'000'000;
  pid.cpu_system_ns = 100'000'000;
  pid.peak_rss_bytes = 9'000'000;
  pid.peak_threads = 3;
  pid.peak_open_fds = 12;
  ev.pids.push_back(pid);
  ev.scrapes = 2;
  return r;
}

TEST(ReadBack, AReportFileRendersAsTheRunDid) {
  const RunReport run = a_run();
  const std::string json = render_json(run);
  auto back = read_json_report(json, "run.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(render_json(*back), json);
  EXPECT_EQ(back->latency.min(), run.latency.min());  // exact, though V2 keeps buckets
  EXPECT_EQ(back->latency.max(), run.latency.max());
  ASSERT_EQ(back->evidence.workers.size(), 2u);
  EXPECT_EQ(back->evidence.workers[0].wall_ns, run.evidence.workers[0].wall_ns);
  EXPECT_EQ(back->evidence.pids.size(), 1u);
  EXPECT_EQ(back->endpoints[0].counts.status_errors.total(), 10u);
}

// Issue 41: a capacity search's page is drawn from its steps read back, so the time
// series' worker loads come back exactly: their busy shares are not derived again
// from a share and a duration (which drifted by 1e-6), and a wait that straddled the
// interval's end (longer than its wall time) is read as written.
TEST(ReadBack, TheSeriesWorkerLoadsComeBackExactly) {
  RunReport run = a_run();
  SeriesPoint p;
  p.duration_ns = kNsPerS;
  p.workers.push_back({999'999'937, 990'081'607, 9'918'392, 3, 60'069});
  p.workers.push_back({1'000'000'011, 1'000'400'000, 5'000'000, 0, 0});  // waited past the wall
  p.evidence.emplace();
  run.timeseries.emplace().push_back(std::move(p));
  const std::string json = render_json(run);
  auto back = read_json_report(json, "run.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(render_json(*back), json);
  const std::vector<evidence::WorkerLoad>& loads = back->timeseries->front().workers;
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].waited_ns, 990'081'607);
  EXPECT_EQ(loads[1].busy(), run.timeseries->front().workers[1].busy());
}

TEST(ReadBack, StatusErrorsThatDoNotAddUpAreRefusedNamingTheField) {
  std::string json = render_json(a_run());
  const std::string codes = R"("503": 7)";
  json.replace(json.find(codes, json.find("status_errors")), codes.size(), R"("503": 6)");
  auto back = read_json_report(json, "run.json");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message, "run.json: endpoints[0].status_errors: adds up to 9, not errors.status 10");
}

}  // namespace
}  // namespace pacer::report
