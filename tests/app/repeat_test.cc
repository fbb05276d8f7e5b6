// --repeat's JSON report (src/app/repeat.h): its runs are each run's JSON report,
// and read back (report/report_runs.h) it renders the same bytes.
#include "app/repeat.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/json.h"
#include "report/report_runs.h"

namespace pacer::app {
namespace {

report::RunReport run(std::uint64_t responses, std::int64_t latency_ns) {
  report::RunReport r;
  r.url = "http://127.0.0.1/\x1b[31m";  // made printable in the JSON
  r.threads = 1;
  r.connections = 2;
  r.measured_ns = 400 * kNsPerMs;
  r.counters.requests_sent = responses;
  r.counters.responses = responses;
  r.counters.status_counts[200] = responses;
  r.latency.record_n(latency_ns, static_cast<std::int64_t>(responses));
  return r;
}

TEST(Repeat, TheJsonHoldsEachRunsReportAndReadsBackToTheSameBytes) {
  const std::vector<report::RunReport> runs = {run(10, 1000), run(12, 1100), run(11, 900)};
  const std::string text = render_repeat_json(runs, repeat_figures(runs), 1500 * kNsPerMs);
  const auto doc = nlohmann::json::parse(text);
  ASSERT_EQ(doc["runs"].size(), 3u);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(doc["runs"][i], nlohmann::json::parse(report::render_json(runs[i]))) << i;
  }
  EXPECT_EQ(doc["runs_count"], 3);
  EXPECT_EQ(doc["summary"]["p50"]["median"], 1000);
  auto read = report::read_report_runs(text, "r.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->repeat);
  EXPECT_EQ(render_repeat_json(read->runs, repeat_figures(read->runs), read->repeat_pause_ns), text);
}

}  // namespace
}  // namespace pacer::app
